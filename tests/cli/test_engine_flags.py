"""The engine flags are generated from the settings schema, one set for every command."""

from __future__ import annotations

import argparse

import pytest

from mmdocsum_desktop.cli import bench as cli_bench
from mmdocsum_desktop.cli import engine_flags
from mmdocsum_desktop.cli import place as cli_place
from mmdocsum_desktop.cli import summarize as cli_summarize
from mmdocsum_desktop.schemas.settings import EngineChoice, PlacementSettings


def _parser(register) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    return parser


def _subparser(parser: argparse.ArgumentParser, *path: str) -> argparse.ArgumentParser:
    for name in path:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[name]
    return parser


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


def test_every_field_of_the_schema_has_its_flag():
    assert set(engine_flags.ENGINE_FLAGS) == set(EngineChoice.model_fields)
    assert set(engine_flags.PLACEMENT_FLAGS) == set(PlacementSettings.model_fields)
    assert set(engine_flags.JUDGE_FIELDS) <= set(EngineChoice.model_fields)


def test_summarize_and_every_bench_suite_take_the_same_engine_flags():
    engine = set(engine_flags.ENGINE_FLAGS.values()) | {"--no-ocr"}
    summarize = _flags(_subparser(_parser(cli_summarize.register), "summarize"))
    assert engine <= summarize
    bench = _parser(cli_bench.register)
    for suite in ("mdocsum", "mcite", "rouge", "judge"):
        flags = _flags(_subparser(bench, "bench", suite))
        assert engine <= flags, suite
    judge = {"--judge", "--judge-model", "--judge-base-url", "--judge-api-model", "--judge-api-key-name",
             "--judge-n-ctx"}
    assert judge <= _flags(_subparser(bench, "bench", "mdocsum"))
    placement = set(engine_flags.PLACEMENT_FLAGS.values())
    assert placement <= _flags(_subparser(_parser(cli_place.register), "place"))
    assert placement <= _flags(_subparser(bench, "bench", "ftii"))


def test_parsed_flags_become_the_engine_choice():
    parser = _subparser(_parser(cli_summarize.register), "summarize")
    args = parser.parse_args(["paper.pdf", "-o", "s.json", "--engine", "llama", "--model", "m.gguf", "--threads",
                              "2", "--gpu-layers", "-1", "--no-grammar", "--no-ocr", "--temperature", "0.5",
                              "--api-key-name", "local", "--figure-mode", "placement"])
    assert engine_flags.engine_choice(args) == EngineChoice(
        engine="llama", model="m.gguf", n_threads=2, n_gpu_layers=-1, grammar=False, ocr=False, temperature=0.5,
        key_name="local", figure_mode="placement")
    defaults = parser.parse_args(["paper.pdf", "-o", "s.json"])
    assert engine_flags.engine_choice(defaults) == EngineChoice()  # nothing given: the settings decide


def test_judge_flags_need_a_judge_engine():
    parser = _subparser(_parser(cli_bench.register), "bench", "mdocsum")
    args = parser.parse_args(["-o", "out", "--judge", "llama", "--judge-model", "j.gguf", "--judge-n-ctx", "4096"])
    assert engine_flags.judge_choice(args) == EngineChoice(engine="llama", model="j.gguf", n_ctx=4096)
    assert engine_flags.judge_choice(parser.parse_args(["-o", "out"])) is None
    with pytest.raises(SystemExit, match="need --judge"):
        engine_flags.judge_choice(parser.parse_args(["-o", "out", "--judge-model", "j.gguf"]))


def test_placement_flags_overlay_the_saved_placement_settings():
    parser = _subparser(_parser(cli_place.register), "place")
    base = ["--paragraphs", "p.md", "--images", "doc.pdf", "-o", "out"]
    saved = PlacementSettings(ocr=True, clip="clip-vit-b-32")
    assert engine_flags.placement_settings(parser.parse_args(base), saved) == saved
    changed = engine_flags.placement_settings(parser.parse_args([*base, "--no-ocr", "--clip", "other"]), saved)
    assert changed == PlacementSettings(ocr=False, clip="other")


def test_a_value_out_of_range_is_a_one_line_error():
    parser = _subparser(_parser(cli_summarize.register), "summarize")
    with pytest.raises(SystemExit, match=r"^mmdocsum: error: --n-ctx: Input should be greater than or equal to 512$"):
        engine_flags.engine_choice(parser.parse_args(["paper.pdf", "-o", "s.json", "--n-ctx", "100"]))
    with pytest.raises(SystemExit, match=r"^mmdocsum: error: --threads: "):
        engine_flags.engine_choice(parser.parse_args(["paper.pdf", "-o", "s.json", "--threads", "0"]))
