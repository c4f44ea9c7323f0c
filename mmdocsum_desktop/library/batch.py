"""Summaries of many papers in a queue: each paper's status is in the store as it changes (queued,
running, done, failed with why), each summary is committed as it finishes, a cancel (or a kill) loses
only the papers in flight, and running the same batch again resumes it (what is done is not redone).

The batch claims its papers (``queued`` and ``running`` carry its token: host, pid): a cancelled batch
puts the papers it did not write back to ``pending`` before it returns, and a killed one's are put back
when the library is next opened (``LibraryStore.recover``), so no paper stays "queued" for ever.

``concurrency`` > 1 summarises that many papers at once on threads, which pays only when the engine is
a server (an OpenAI-compatible endpoint, or a pool of them behind one URL): the caller passes 1 for an
engine that runs in this process (llama.cpp, the extractive writer), as the benchmarks' runner does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mmdocsum_desktop.deadline import TimeLimitError, time_left
from mmdocsum_desktop.errors import JobCancelled, MmdocsumError
from mmdocsum_desktop.jobs import JobControl, ensure_control, run_queue
from mmdocsum_desktop.library.store import LibraryStore, claim_token
from mmdocsum_desktop.schemas.library import BatchItem, BatchReport, Paper
from mmdocsum_desktop.schemas.summary import Summary

# paper, its assets folder (figure crops), the job's control → the summary
SummarizeOne = Callable[[Paper, Path, JobControl], Summary]
ASSETS = "summaries"


def assets_folder(store: LibraryStore, paper: Paper) -> Path:
    return store.folder / ASSETS / f"{paper.id}"


def run_batch(
    store: LibraryStore,
    papers: Sequence[Paper],
    summarize_one: SummarizeOne,
    *,
    concurrency: int = 1,
    again: bool = False,
    control: JobControl | None = None,
    on_item: Callable[[BatchItem], None] | None = None,
) -> BatchReport:
    """Summarise ``papers`` (those done already are kept unless ``again``); missing papers fail at once."""
    control = ensure_control(control)
    inner = JobControl()
    inner._cancel = control._cancel  # one cancel for the batch and the summary being written
    started = time.perf_counter()
    report = BatchReport()
    todo: list[Paper] = []
    for paper in papers:
        if paper.summary_status == "done" and not again:
            report.resumed += 1
            report.items.append(_item(paper, "done"))
        else:
            todo.append(paper)
    token = claim_token()
    store.set_summary_status([p.id for p in todo], "queued", token=token)
    total = len(papers)

    def progress(what: str) -> None:
        control.report(report.resumed + report.done + report.failed, total, what)

    def summarise(paper: Paper) -> BatchItem:
        mark = time.perf_counter()
        if paper.status == "missing" or not Path(paper.source_path).is_file():
            raise MmdocsumError(f"{paper.source_path}: the file is gone")
        store.set_summary_status([paper.id], "running", token=token)
        folder = assets_folder(store, paper)
        summary = summarize_one(paper, folder, inner)
        store.store_summary(paper.id, summary.model_dump_json(), str(folder))
        return _item(paper, "done", seconds=time.perf_counter() - mark)

    def finish(paper: Paper, result: Callable[[], BatchItem]) -> None:
        try:
            item = result()
        except JobCancelled:
            report.cancelled = True
            return
        except TimeLimitError:
            report.timed_out = True  # the command's one deadline: this paper and the rest stay pending
            return
        except Exception as error:  # noqa: BLE001 — one paper never stops a batch
            if time_left() == 0:  # its wait ended by the command's deadline: not the paper's failure
                report.timed_out = True
                return
            message = str(error) if isinstance(error, MmdocsumError) else f"{type(error).__name__}: {error}"
            store.set_summary_status([paper.id], "failed", message)
            item = _item(paper, "failed", error=message)
            report.failed += 1
        else:
            report.done += 1
        report.items.append(item)
        if on_item is not None:
            on_item(item)
        progress(paper.display_title())

    progress("")
    try:
        run_queue(todo, summarise, finish, concurrency=concurrency,
                  stopped=lambda: control.cancelled or report.cancelled or report.timed_out or time_left() == 0,
                  thread_name_prefix="library-summary")
    except JobCancelled:
        report.cancelled = True
    finally:
        # what this batch queued and did not write (cancelled, an error out of the queue): pending again
        store.release_summaries([p.id for p in todo], token)
    if control.cancelled:
        report.cancelled = True
    if time_left() == 0 and len(report.items) < total:
        report.timed_out = True
    report.seconds = time.perf_counter() - started
    return report


def _item(paper: Paper, status: str, *, error: str | None = None, seconds: float = 0.0) -> BatchItem:
    return BatchItem.model_validate({"paper_id": paper.id, "title": paper.display_title(),
                                     "source_path": paper.source_path, "status": status, "error": error,
                                     "seconds": round(seconds, 3)})
