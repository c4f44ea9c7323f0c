"""The benchmark suites, registered in one static table: :data:`SUITES`.

Each suite is one module here holding orchestration only — load the split
(:mod:`mmdocsum_desktop.bench.splits`), generate or read predictions through resumable stages
(:mod:`mmdocsum_desktop.bench.runner`), score them with the paper's metrics
(:mod:`mmdocsum_desktop.bench.metrics`), write ``metrics.json`` and the reports
(:mod:`mmdocsum_desktop.bench.report`). Suites never import each other (an import-linter contract
checks it); what two suites share lives in ``schema``, ``splits``, ``metrics``, ``runner`` or ``glue``.

Adding a suite (``example``, say):

1. ``bench/metrics/example.py`` — the paper's metrics as pure functions of gold and prediction;
2. ``bench/suites/example.py`` — ``run_example(split, out, *, ..., control=None) -> dict`` (the
   ``metrics.json`` it wrote, built with :class:`~mmdocsum_desktop.schemas.bench.BenchmarkResult`),
   plus its loader in ``bench/splits.py`` and its metric keys in ``schema.METRIC_KEYS``;
3. one line in :data:`SUITES` below;
4. its command-line options: a module ``cli/bench_example.py`` with ``add_arguments(parser)`` and one
   line in ``cli/bench.py``'s ``SUITE_OPTIONS`` (a test checks every suite here has one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mmdocsum_desktop.bench.suites import ftii, judge, mcite, mdocsum, pairs, rouge


@dataclass(frozen=True)
class Suite:
    name: str  # the subcommand of `mmdocsum bench` and the "suite" of its metrics.json
    help: str  # one line for `mmdocsum bench --help`
    description: str  # what `mmdocsum bench NAME --help` says
    run: Callable[..., Any]  # the suite's entry point (its keyword arguments are its own)


SUITES: dict[str, Suite] = {
    "mdocsum": Suite(
        "mdocsum",
        "M-DocSum-Bench: interleaved summaries scored with M-DocEval",
        "Summarise every document of a split (or score --predictions) and write OUT/metrics.json, "
        "OUT/report.md and OUT/report.html. Running the same command again continues.",
        mdocsum.run_mdocsum,
    ),
    "mcite": Suite(
        "mcite",
        "MCiteBench: answers with citations (Source F1/EM, Citation F1, answer accuracy)",
        "Answer each question from its shuffled evidence and distractors (or score --predictions) and write "
        "OUT/metrics.json, OUT/responses.jsonl (MCiteBench's output form) and reports. Answers come from "
        "the same path as `mmdocsum ask`, the record's sources standing in for the document search.",
        mcite.run_mcite,
    ),
    "rouge": Suite(
        "rouge",
        "ROUGE-1/2/L of summaries written without the abstract, against the abstract",
        "LoRaLay-style: each document is summarised with its abstract removed and scored against the "
        "abstract (or --predictions are scored).",
        rouge.run_rouge,
    ),
    "ftii": Suite(
        "ftii",
        "FTII-Bench: flow text with image insertion (Acc_b, Acc_i, Acc_ni) or single choice",
        "Score image insertion on FTII-Bench data: its flow-insertion JSON (Acc_b, Acc_i, Acc_ni) or its "
        "single-choice TSV (accuracy).",
        ftii.run_flow_insertion,
    ),
    "judge": Suite(
        "judge",
        "score summaries against their own documents with a judge model (no gold needed)",
        "Each summary is scored 0-5 on text quality, text-image coherence, image choice, faithfulness and "
        "helpfulness, one judge call per aspect, each with an explanation. Summaries come from --summaries "
        "DIR (NAME.json for the document NAME.pdf, as `mmdocsum summarize -o NAME.json` writes) or are "
        "written now with --engine (default: extractive).",
        judge.run_judge_suite,
    ),
    "pairs": Suite(
        "pairs",
        "score ingestion, flow insertion and summaries against PDF + JATS pairs",
        "For each NAME.pdf with NAME.xml (JATS) in DIR, read the PDF with the app and score it against the "
        "publisher's markup. A JATS file without a PDF (eLife) is scored on the JATS reader. Writes "
        "OUT/metrics.json, OUT/report.md and OUT/report.html; the same command continues a stopped run.",
        pairs.run_pairs,
    ),
}
