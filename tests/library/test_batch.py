"""Summaries in a queue over a real library of committed JATS articles, written by the real extractive
summariser: each paper's status in the store, a paper whose file is gone fails alone, a second run
resumes (done papers are kept, the failed one is tried again), several papers at once on threads, and
--concurrency refused with a note for an engine that runs in this process."""

from __future__ import annotations

import threading
from pathlib import Path

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.app.summary import SummarizeFileRequest, summarize_file
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.library.batch import run_batch
from mmdocsum_desktop.schemas.library import AddPathsRequest, Paper, SummarizeLibraryRequest
from mmdocsum_desktop.schemas.summary import Summary
from tests.library.conftest import copy_papers

XMLS = ("PMC2803133.xml", "PMC4521097.xml", "PMC4736972.xml")


def test_a_queue_with_a_missing_file_then_resumed(session, tmp_path):
    folder = copy_papers(tmp_path / "papers", *XMLS)
    with use.Library(tmp_path / "lib") as library:
        use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        (folder / "PMC4736972.xml").rename(tmp_path / "moved.xml")  # gone after it was indexed
        report = use.summarize_papers(session, library, SummarizeLibraryRequest(all=True, concurrency=3))
        assert report.notes and "--concurrency 3 ignored" in report.notes[0]
        assert (report.done, report.failed, report.resumed) == (2, 1, 0)
        statuses = {Path(p.source_path).name: (p.summary_status, p.summary_error) for p in library.papers()}
        assert statuses["PMC4736972.xml"][0] == "failed" and "gone" in (statuses["PMC4736972.xml"][1] or "")
        assert statuses["PMC2803133.xml"] == ("done", None) and statuses["PMC4521097.xml"] == ("done", None)

        (tmp_path / "moved.xml").rename(folder / "PMC4736972.xml")
        use.add_paths(session, library, AddPathsRequest(paths=[folder]))  # the file is back
        resumed = use.summarize_papers(session, library, SummarizeLibraryRequest(all=True))
        assert (resumed.done, resumed.failed, resumed.resumed) == (1, 0, 2)
        assert all(p.summary_status == "done" for p in library.papers())
        summary = library.summary(library.resolve([str(folder / "PMC2803133.xml")])[0])
        assert summary is not None and len(summary.paragraphs) == 4


def test_several_papers_at_once_on_threads(session, tmp_path):
    folder = copy_papers(tmp_path / "papers", *XMLS)
    with use.Library(tmp_path / "lib") as library:
        use.add_paths(session, library, AddPathsRequest(paths=[folder], index=False))
        threads: set[str] = set()

        def one(paper: Paper, assets: Path, control: JobControl) -> Summary:
            threads.add(threading.current_thread().name)
            return summarize_file(session, SummarizeFileRequest(path=Path(paper.source_path), assets=assets)).summary

        report = run_batch(library.store, library.papers(), one, concurrency=3)
        assert (report.done, report.failed) == (3, 0)
        assert len(threads) >= 2 and all(name.startswith("library-summary") for name in threads)
        assert [p.summary_status for p in library.papers()] == ["done"] * 3
