"""The Session: one engine per settings, models loaded once, and the same engine whichever adapter
(command line, desktop app, benchmark glue) asks for it."""

from __future__ import annotations

import argparse

import pytest

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.app.summary import describe_engine, summary_strategy
from mmdocsum_desktop.bench.glue import BenchEngine, EngineSpec
from mmdocsum_desktop.cli import summarize as cli_summarize
from mmdocsum_desktop.cli.engine_flags import engine_choice
from mmdocsum_desktop.engines.factory import JudgeNotConfiguredError
from mmdocsum_desktop.engines.llama_process import LlamaProcessEngine
from mmdocsum_desktop.schemas.settings import EngineChoice, Settings, save_settings
from tests.app.conftest import llama_settings


def _cli_choice(*flags: str) -> EngineChoice:
    parser = argparse.ArgumentParser()
    cli_summarize.register(parser.add_subparsers())
    return engine_choice(parser.parse_args(["summarize", "paper.pdf", "-o", "out.json", *flags]))


def test_gui_cli_and_benchmark_build_the_same_engine_from_the_same_settings(smollm, isolated_dirs):
    settings = llama_settings(smollm)
    save_settings(settings)  # what the benchmark glue reads, as `mmdocsum bench` does
    with Session(settings) as cli_session, cli_session.engine(_cli_choice()) as from_cli:
        cli_config, cli_info = from_cli.engine.config, from_cli.engine.describe()
        cli_values = from_cli.option_values()
    gui_session = Session(settings)  # what the window makes (MainWindow: app.Session over the saved settings)
    with gui_session.engine() as from_gui:
        assert isinstance(from_gui.engine, LlamaProcessEngine)
        assert from_gui.engine.config == cli_config
        assert from_gui.engine.describe() == cli_info
        assert from_gui.option_values() == cli_values
    gui_session.close()
    bench = BenchEngine.build(EngineSpec())
    try:
        assert bench.engine.config == cli_config and bench.run.option_values() == cli_values
    finally:
        bench.close()


def test_flags_overlay_the_settings(smollm):
    settings = llama_settings(smollm)
    choice = _cli_choice("--n-ctx", "1024", "--no-grammar", "--max-tokens", "80", "--figure-mode", "model")
    with Session(settings) as session, session.engine(choice) as run:
        assert run.engine.config.n_ctx == 1024 and run.engine.config.constrained is False
        assert run.engine.config.n_threads == 1  # from the settings
        assert run.max_tokens == 80 and run.figure_mode == "model"
    with Session(settings) as session:
        assert session.engine_name(_cli_choice("--engine", "extractive")) == "extractive"


def test_an_engine_is_loaded_once_and_replaced_when_the_settings_change(smollm):
    session = Session(llama_settings(smollm))
    try:
        with session.engine() as first:
            engine = first.engine
        with session.engine() as again:
            assert again.engine is engine  # the GGUF is not loaded a second time
        session.use_settings(Settings.model_validate({"engines": {"engine": "extractive"}}))
        with session.engine() as other:
            # the extractive summary needs no language model: no text engine, the extractive strategy
            assert other.name == "extractive" and other.engine is None
            assert summary_strategy(session, other).name == "extractive"
        assert engine.pid is None  # the llama model of the old settings was closed with its process
    finally:
        session.close()


def test_each_session_owns_its_models_and_shares_them_only_when_handed_over(extractive_session):
    # a session's summaries borrow its own embedder
    with extractive_session.engine() as run:
        assert summary_strategy(extractive_session, run).extractor.embedder is extractive_session.embedder()
    assert describe_engine(extractive_session).engine == "extractive"
    # another session loads its own: no module keeps a model for everybody
    other = Session(Settings())
    assert other.models is not extractive_session.models
    assert other.embedder() is not extractive_session.embedder()
    # sharing is explicit: the same container, the same loaded model
    borrowing = Session(Settings(), models=extractive_session.models)
    assert borrowing.embedder() is extractive_session.embedder()


def test_the_judge_is_the_configured_language_model(smollm):
    assert Session(llama_settings(smollm)).judge_name() == "llama"
    assert Session(llama_settings(smollm)).judge_description() == f"llama ({smollm.name})"
    with pytest.raises(JudgeNotConfiguredError, match="needs a language model"):
        Session(Settings()).judge_name()
    with pytest.raises(JudgeNotConfiguredError, match="must be a language model"):
        Session(Settings()).judge_name(EngineChoice(engine="extractive"))
    assert Session(Settings()).judge_name(EngineChoice(engine="llama", model=str(smollm))) == "llama"


def test_a_gguf_left_in_the_settings_never_judges_extractive_summaries_unless_chosen(smollm):
    left_behind = llama_settings(smollm).model_copy(deep=True)
    left_behind.engines.engine = "extractive"  # the user switched summaries back to extractive
    with pytest.raises(JudgeNotConfiguredError, match="Settings ▸ Judge"):
        Session(left_behind).judge_name()
    left_behind.engines.judge = "llama"  # chosen as the judge: then it judges, and says so
    assert Session(left_behind).judge_name() == "llama"
    assert Session(left_behind).judge_description() == f"llama ({smollm.name})"
