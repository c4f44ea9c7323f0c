"""The benchmarks measure what users run: on the same paper, the summary that `mmdocsum summarize` writes
is the one the benchmark suites score (mdocsum/rouge through ``BenchEngine``, the pairs suite through its
summary stage), word for word and figure for figure, because all of them go through the session's
``app.summarize_file`` / ``app.summarize``."""

from __future__ import annotations

import json
from pathlib import Path

from mmdocsum_desktop.app import Session
from mmdocsum_desktop.bench.glue import BenchEngine, EngineSpec, using_session
from mmdocsum_desktop.bench.suites.pairs import default_summarizer
from mmdocsum_desktop.cli import main as mmdocsum
from mmdocsum_desktop.document.reader import export_document
from mmdocsum_desktop.schemas.settings import Settings
from tests.conftest import PAPERS

PAPER = PAPERS / "docling_picture_classification.pdf"  # 2 pages, 2 captioned figures: quick to read


def _cli_summary(tmp_path: Path, *flags: str) -> dict:
    out = tmp_path / "cli" / "summary.json"
    assert mmdocsum(["summarize", str(PAPER), "-o", str(out), "--engine", "extractive", "--quiet", *flags]) == 0
    return json.loads(out.read_text())


def test_the_suites_score_the_summary_the_command_writes(tmp_path, capsys):
    written = _cli_summary(tmp_path, "--no-abstract", "--no-citations")
    texts = [p["text"] for p in written["paragraphs"]]
    figures = [(p.get("figure") or {}).get("label") for p in written["paragraphs"]]
    assert any(texts)

    with Session(Settings()) as session, using_session(session):
        engine = BenchEngine.build(EngineSpec(engine="extractive"))
        record = engine.summarize(PAPER, include_abstract=False)
        # the mdocsum/rouge suites' prediction: the same paragraphs and images, in M-DocSum form
        assert [part["summary"] for part in record["answer"]] == texts
        indexes = [(p.get("figure") or {}).get("index") for p in written["paragraphs"]]
        assert [part["image"]["imageRef"] for part in record["answer"]] == [
            str(index) if index is not None else "None" for index in indexes]

        # the pairs suite's summary stage: the same text and the same figure per paragraph
        summarize, _name = default_summarizer()
        document = session.read(PAPER)
        export_document(document, tmp_path / "assets")
        rows = summarize(document, tmp_path / "assets")
    assert [row[0] for row in rows] == texts
    assert [row[1] for row in rows] == figures
