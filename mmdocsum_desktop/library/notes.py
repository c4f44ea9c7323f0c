"""Notes out: one Markdown note per paper into a folder (an Obsidian vault, say), each with YAML front
matter (title, authors, year, DOI, citation key, Zotero keys), the interleaved summary with its figures
copied beside the notes, and links back to the paper: ``zotero://open-pdf/library/items/KEY?page=N`` for
a Zotero paper (Zotero opens its reader at that page), a ``file://`` link otherwise.

A note's file name is its citation key, so exporting again overwrites the same notes (each written
atomically) instead of piling up copies; a paper without a summary yet gets its properties and links.
"""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from mmdocsum_desktop.fileio import write_text_atomic
from mmdocsum_desktop.library.ask import citation_link
from mmdocsum_desktop.library.store import LibraryStore
from mmdocsum_desktop.schemas.library import ExportReport, Paper
from mmdocsum_desktop.schemas.summary import FigureChoice, Summary
from mmdocsum_desktop.summarize.render import image_path, label_file_name, to_markdown

ATTACHMENTS = "attachments"
_STOP = {"a", "an", "the", "of", "on", "in", "and", "for", "to", "with", "from", "by", "at"}


def _ascii_word(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower())


def citation_key(paper: Paper) -> str:
    """Better BibTeX's default shape: first author's last name, year, first word of the title that is
    not an article or a preposition ("suanarunsawat2010antioxidant"); the paper's id keeps it unique
    when those are unknown."""
    last = _ascii_word(paper.authors[0].split()[-1]) if paper.authors and paper.authors[0].split() else ""
    words = [w for w in (_ascii_word(w) for w in paper.display_title().split()) if w and w not in _STOP]
    key = f"{last}{paper.year or ''}{words[0] if words else ''}"
    return key if len(key) >= 4 else f"paper{paper.id}"


def front_matter(paper: Paper, key: str) -> list[str]:
    properties: dict[str, object] = {
        "title": paper.display_title(),
        "authors": paper.authors,
        "year": paper.year,
        "doi": paper.doi,
        "citekey": key,
        "zotero_key": paper.zotero_key,
        "zotero_attachment_key": paper.zotero_attachment_key,
        "source": paper.source_path,
        "collections": paper.collections,
        "tags": ["paper", *paper.tags],
    }
    # every value as JSON, which YAML reads as it is (no quoting rules to get wrong)
    lines = [f"{name}: {json.dumps(value, ensure_ascii=False)}" for name, value in properties.items()
             if value not in (None, [], "")]
    return ["---", *lines, "---", ""]


def note_text(paper: Paper, summary: Summary | None, assets: Path | None, folder: Path, key: str) -> str:
    lines = front_matter(paper, key)
    open_link = citation_link(paper, None)
    if summary is None:
        lines += [f"# {paper.display_title()}", "", f"[Open the paper]({open_link})", "",
                  "*No summary yet: `mmdocsum library summarize` writes one.*", ""]
        return "\n".join(lines)
    attachments = folder / ATTACHMENTS / key

    def copied(figure: FigureChoice) -> str | None:
        source = image_path(figure.image, assets)
        if source is None or not source.is_file():
            return None
        attachments.mkdir(parents=True, exist_ok=True)
        target = attachments / label_file_name(figure.label, f"image-{figure.index}", source.suffix)
        shutil.copyfile(source, target)
        return f"{ATTACHMENTS}/{key}/{target.name}"

    body = to_markdown(summary, base_dir=assets, images=copied)
    lines += [body.rstrip(), "", "## Links", "", f"- [Open the paper]({open_link})"]
    pages = sorted({page for paragraph in summary.paragraphs for s in paragraph.sentences for page in s.pages})
    for page in pages:
        lines.append(f"- [p. {page}]({citation_link(paper, page)})")
    return "\n".join(lines) + "\n"


def export_notes(store: LibraryStore, papers: Sequence[Paper], folder: Path) -> ExportReport:
    folder = folder.expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    report = ExportReport(folder=str(folder))
    used: set[str] = set()
    for paper in papers:
        key = citation_key(paper)
        if key in used:
            key = f"{key}-{paper.id}"
        used.add(key)
        stored = store.summary(paper.id)
        summary = Summary.model_validate_json(stored[0]) if stored else None
        assets = Path(stored[1]) if stored and stored[1] else None
        if summary is None:
            report.without_summary += 1
        target = folder / f"{key}.md"
        write_text_atomic(target, note_text(paper, summary, assets, folder, key))
        report.notes.append(str(target))
    return report
