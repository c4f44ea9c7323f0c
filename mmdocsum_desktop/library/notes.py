"""Notes out: one Markdown note per paper into a folder (an Obsidian vault, say), each with YAML front
matter (title, authors, year, DOI, citation key, Zotero keys), the interleaved summary with its figures
copied beside the notes, and links back to the paper: ``zotero://open-pdf/library/items/KEY?page=N`` for
a Zotero paper (Zotero opens its reader at that page), a ``file://`` link otherwise.

Notes are the user's to edit. What the app writes is the *generated part*: its properties in the front
matter and the text between two marker lines,

    <!-- mmdocsum:begin ... -->
    ...
    <!-- mmdocsum:end -->

Exporting again rewrites only that part: the user's text above and below the markers and the properties
the user added are kept, and so are tags the user added to ``tags`` (or removed from it). What the app
last wrote in each note is recorded in the library (``LibraryStore.record_note``: the hash of the text
between the markers and the properties' values), never read from the note itself; a note whose
generated part differs from that record was edited by the user and is left as it is and reported,
unless ``overwrite_edited``. A file without the markers is never overwritten (not a note the app wrote,
or one whose markers the user removed), nor one with markers the library has no record of writing,
unless ``overwrite_edited``.

A note's file name is its citation key when first written and stays the same afterwards (a record says
which file holds the note of a Zotero item or a paper), so exporting again updates the same notes.
Each file is written atomically; a note whose text would not change is not written again.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmdocsum_desktop.fileio import (
    OutputError,
    OutputFolder,
    file_digest,
    write_bytes_atomic,
    write_text_atomic,
)
from mmdocsum_desktop.library.ask import citation_link
from mmdocsum_desktop.library.citekeys import generated_key
from mmdocsum_desktop.library.store import LibraryStore, NoteRecord
from mmdocsum_desktop.schemas.library import Annotation, ExportReport, Paper
from mmdocsum_desktop.schemas.summary import FigureChoice, Summary
from mmdocsum_desktop.summarize.render import escape_markdown, image_path, label_file_name, to_markdown

ATTACHMENTS = "attachments"
BEGIN_LINE = ("<!-- mmdocsum:begin — written by `mmdocsum library export`; what you write outside the "
              "mmdocsum:begin and mmdocsum:end lines is kept -->")
END_LINE = "<!-- mmdocsum:end -->"
_BEGIN = re.compile(r"^[ \t]*<!--\s*mmdocsum:begin\b.*-->[ \t]*$", re.MULTILINE)
_END = re.compile(r"^[ \t]*<!--\s*mmdocsum:end\b.*-->[ \t]*$", re.MULTILINE)
# a top-level YAML key at the start of a line ("title:", "aliases:"); other lines continue the entry above
_KEY = re.compile(r"""^(?P<key>[^\s#:'"-][^:]*?|"[^"]*"|'[^']*')[ \t]*:(?:[ \t]|$)""")
# the properties the app writes, in this order; "tags" is merged with the user's, the others are the app's
APP_PROPERTIES = ("title", "authors", "year", "doi", "citekey", "zotero_key", "zotero_attachment_key", "source",
                  "collections", "tags")


def citation_key(paper: Paper) -> str:
    """The paper's key as the library gives it (:meth:`LibraryStore.citation_keys`: Better BibTeX's or the
    Extra field's, else first author, year, title word, unique within the library); for a paper built
    elsewhere, that shape ("suanarunsawat2010antioxidant"), or ``paper{id}`` when it has none of them."""
    if paper.citekey:
        return paper.citekey
    return generated_key(paper.first_family_name(), paper.year, paper.display_title()) or f"paper{paper.id}"


def note_owner(paper: Paper) -> str:
    """Whose note it is: the Zotero item (whichever attachment is its paper now), else the paper."""
    if paper.source_kind == "zotero" and paper.zotero_key:
        return f"zotero:{paper.zotero_library_id or 1}:{paper.zotero_key}"
    return f"paper:{paper.id}"


def note_properties(paper: Paper, key: str) -> dict[str, Any]:
    """The front matter the app writes (empty values left out)."""
    properties: dict[str, Any] = {
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
    return {name: value for name, value in properties.items() if value not in (None, [], "")}


def front_matter(paper: Paper, key: str) -> list[str]:
    # every value as JSON, which YAML reads as it is (no quoting rules to get wrong)
    lines = [_property_line(name, value) for name, value in note_properties(paper, key).items()]
    return ["---", *lines, "---", ""]


def _property_line(name: str, value: object) -> str:
    return f"{name}: {json.dumps(value, ensure_ascii=False)}"


@dataclass
class _Copy:
    source: Path
    target: Path


@dataclass
class _Generated:
    properties: dict[str, Any]
    body: str  # the text between the markers, ending with a newline
    copies: list[_Copy] = field(default_factory=list)


def annotation_lines(paper: Paper, annotations: Sequence[Annotation]) -> list[str]:
    """The user's annotations from Zotero's reader as a section of the note: kind, page (a link that opens
    the paper there), the marked words quoted, the comment; [] without annotations."""
    if not annotations:
        return []
    lines = ["", "## Annotations in Zotero", ""]
    for annotation in annotations:
        where = annotation.page_label or (str(annotation.page) if annotation.page else "")
        page = f", [p. {escape_markdown(where)}]({citation_link(paper, annotation.page)})" if where else ""
        quoted = f" \u201c{escape_markdown(annotation.text)}\u201d" if annotation.text else ""
        comment = escape_markdown(" ".join(annotation.comment.split()))
        said = f" \u2014 {comment}" if comment and quoted else (f" {comment}" if comment else "")
        lines.append(f"- **{annotation.kind.capitalize()}**{page}:{quoted}{said}".rstrip(":"))
    return lines


def _generate(paper: Paper, summary: Summary | None, assets: Path | None, folder: Path, key: str,
              name: str, annotations: Sequence[Annotation] = ()) -> _Generated:
    """What the app writes in the note (nothing is copied yet: the note may be left as it is)."""
    properties = note_properties(paper, key)
    open_link = citation_link(paper, None)
    title = escape_markdown(" ".join(paper.display_title().split()))
    if summary is None:
        lines = [f"# {title}", "", f"[Open the paper]({open_link})", "",
                 "*No summary yet: `mmdocsum library summarize` writes one.*", *annotation_lines(paper, annotations)]
        return _Generated(properties, "\n".join(lines) + "\n")
    generated = _Generated(properties, "")
    attachments = folder / ATTACHMENTS / name

    def copied(figure: FigureChoice) -> str | None:
        source = image_path(figure.image, assets)
        if source is None or not source.is_file():
            return None
        target = attachments / label_file_name(figure.label, f"image-{figure.index}", source.suffix)
        generated.copies.append(_Copy(source, target))
        return f"{ATTACHMENTS}/{name}/{target.name}"

    body = to_markdown(summary, base_dir=assets, images=copied)
    lines = [body.rstrip(), "", "## Links", "", f"- [Open the paper]({open_link})"]
    pages = sorted({page for paragraph in summary.paragraphs for s in paragraph.sentences for page in s.pages})
    for page in pages:
        lines.append(f"- [p. {page}]({citation_link(paper, page)})")
    lines += annotation_lines(paper, annotations)
    generated.body = "\n".join(lines) + "\n"
    return generated


def note_text(paper: Paper, summary: Summary | None, assets: Path | None, folder: Path, key: str) -> str:
    """A new note's whole text (the attachments it links are not copied here)."""
    generated = _generate(paper, summary, assets, folder, key, key)
    return _compose(generated.properties, [], "", generated.body, "\n")


# ------------------------------------------------------------------------------------ reading a note


@dataclass
class ParsedNote:
    """A note file cut into what the app owns and what the user owns."""

    entries: list[tuple[str | None, str]]  # front matter entries: (key or None, raw lines with newlines)
    has_front_matter: bool
    above: str  # between the front matter and the begin marker
    body: str | None  # between the markers; None when they are missing or damaged
    below: str  # after the end marker
    problem: str | None = None  # why ``body`` is None


def parse_note(text: str) -> ParsedNote:
    text = text.replace("\r\n", "\n")
    entries: list[tuple[str | None, str]] = []
    has_front = False
    rest = text
    if text.startswith("---\n"):
        closing = re.search(r"^(---|\.\.\.)[ \t]*$\n?", text[4:], re.MULTILINE)
        if closing is not None:
            has_front = True
            entries = _entries(text[4:4 + closing.start()])
            rest = text[4 + closing.end():]
    begins, ends = list(_BEGIN.finditer(rest)), list(_END.finditer(rest))
    if not begins and not ends:
        return ParsedNote(entries, has_front, rest, None, "", "it has no mmdocsum markers")
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        return ParsedNote(entries, has_front, rest, None, "",
                          f"its mmdocsum markers are damaged ({len(begins)} begin and {len(ends)} end lines, "
                          "one of each expected, begin first)")
    begin, end = begins[0], ends[0]
    body = rest[begin.end():end.start()].removeprefix("\n")
    below = rest[end.end():].removeprefix("\n")
    return ParsedNote(entries, has_front, rest[:begin.start()], body, below)


def _entries(front: str) -> list[tuple[str | None, str]]:
    entries: list[tuple[str | None, str]] = []
    for line in front.splitlines(keepends=True):
        match = _KEY.match(line)
        if match is not None:
            entries.append((match.group("key").strip("'\""), line))
        elif entries:
            key, raw = entries[-1]
            entries[-1] = (key, raw + line)
        else:
            entries.append((None, line))
    return [(key, raw if raw.endswith("\n") else raw + "\n") for key, raw in entries]


def _scalar(text: str) -> Any:
    text = text.strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def entry_value(raw: str) -> Any:
    """The value of one front matter entry, in the forms it takes: the app's JSON (``key: [..]``), and what
    Obsidian writes when the user edits properties (plain or quoted scalars, block lists ``- item``)."""
    first, _, rest = raw.partition("\n")
    value = first.split(":", 1)[1].strip() if ":" in first else ""
    if value:
        return _scalar(value)
    items = [line.strip()[1:].strip() for line in rest.splitlines() if line.strip().startswith("-")]
    return [_scalar(item) for item in items] if items else None


def body_hash(body: str) -> str:
    """The hash of the text between the markers (line endings and trailing spaces do not count)."""
    lines = [line.rstrip() for line in body.replace("\r\n", "\n").split("\n")]
    return hashlib.sha256("\n".join(lines).strip("\n").encode("utf-8")).hexdigest()


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def edits(parsed: ParsedNote, record: NoteRecord) -> list[str]:
    """What the user changed in the generated part since the app wrote it ([] when nothing)."""
    changed: list[str] = []
    if parsed.body is None or body_hash(parsed.body) != record.body_hash:
        changed.append("the text between the mmdocsum markers")
    found = {key: entry_value(raw) for key, raw in parsed.entries if key is not None}
    for name in APP_PROPERTIES:
        if name == "tags":
            continue  # merged: the user's own tags are kept
        if name in found and found[name] != record.properties.get(name):
            changed.append(f"the property `{name}`")
        elif name not in found and name in record.properties:
            changed.append(f"the property `{name}` (removed)")
    return changed


def merged_tags(app_tags: list[str], written: list[str], in_note: Any) -> list[str]:
    """The app's tags now, less those the user removed from what the app wrote, plus those the user added."""
    note_tags = _as_list(in_note)
    removed = {t for t in written if t not in note_tags}
    added = [t for t in note_tags if t not in written]
    out = [t for t in app_tags if t not in removed]
    return out + [t for t in added if t not in out]


def _compose(properties: dict[str, Any], user_entries: list[str], above: str, body: str, below: str) -> str:
    lines = "".join(_property_line(name, value) + "\n" for name, value in properties.items())
    return f"---\n{lines}{''.join(user_entries)}---\n{above}{BEGIN_LINE}\n{body}{END_LINE}\n{below}"


# ------------------------------------------------------------------------------------ exporting


def export_notes(store: LibraryStore, papers: Sequence[Paper], folder: Path, *,
                 overwrite_edited: bool = False) -> ExportReport:
    folder = folder.expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    root = folder.resolve()
    report = ExportReport(folder=str(folder))
    used: set[str] = set()
    for paper in papers:
        owner = note_owner(paper)
        target = _note_path(store, paper, root, owner, used)
        used.add(target.name)
        stored = store.summary(paper.id)
        summary = Summary.model_validate_json(stored[0]) if stored else None
        assets = Path(stored[1]) if stored and stored[1] else None
        if summary is None:
            report.without_summary += 1
        key = citation_key(paper)
        generated = _generate(paper, summary, assets, root, key, target.stem, store.annotations(paper.id))
        problem = _write_note(store, target, root, owner, paper, generated, overwrite_edited)
        if problem is None:
            report.notes.append(str(target))
        else:
            report.skipped.append(f"{target}: {problem}")
    return report


def _note_path(store: LibraryStore, paper: Paper, root: Path, owner: str, used: set[str]) -> Path:
    """Where the paper's note goes: the file this library wrote it to before (its name stays when the
    citation key changes), else its citation key (with the paper's id when that name is taken)."""
    record = store.note_of(str(root), owner)
    if record is not None and Path(record.path).is_file() and Path(record.path).name not in used:
        return Path(record.path)
    key = citation_key(paper)
    target = root / f"{key}.md"
    other = store.note_record(str(target))
    if target.name in used or (other is not None and other.owner != owner):
        target = root / f"{key}-{paper.id}.md"
    return target


def _write_note(store: LibraryStore, target: Path, root: Path, owner: str, paper: Paper, generated: _Generated,
                overwrite_edited: bool) -> str | None:
    """Write (or rewrite the generated part of) one note and record it; the reason when it is left as it is."""
    record = store.note_record(str(target))
    properties = dict(generated.properties)
    app_tags = list(properties.get("tags", []))
    if not target.exists() and not target.is_symlink():
        text = _compose(properties, [], "", generated.body, "\n")
        existing = None
    else:
        if not target.is_file():
            return "not a file; left as it is"
        try:
            existing = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            return f"cannot be read ({getattr(error, 'strerror', None) or error}); left as it is"
        parsed = parse_note(existing)
        if parsed.body is None:
            return (f"{parsed.problem}, so it is not a note mmdocsum wrote (or its markers were removed) and it "
                    "is never overwritten; move or rename it to get the paper's note, or put the markers back")
        if record is None and not overwrite_edited:
            return ("has mmdocsum markers but this library has no record of writing it, so it is left as it is; "
                    "--overwrite-edited rewrites the part between its markers")
        changed = edits(parsed, record) if record is not None else []
        if changed and not overwrite_edited:
            return (f"you edited its generated part ({', '.join(changed)}), so it is left as it is; move your "
                    "text outside the mmdocsum markers, or --overwrite-edited rewrites that part (your text "
                    "outside the markers is kept)")
        found = {key: raw for key, raw in parsed.entries if key is not None}
        written_tags = _as_list(record.properties.get("tags")) if record is not None else app_tags
        if "tags" in found or record is not None:
            tags = merged_tags(app_tags, written_tags, entry_value(found["tags"]) if "tags" in found else None)
            properties.pop("tags", None)
            if tags:
                properties["tags"] = tags
        user_entries = [raw for key, raw in parsed.entries if key is None or key not in APP_PROPERTIES]
        text = _compose(properties, user_entries, parsed.above, generated.body, parsed.below)
    # the figures beside the note (attachments/NAME/): only files this app wrote there are replaced, and the
    # ones an earlier export left that this one does not show are removed (fileio.OutputFolder's record)
    folders: dict[Path, OutputFolder] = {}
    for copy in generated.copies:
        folder = folders.setdefault(copy.target.parent, OutputFolder(copy.target.parent, "note-attachments",
                                                                     derived=False))
        try:
            folder.claim(copy.target.name)
        except OutputError:
            if file_digest(copy.target) != file_digest(copy.source):
                return (f"its figure {copy.target} is not a file mmdocsum wrote, so the note is left as it is; "
                        "move that file and export again")
    for copy in generated.copies:
        if file_digest(copy.target) != file_digest(copy.source):
            write_bytes_atomic(copy.target, copy.source.read_bytes(), durable=False)
    if text != existing:
        write_text_atomic(target, text)
    # the record is what the file now holds (read back: the writer may have scrubbed a key from it)
    written = parse_note(target.read_text(encoding="utf-8"))
    assert written.body is not None
    store.record_note(NoteRecord(path=str(target), folder=str(root), owner=owner, paper_id=paper.id,
                                 body_hash=body_hash(written.body), properties=dict(generated.properties)))
    for folder in folders.values():
        folder.finish()
    return None
