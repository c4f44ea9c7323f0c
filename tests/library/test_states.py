"""States you can see, on a real library of committed JATS articles: each paper's indexing and summary
states, filtered by either; a batch's papers are "queued" then "running" under the batch's claim, a
cancelled batch puts those it did not write back to "pending", and so does opening the library after
a batch (or an indexer) was killed: a real process that ended holds the claims, and a real
`mmdocsum library summarize` is killed with SIGKILL in the slow test."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time

import pytest

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.library.store import claim_token
from mmdocsum_desktop.schemas.library import (
    AddPathsRequest,
    BatchItem,
    ListRequest,
    PaperFilter,
    SummarizeLibraryRequest,
)
from tests.conftest import REPO_ROOT
from tests.library.conftest import copy_papers

XMLS = ("PMC2803133.xml", "PMC4521097.xml", "PMC4736972.xml")


def dead_token() -> str:
    """The claim a process that has ended would have left (its pid is gone)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return f"{socket.gethostname()}:{process.pid}:deadbeef"


def _ids(library: use.Library, **filter: object) -> list[int]:
    return [p.id for p in library.papers(ListRequest(filter=PaperFilter.model_validate(filter), sort="added"))]


def test_claims_of_a_process_that_is_gone_go_back_to_pending_on_open(session, tmp_path):
    folder = copy_papers(tmp_path / "papers", *XMLS)
    with use.Library(tmp_path / "lib") as library:
        use.add_paths(session, library, AddPathsRequest(paths=[folder], index=False))
        first, second, third = (p.id for p in library.papers(ListRequest(sort="added")))
        gone, alive = dead_token(), claim_token()
        library.store.set_summary_status([first], "queued", token=gone)
        library.store.set_summary_status([second], "running", token=gone)
        library.store.set_summary_status([third], "queued", token=alive)  # this process: still running
        with library.store.write() as conn:  # what claim_next leaves while a paper is read
            conn.execute("UPDATE papers SET claimed_by = ?, claimed_at = ? WHERE id = ?", (gone, time.time(), first))
            conn.execute("UPDATE papers SET claimed_by = ?, claimed_at = ? WHERE id = ?", (alive, time.time(), third))
        assert _ids(library, summary_status="queued") == [first, third]
        assert [p.state() for p in library.papers(ListRequest(sort="added"))] == ["pending", "pending", "indexing"]
        assert _ids(library, status="indexing") == [third] and _ids(library, status="pending") == [first, second]

    with use.Library(tmp_path / "lib") as library:  # the next open
        states = {p.id: (p.state(), p.summary_status) for p in library.papers()}
        assert states == {first: ("pending", "pending"), second: ("pending", "pending"),
                          third: ("indexing", "queued")}
        row = sqlite3.connect(tmp_path / "lib" / "library.sqlite").execute(
            "SELECT claimed_by FROM papers WHERE id = ?", (first,)).fetchone()
        assert row == (None,)
        assert _ids(library, summary_status="pending") == [first, second]
        assert library.summary_counts() == {"pending": 2, "queued": 1}


def test_a_cancelled_batch_puts_what_it_did_not_write_back_to_pending(session, tmp_path):
    folder = copy_papers(tmp_path / "papers", *XMLS)
    with use.Library(tmp_path / "lib") as library:
        use.add_paths(session, library, AddPathsRequest(paths=[folder], index=False))
        control = JobControl()
        seen: list[str] = []

        def after_the_first(item: BatchItem) -> None:
            # while the batch runs its other papers wait in the queue, claimed
            seen.extend(sorted(p.summary_status for p in library.papers()))
            control.cancel()

        report = use.summarize_papers(session, library, SummarizeLibraryRequest(all=True), control=control,
                                      on_item=after_the_first)
        assert report.cancelled and report.done == 1
        assert seen == ["done", "queued", "queued"]
        assert sorted(p.summary_status for p in library.papers()) == ["done", "pending", "pending"]
        resumed = use.summarize_papers(session, library, SummarizeLibraryRequest(all=True))
        assert (resumed.done, resumed.resumed) == (2, 1)
        assert _ids(library, summary_status="done") == _ids(library)


def test_an_unknown_state_is_refused_by_the_request():
    with pytest.raises(ValueError, match="summary_status"):
        PaperFilter.model_validate({"summary_status": "half-done"})


@pytest.mark.slow
def test_a_batch_killed_with_sigkill_leaves_no_paper_queued(session, tmp_path):
    folder = copy_papers(tmp_path / "papers", *XMLS)
    library_dir = tmp_path / "lib"
    with use.Library(library_dir) as library:
        use.add_paths(session, library, AddPathsRequest(paths=[folder], index=False))
    process = subprocess.Popen(
        [sys.executable, "-m", "mmdocsum_desktop", "library", "summarize", "--all", "--engine", "extractive",
         "--library", str(library_dir), "--quiet"],
        cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while True:  # until the batch is writing a paper
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the batch wrote nothing in 4 minutes"
            conn = sqlite3.connect(library_dir / "library.sqlite", timeout=5)
            states = [r[0] for r in conn.execute("SELECT summary_status FROM papers")]
            conn.close()
            if "running" in states:
                break
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.kill()
        process.wait()
    with use.Library(library_dir) as library:
        after = sorted(p.summary_status for p in library.papers())
        assert "queued" not in after and "running" not in after and "pending" in after, after
        resumed = use.summarize_papers(session, library, SummarizeLibraryRequest(all=True))
        assert resumed.failed == 0 and resumed.done + resumed.resumed == 3
        assert sorted(p.summary_status for p in library.papers()) == ["done"] * 3
