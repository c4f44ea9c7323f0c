"""The benchmarks measure what users run: on the same paper, the summary that `mmdocsum summarize` writes
is the one the benchmark suites score (mdocsum/rouge through ``BenchEngine``, the pairs suite through its
summary stage), word for word and figure for figure, because all of them go through the session's
``app.summarize_file`` / ``app.summarize``. The pairs suite's placer gives the placement `mmdocsum place`
writes (both ``app.place``), and a question asked through a benchmark's session cites what `mmdocsum ask`
cites (both ``app.ask``); those two commands run as users run them, in a process of their own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mmdocsum_desktop.app.ask import ask
from mmdocsum_desktop.app.extract import extract
from mmdocsum_desktop.app.placement import figure_candidates
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.glue import BenchEngine, EngineSpec, current_session, using_session
from mmdocsum_desktop.bench.pairs_gold import strip_citations
from mmdocsum_desktop.bench.suites.pairs import body_blocks, default_placer, default_summarizer
from mmdocsum_desktop.cli import main as mmdocsum
from mmdocsum_desktop.document.reader import export_document
from mmdocsum_desktop.schemas.answer import Answer
from mmdocsum_desktop.schemas.settings import EngineChoice, Settings
from tests.conftest import DATA_PAPERS, REPO_ROOT

PAPER = DATA_PAPERS / "PMC4736972.pdf"  # a review, 6 pages, 1 captioned figure: quick to read
# a paper with more visuals for placement and questions: 8 pages, 3 figures, 4 tables (J. Clin. Biochem. Nutr.)
OILS = DATA_PAPERS / "PMC2803133.pdf"


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


def _command(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`mmdocsum ARGS` in a process of its own, with this test session's model folders and no saved
    settings (the defaults, as ``Session(Settings())`` here)."""
    env = {**os.environ, "MMDOCSUM_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-m", "mmdocsum_desktop", *args], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def test_the_pairs_placer_places_as_the_place_command(tmp_path):
    with Session(Settings()) as session, using_session(session):
        extraction = extract(current_session(), OILS, tmp_path / "paper", dpi=72)
        document = extraction.document
        # the pairs suite's own-paragraphs variant: the body paragraphs the app read, mentions removed
        paragraphs = [strip_citations(b.text) for b in body_blocks(document) if b.type == "paragraph"]
        pool = figure_candidates(document, extraction.folder, include_tables=False)
        assert len(paragraphs) >= 5 and len(pool) >= 2
        place, name = default_placer()
        chosen = place(paragraphs, pool, None)  # a JSON list of paragraphs carries no sections
    assert "app.place" in name

    (tmp_path / "paragraphs.json").write_text(json.dumps(paragraphs), encoding="utf-8")
    _command(tmp_path, "place", "--paragraphs", str(tmp_path / "paragraphs.json"), "--images",
             str(extraction.folder), "--no-tables", "-o", str(tmp_path / "placed"), "--quiet")
    rows = json.loads((tmp_path / "placed" / "placement.json").read_text(encoding="utf-8"))
    assert [row["paragraph"] for row in rows] == list(range(len(paragraphs)))
    assert [row["figure"] for row in rows] == [pool[c].label if c is not None else None for c in chosen]
    assert any(c is not None for c in chosen)  # the comparison covers placed figures, not only empty slots


def test_a_benchmark_session_cites_what_the_ask_command_cites(tmp_path):
    question = "How did the essential oils change the serum lipid profile of the hypercholesterolemic rats?"
    with Session(Settings()) as session, using_session(session):
        run = current_session()  # a suite's session
        answer = ask(run, run.read(OILS), question, choice=EngineChoice(engine="extractive"))

    done = _command(tmp_path, "ask", str(OILS), question, "--engine", "extractive", "--format", "json",
                    "--quiet")
    given = Answer.model_validate_json(done.stdout)
    assert answer.sentences and not answer.not_in_document
    assert [s.text for s in given.sentences] == [s.text for s in answer.sentences]
    assert [(s.pages, s.labels) for s in given.sentences] == [(s.pages, s.labels) for s in answer.sentences]
    assert given.cited_labels == answer.cited_labels and given.visual == answer.visual
    assert answer.cited_labels  # the comparison covers cited figures or tables
    assert [e.block for e in given.evidence] == [e.block for e in answer.evidence]
