"""Indexing a real SQLite library of the committed papers: adding again costs nothing, a changed file is
read again, a removed one is marked missing, the same bytes at two paths are read once, a cancel keeps
what was done and resumes, a kill -9 of a real indexing process loses nothing committed and duplicates
nothing on resume, and two processes indexing one library at once share the work."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.library import AddPathsRequest, IndexRequest
from tests.conftest import REPO_ROOT
from tests.library.conftest import copy_papers

# JATS articles read in a second or two each, and one short PDF
XMLS = ("PMC2803133.xml", "PMC4521097.xml", "PMC4736972.xml")
PDF = "PMC4736972.pdf"


def integrity(library_dir: Path) -> dict[str, int]:
    """Counts read straight from the file, and the invariants a crash must never break."""
    conn = sqlite3.connect(library_dir / "library.sqlite")
    try:
        passages = conn.execute("SELECT count(*) FROM passages").fetchone()[0]
        distinct = conn.execute("SELECT count(*) FROM (SELECT DISTINCT content_hash, idx FROM passages)").fetchone()[0]
        assert passages == distinct, "a passage stored twice"
        for content_hash, expected in conn.execute("SELECT hash, passages FROM contents"):
            stored = conn.execute("SELECT count(*) FROM passages WHERE content_hash = ?", (content_hash,)).fetchone()[0]
            assert stored == expected, f"content {content_hash[:8]} half stored"
        orphans = conn.execute("SELECT count(*) FROM passages WHERE content_hash NOT IN (SELECT hash FROM contents)")
        assert orphans.fetchone()[0] == 0
        fts = conn.execute("SELECT count(*) FROM passages_fts WHERE passages_fts MATCH 'rat OR seal OR notch'").fetchone()[0]
        indexed_without_content = conn.execute(
            "SELECT count(*) FROM papers WHERE status = 'indexed' AND content_hash NOT IN (SELECT hash FROM contents)"
        ).fetchone()[0]
        assert indexed_without_content == 0
        return {
            "passages": passages, "fts_hits": fts,
            "contents": conn.execute("SELECT count(*) FROM contents").fetchone()[0],
            "indexed": conn.execute("SELECT count(*) FROM papers WHERE status = 'indexed'").fetchone()[0],
            "pending": conn.execute("SELECT count(*) FROM papers WHERE status = 'pending'").fetchone()[0],
        }
    finally:
        conn.close()


def test_adding_again_changing_removing_and_duplicating_files(session, tmp_path):
    folder = copy_papers(tmp_path / "papers", "PMC2803133.xml", "PMC4521097.xml")
    with use.Library(tmp_path / "lib") as library:
        first = use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        assert first.sources[0].new == 2 and first.index is not None and first.index.indexed == 2
        counts = integrity(tmp_path / "lib")
        assert counts["contents"] == 2 and counts["passages"] > 100 and counts["fts_hits"] > 0
        rats = next(p for p in library.papers() if p.source_path.endswith("PMC2803133.xml"))
        assert rats.year == 2010 and rats.doi == "10.3164/jcbn.09-52" and rats.authors[0] == "Thamolwan Suanarunsawat"

        again = use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        assert (again.sources[0].unchanged, again.sources[0].new, again.sources[0].changed) == (2, 0, 0)
        assert again.index is not None and again.index.indexed == 0
        assert integrity(tmp_path / "lib") == counts

        # new bytes (a comment appended after the root element): the file is read again, the old content goes
        with (folder / "PMC2803133.xml").open("a", encoding="utf-8") as handle:
            handle.write("\n<!-- edited -->\n")
        changed = use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        assert changed.sources[0].changed == 1 and changed.index is not None and changed.index.indexed == 1
        after = integrity(tmp_path / "lib")
        assert after["contents"] == 2 and after["passages"] == counts["passages"]
        assert library.paper(rats.id) is not None and library.paper(rats.id).content_hash != rats.content_hash

        # the same bytes under another name: listed twice, read once
        (folder / "copy.xml").write_bytes((folder / "PMC4521097.xml").read_bytes())
        duplicate = use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        assert duplicate.sources[0].new == 1 and duplicate.index is not None and duplicate.index.indexed == 0
        assert integrity(tmp_path / "lib")["contents"] == 2
        copy = next(p for p in library.papers() if p.source_path.endswith("copy.xml"))
        original = next(p for p in library.papers() if p.source_path.endswith("PMC4521097.xml"))
        assert copy.status == "indexed" and copy.duplicate_of == original.id

        # a file gone is marked, never dropped
        (folder / "PMC4521097.xml").unlink()
        gone = use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        assert gone.sources[0].missing == 1
        assert library.paper(original.id) is not None and library.paper(original.id).status == "missing"
        assert len(library.papers()) == 3


def test_a_cancelled_run_keeps_what_it_stored_and_resumes_without_duplicates(session, tmp_path):
    folder = copy_papers(tmp_path / "papers", *XMLS)
    control = JobControl()
    with use.Library(tmp_path / "lib") as library:
        use.add_paths(session, library, AddPathsRequest(paths=[folder], index=False))
        assert library.counts() == {"pending": 3}
        seen: list[int] = []

        def after_first_paper(progress: use.IndexProgress) -> None:
            seen.append(progress.papers_done)
            if progress.papers_done == 1:
                control.cancel()

        report = use.index(session, library, IndexRequest(), control=control, on_progress=after_first_paper)
        assert report.cancelled and report.indexed == 1 and report.left == 2
        assert integrity(tmp_path / "lib")["contents"] == 1
        resumed = use.index(session, library, IndexRequest())
        assert not resumed.cancelled and resumed.indexed == 2 and resumed.left == 0
        counts = integrity(tmp_path / "lib")
        assert counts["contents"] == 3 and counts["indexed"] == 3


def _indexing_process(folder: Path, library: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mmdocsum_desktop", "library", "add", str(folder), "--library", str(library),
         "--format", "json", "--quiet"],
        cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


@pytest.mark.slow
def test_kill_9_during_indexing_then_resume_duplicates_nothing(session, tmp_path):
    folder = copy_papers(tmp_path / "papers", *XMLS, PDF, "PMC2803133.pdf")
    library_dir = tmp_path / "lib"
    process = _indexing_process(folder, library_dir, _env())
    try:
        deadline = time.monotonic() + 240
        indexed = 0
        while indexed == 0:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the indexing process stored nothing in 4 minutes"
            time.sleep(0.05)
            if (library_dir / "library.sqlite").is_file():
                try:
                    conn = sqlite3.connect(library_dir / "library.sqlite", timeout=0.2)
                    indexed = conn.execute("SELECT count(*) FROM papers WHERE status = 'indexed'").fetchone()[0]
                    conn.close()
                except sqlite3.OperationalError:  # the schema is being created
                    indexed = 0
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.kill()
        process.wait()
    killed = integrity(library_dir)
    assert killed["pending"] >= 1 and killed["indexed"] >= 1
    with use.Library(library_dir) as library:
        report = use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        assert report.index is not None and report.index.failed == {}
        assert report.index.indexed == 5 - killed["contents"]  # only what the killed process had not stored
    after = integrity(library_dir)
    assert after["contents"] == 5 and after["indexed"] == 5 and after["pending"] == 0


@pytest.mark.slow
def test_two_processes_index_one_library_at_once_and_read_each_paper_once(tmp_path):
    folder = copy_papers(tmp_path / "papers", *XMLS, PDF)
    library_dir = tmp_path / "lib"
    env = _env()
    processes = [_indexing_process(folder, library_dir, env) for _ in range(2)]
    outputs = [process.communicate(timeout=600) for process in processes]
    for process, (_out, err) in zip(processes, outputs):
        assert process.returncode == 0, err[-2000:]
    reports = [json.loads(out)["index"] for out, _err in outputs]
    assert sum(r["indexed"] for r in reports) == 4  # each paper read by exactly one of them
    assert all(r["failed"] == {} for r in reports)
    counts = integrity(library_dir)
    assert counts["contents"] == 4 and counts["indexed"] == 4
