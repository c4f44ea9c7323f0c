"""Window state the desktop app remembers (recent files, last folder, geometry): a small schema'd JSON
file in the platform config directory (``MMDOCSUM_CONFIG_DIR`` overrides it, for tests). The engine
and model settings shared with the CLI live in :mod:`mmdocsum_desktop.schemas.settings`."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, Field, ValidationError

from mmdocsum_desktop.fileio import write_text_atomic

APP_NAME = "mmdocsum-desktop"
PREFS_NAME = "gui.json"
MAX_RECENT = 10
MAX_BENCH_RUNS = 20

log = logging.getLogger(__name__)


def config_dir() -> Path:
    override = os.environ.get("MMDOCSUM_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


class GuiPrefs(BaseModel):
    format: int = 1
    recent_files: list[str] = Field(default_factory=list)
    # the title the reader found for each recent file: Open Recent lists papers by title, as readers
    # know them (file names such as 1-s2.0-S0092867420301021-main.pdf say nothing)
    recent_titles: dict[str, str] = Field(default_factory=dict)
    last_dir: str | None = None  # where the user opened a file last (Open dialogs start there)
    save_dir: str | None = None  # where the user saved or exported last (Save and Export dialogs start there)
    geometry: str | None = Field(default=None, description="QMainWindow.saveGeometry(), base64")
    window_state: str | None = None
    zoom: float = 1.0
    bench_runs: list[str] = Field(default_factory=list)
    # Settings ▸ Appearance: the colour scheme ("system" follows the desktop's), and whether the reader's
    # pages are inverted in dark mode (white text on black, as Okular and Sioyek offer)
    theme: Literal["system", "light", "dark"] = "system"
    invert_pages: bool = False

    def remember_bench_run(self, run: str | Path) -> None:
        """The run first, then the others (at most MAX_BENCH_RUNS)."""
        value = str(run)
        self.bench_runs = [value] + [r for r in self.bench_runs if r != value]
        del self.bench_runs[MAX_BENCH_RUNS:]

    def add_recent(self, path: str | Path, title: str | None = None) -> None:
        value = str(Path(path).resolve())
        self.recent_files = [value] + [p for p in self.recent_files if p != value]
        del self.recent_files[MAX_RECENT:]
        if title and title.strip():
            self.recent_titles[value] = " ".join(title.split())
        self.recent_titles = {p: t for p, t in self.recent_titles.items() if p in self.recent_files}
        self.last_dir = str(Path(value).parent)

    def recent_label(self, path: str) -> str:
        """What Open Recent shows for ``path``: its title and file name, or the file name alone."""
        title = self.recent_titles.get(path)
        name = Path(path).name
        if not title:
            return name
        short = title if len(title) <= 70 else title[:67].rstrip() + "…"
        return f"{short} — {name}"


def prefs_path() -> Path:
    return config_dir() / PREFS_NAME


def load_prefs() -> GuiPrefs:
    path = prefs_path()
    try:
        return GuiPrefs.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return GuiPrefs()
    except (OSError, ValueError, ValidationError) as error:
        log.info("window preferences at %s were unreadable (%s); starting fresh", path, type(error).__name__)
        return GuiPrefs()


def save_prefs(prefs: GuiPrefs) -> None:
    write_prefs_text(prefs.model_dump_json(indent=2) + "\n")


def write_prefs_text(text: str) -> None:
    try:
        write_text_atomic(prefs_path(), text)
    except OSError as error:
        log.info("could not save window preferences: %s", error)
