"""Resumable, optionally concurrent benchmark runs.

A run lives in its output folder::

    OUT/run.json              what was asked (suite, split and its sha256, engine, options): a
                              later command into the same folder must ask the same, or pass --restart
    OUT/<stage>/<id>.json     one finished item per file, written atomically as soon as it is done

Running the same command again skips every item whose file is there and does the rest, so a crash,
a Ctrl-C or a cancel from the GUI loses at most the items in flight. ``concurrency`` > 1 runs items on
a thread pool — for engines that talk to servers (vLLM, llama.cpp server pools); in-process engines
run one at a time. Items that fail are reported with their reason and are tried again next time.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, TypeVar

from mmdocsum_desktop.errors import JobCancelled, MmdocsumError, RunMismatchError
from mmdocsum_desktop.fileio import write_json_atomic
from mmdocsum_desktop.jobs import JobControl, ensure_control, run_queue

T = TypeVar("T")

RUN_FILE = "run.json"


def safe_name(item_id: str) -> str:
    """A file name for an item id: readable when possible, unique always."""
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", item_id).strip("._")[:80]
    if clean == item_id and clean:
        return clean
    return f"{clean or 'item'}-{hashlib.sha256(item_id.encode()).hexdigest()[:10]}"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class RunFolder:
    """The output folder of one run: its settings and its per-item results."""

    def __init__(self, out: str | Path, settings: dict[str, Any], *, restart: bool = False) -> None:
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.settings = settings
        self._lock = threading.Lock()
        run_file = self.out / RUN_FILE
        previous = None
        if run_file.exists():
            try:
                previous = json.loads(run_file.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                previous = None
        if previous is not None and not restart:
            before = previous.get("settings", {})
            if before != settings:
                changed = sorted(k for k in set(before) | set(settings) if before.get(k) != settings.get(k))
                detail = "; ".join(f"{k}: {before.get(k)!r} → {settings.get(k)!r}" for k in changed[:4])
                raise RunMismatchError(
                    f"{self.out} holds a run with other settings ({detail}); "
                    "choose another output folder, or pass --restart to discard it"
                )
            self.created = previous.get("created")
        else:
            if restart:
                for stage in self.out.iterdir():
                    if stage.is_dir() and (stage / ".stage").exists():
                        for item in stage.glob("*.json"):
                            item.unlink()
            self.created = datetime.now(UTC).isoformat(timespec="seconds")
        write_json_atomic(run_file, {"settings": settings, "created": self.created})

    def stage(self, name: str) -> Path:
        folder = self.out / name
        folder.mkdir(parents=True, exist_ok=True)
        marker = folder / ".stage"
        if not marker.exists():
            marker.write_text("results of one stage of a benchmark run; one JSON file per item\n")
        return folder

    def load(self, stage: str, item_id: str) -> dict[str, Any] | None:
        path = self.stage(stage) / f"{safe_name(item_id)}.json"
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None  # a damaged file is redone
        return data if isinstance(data, dict) and data.get("id") == item_id else None

    def save(self, stage: str, item_id: str, result: dict[str, Any]) -> None:
        payload = {"id": item_id, **result}
        write_json_atomic(self.stage(stage) / f"{safe_name(item_id)}.json", payload)


def split_settings(suite: str, split: Path, mode: str, **extra: Any) -> dict[str, Any]:
    """The settings that identify a suite's run over a split file (the file's sha256 included, so an
    edited split never resumes an old run), then the suite's own ``extra`` ones, in that order."""
    return {"suite": suite, "split": str(split), "split_sha256": file_sha256(split), "mode": mode, **extra}


def close_engine(engine: Any) -> None:
    """Close an engine the suite built itself; a judge may wrap one without ``close``."""
    close = getattr(engine, "close", None)
    if callable(close):
        close()


@dataclass
class StageOutcome(Generic[T]):
    results: dict[str, dict[str, Any]] = field(default_factory=dict)  # item id → saved result
    failed: dict[str, str] = field(default_factory=dict)  # item id → reason
    resumed: int = 0  # items already finished by an earlier command
    processed: int = 0  # items finished now
    cancelled: bool = False
    seconds: float = 0.0


def run_stage(
    folder: RunFolder,
    stage: str,
    items: Sequence[T],
    item_id: Callable[[T], str],
    work: Callable[[T, JobControl], dict[str, Any]],
    *,
    concurrency: int = 1,
    control: JobControl | None = None,
    label: str = "items",
    is_current: Callable[[dict[str, Any]], bool] | None = None,
) -> StageOutcome[T]:
    """Run ``work`` on every item not finished yet; save each result as it comes.

    ``work`` returns a JSON-able dict (saved) or raises: an :class:`MmdocsumError` (or any exception)
    marks the item failed with its message, and the stage goes on. Cancellation (the control's, or
    ``JobCancelled`` from ``work``) stops new items, lets those in flight finish or stop, keeps what
    finished, and sets ``cancelled``; the caller decides what to write before re-raising.
    ``is_current`` can reject a saved result (for example judged by another judge) so it is redone.
    """
    control = ensure_control(control)
    # the items' own steps (reading, generating) share the cancellation but not the progress bar,
    # which counts items
    inner = JobControl(_cancel=control._cancel)
    outcome: StageOutcome[T] = StageOutcome()
    started = time.perf_counter()
    todo: list[T] = []
    for item in items:
        saved = folder.load(stage, item_id(item))
        if saved is not None and (is_current is None or is_current(saved)):
            outcome.results[item_id(item)] = saved
            outcome.resumed += 1
        else:
            todo.append(item)
    total = len(items)

    def progress() -> None:
        if control.on_progress is not None:
            control.on_progress(outcome.resumed + outcome.processed + len(outcome.failed), total, label)

    def finish(item: T, future_result: Callable[[], dict[str, Any]]) -> None:
        key = item_id(item)
        try:
            result = future_result()
        except JobCancelled:
            outcome.cancelled = True
            return
        except MmdocsumError as error:
            outcome.failed[key] = str(error)
        except Exception as error:  # noqa: BLE001 — one bad item never stops a run
            outcome.failed[key] = f"{type(error).__name__}: {error}"
        else:
            folder.save(stage, key, result)
            outcome.results[key] = {"id": key, **result}
            outcome.processed += 1
        progress()

    progress()
    run_queue(todo, lambda item: work(item, inner), finish, concurrency=concurrency,
              stopped=lambda: control.cancelled or outcome.cancelled, thread_name_prefix=f"bench-{stage}")
    if control.cancelled:
        outcome.cancelled = True
    outcome.seconds = time.perf_counter() - started
    return outcome
