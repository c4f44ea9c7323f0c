"""Model fitness: measured verdicts from the manifests, size rules for any other GGUF, and the sentences
the app shows before a run and on results (issue 17)."""

from __future__ import annotations

import json
from pathlib import Path

from mmdocsum_desktop.models import fitness, registry
from mmdocsum_desktop.schemas.settings import Settings
from mmdocsum_desktop.schemas.summary import Summary, SummaryParagraph

ROOT = Path(__file__).resolve().parents[2]


def test_every_builtin_language_model_says_what_it_is_fit_for():
    for entry in registry.list_models("gguf-llm"):
        for use in fitness.USES:
            verdict = fitness.for_entry(entry, use)
            assert verdict.verdict in ("fit", "weak", "unfit"), (entry.name, use)
            assert verdict.reason, (entry.name, use)


def test_smollm2_is_unfit_to_judge_because_its_scores_do_not_separate_damage():
    verdict = fitness.for_model("smollm2-135m", "judge")
    assert verdict.verdict == "unfit" and verdict.measured
    assert verdict.sentence().startswith("SmolLM2-135M-Instruct is too small to judge reliably")
    # the verdict is the benchmark's: the original beat its damaged copy (overall) in almost no pair
    result = json.loads((ROOT / verdict.evidence).read_text())
    pairs = [kind["overall"] for kind in result["ranking"].values()]
    wins = sum(p["wins"] for p in pairs)
    total = sum(p["n"] for p in pairs)
    assert wins / total < 0.2
    assert f"{wins} of {total}" in verdict.reason


def test_the_file_name_a_summary_records_finds_the_registered_model():
    entry = registry.get_model("smollm2-135m")
    file_name = Path(entry.file().path).name
    summary = Summary(engine={"engine": "llama", "model": "SmolLM2 135M Instruct", "model_file": f"/any/{file_name}"},
                      paragraphs=[SummaryParagraph(role="background", text="Words.", source="model")])
    verdict = fitness.for_summary(summary)
    assert verdict is not None and verdict.verdict == "unfit" and verdict.use == "summary_writer"
    assert "135M" in verdict.mark()


def test_extractive_summaries_and_fully_extracted_ones_carry_no_verdict():
    assert fitness.for_summary(Summary(engine={"engine": "extractive"})) is None
    extracted = Summary(engine={"engine": "llama", "model_file": "SmolLM2-135M-Instruct.Q4_1.gguf"},
                        paragraphs=[SummaryParagraph(role="background", text="x", source="extracted-fallback")])
    assert fitness.for_summary(extracted) is None


def test_unregistered_models_are_judged_by_the_size_in_their_name_or_file(tmp_path):
    assert fitness.for_model("/m/Llama-3.1-8B-Instruct-Q4_K_M.gguf", "judge").verdict == "fit"
    assert fitness.for_model("/m/qwen2.5-3b-instruct-q4_k_m.gguf", "judge").verdict == "weak"
    assert fitness.for_model("/m/tinyllama-500M.gguf", "summary_writer").verdict == "unfit"
    # no size in the name: the file's bytes at ~4.5 bits per weight (a 300 kB file is tiny)
    small = tmp_path / "mystery.gguf"
    small.write_bytes(b"GGUF" + bytes(300_000))
    assert fitness.for_model(str(small), "judge").verdict == "unfit"
    assert fitness.for_model("/nowhere/mystery.gguf", "judge").verdict == "unknown"


def test_settings_name_the_model_a_run_would_use():
    settings = Settings()
    assert fitness.for_settings(settings, "summary_writer") is None  # extractive: nothing to warn about
    settings.engines.llama.model = "smollm2-135m"
    assert fitness.for_settings(settings, "judge").verdict == "unfit"
    assert fitness.for_settings(settings, "summary_writer").verdict == "unfit"


def test_a_judgement_names_its_judge():
    verdict = fitness.for_judgement({"judge": "llama (SmolLM2-135M-Instruct.Q4_1.gguf)"})
    assert verdict is not None and verdict.verdict == "unfit"
    assert fitness.for_judgement({"judge": "openai (gpt-x)"}) is None
    assert fitness.for_judgement({"judge": "openai:gpt-x"}) is None


def test_the_summary_judges_label_names_its_model_too():
    """Issue 46, point 2: the summary judge labels itself "llama:<model name>" (judge.sources.engine_label);
    a judgement by SmolLM2 so labelled is still known as one by an unfit judge."""
    verdict = fitness.for_judgement({"judge": "llama:SmolLM2-135M-Instruct"})
    assert verdict is not None and verdict.verdict == "unfit" and verdict.use == "judge"
