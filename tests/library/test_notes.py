"""Notes the user edits, on a real library of committed JATS articles: exporting again rewrites only the
part between the mmdocsum markers (and the app's own properties), keeps the lines, properties and tags
the user added; a note whose generated part the user edited is left byte-identical and reported by
name unless --overwrite-edited (which still keeps the user's text outside the markers); a file without
markers, or with markers this library has no record of writing, is never overwritten. What the app
wrote is checked against the library's record, not against the file."""

from __future__ import annotations

import json
from pathlib import Path

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.library.notes import BEGIN_LINE, END_LINE, body_hash, entry_value, parse_note
from mmdocsum_desktop.schemas.library import AddPathsRequest, ExportNotesRequest, SummarizeLibraryRequest
from mmdocsum_desktop.schemas.summary import FigureChoice, Summary, SummaryParagraph
from tests.library.conftest import copy_papers

RATS, SEALS = "PMC2803133.xml", "PMC4521097.xml"
RATS_NOTE, SEALS_NOTE = "suanarunsawat2010antioxidant.md", "robinson2015conspecific.md"


def _library(session, tmp_path: Path) -> use.Library:
    """The two articles registered, not read (export needs only their properties)."""
    folder = copy_papers(tmp_path / "papers", RATS, SEALS)
    library = use.Library(tmp_path / "lib")
    use.add_paths(session, library, AddPathsRequest(paths=[folder], index=False))
    return library


def _export(library: use.Library, vault: Path, **options: object):
    return use.export_notes(library, ExportNotesRequest(folder=vault, **options))


def _insert_after(text: str, anchor: str, addition: str) -> str:
    assert anchor in text, anchor
    return text.replace(anchor, anchor + addition, 1)


def test_text_properties_and_tags_the_user_added_outside_the_markers_are_kept(session, tmp_path):
    vault = tmp_path / "vault"
    with _library(session, tmp_path) as library:
        first = _export(library, vault)
        assert first.skipped == [] and sorted(Path(n).name for n in first.notes) == [SEALS_NOTE, RATS_NOTE]
        note = vault / RATS_NOTE
        written = note.read_text(encoding="utf-8")
        assert BEGIN_LINE in written and END_LINE in written and "No summary yet" in written
        # the user's edits, as in Obsidian: a property and a tag (in Obsidian's block style), a line above
        # the generated part, their own section below it
        edited = written.replace('tags: ["paper"]\n', 'tags:\n  - paper\n  - to-read\nstatus: reading\n')
        assert edited != written
        edited = edited.replace(BEGIN_LINE, "My question: does basil help?\n\n" + BEGIN_LINE)
        edited += "\n## My notes\n\nCompare with the 2015 trial.\n"
        note.write_text(edited, encoding="utf-8")
        seals_before = (vault / SEALS_NOTE).stat().st_mtime_ns

        # a summary now: the generated part changes, the user's text does not
        rats = str(tmp_path / "papers" / RATS)
        report = use.summarize_papers(session, library, SummarizeLibraryRequest(papers=[rats]))
        assert report.done == 1
        again = _export(library, vault)
        assert again.skipped == [] and len(again.notes) == 2
        after = note.read_text(encoding="utf-8")
        assert "No summary yet" not in after and "## Links" in after
        summary = library.summary(library.resolve([rats])[0])
        assert summary is not None and all(f"## {p.title}" in after for p in summary.paragraphs)
        assert "My question: does basil help?\n\n" + BEGIN_LINE in after
        assert after.split(END_LINE)[1] == edited.split(END_LINE)[1]  # below the markers: as the user left it
        assert after.endswith("\n## My notes\n\nCompare with the 2015 trial.\n")
        front = after.split("---\n")[1]
        assert "status: reading\n" in front and 'tags: ["paper", "to-read"]' in front
        assert 'citekey: "suanarunsawat2010antioxidant"' in front
        # the other note was not written again (nothing in it would change)
        assert (vault / SEALS_NOTE).stat().st_mtime_ns == seals_before

        # and once more: nothing the user wrote is doubled or lost
        _export(library, vault)
        assert note.read_text(encoding="utf-8") == after


def test_an_edit_between_the_markers_is_never_overwritten_unless_asked(session, tmp_path):
    vault = tmp_path / "vault"
    with _library(session, tmp_path) as library:
        _export(library, vault)
        note = vault / SEALS_NOTE
        text = note.read_text(encoding="utf-8")
        edited = _insert_after(text, BEGIN_LINE + "\n", "I think the pups know their neighbours.\n")
        edited += "My own line below.\n"
        note.write_text(edited, encoding="utf-8")

        report = _export(library, vault)
        assert [Path(n).name for n in report.notes] == [RATS_NOTE]
        assert len(report.skipped) == 1 and report.skipped[0].startswith(f"{note.resolve()}: you edited")
        assert "between the mmdocsum markers" in report.skipped[0] and "--overwrite-edited" in report.skipped[0]
        assert note.read_text(encoding="utf-8") == edited  # byte for byte

        forced = _export(library, vault, overwrite_edited=True)
        assert forced.skipped == [] and len(forced.notes) == 2
        rewritten = note.read_text(encoding="utf-8")
        assert "I think the pups" not in rewritten and rewritten.endswith("My own line below.\n")
        # what was written with --overwrite-edited is the app's again: the next export updates it
        assert _export(library, vault).skipped == []


def test_a_changed_property_is_an_edit_a_reformatted_one_is_not(session, tmp_path):
    vault = tmp_path / "vault"
    with _library(session, tmp_path) as library:
        _export(library, vault)
        note = vault / RATS_NOTE
        text = note.read_text(encoding="utf-8")
        # Obsidian rewrites the properties in its own style when the user adds one: same values
        lines = text.split("\n")
        at = next(i for i, line in enumerate(lines) if line.startswith("authors: "))
        names = json.loads(lines[at].removeprefix("authors: "))
        assert len(names) >= 2
        lines[at:at + 1] = ["authors:", f'  - "{names[0]}"', *(f"  - {name}" for name in names[1:])]
        reformatted = "\n".join(lines).replace("year: 2010\n", "year: 2010\nrating: 4\n")
        note.write_text(reformatted, encoding="utf-8")
        assert _export(library, vault).skipped == []
        assert "rating: 4\n" in note.read_text(encoding="utf-8")

        retitled = note.read_text(encoding="utf-8").replace(
            'title: "Antioxidant', 'title: "My title: antioxidant')
        note.write_text(retitled, encoding="utf-8")
        report = _export(library, vault)
        assert len(report.skipped) == 1 and "the property `title`" in report.skipped[0]
        assert note.read_text(encoding="utf-8") == retitled


def test_a_file_without_markers_or_without_a_record_is_never_overwritten(session, tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    mine = vault / RATS_NOTE
    mine.write_text("# My own note on basil\n\nNothing generated here.\n", encoding="utf-8")
    with _library(session, tmp_path) as library:
        for overwrite in (False, True):
            report = _export(library, vault, overwrite_edited=overwrite)
            assert [Path(n).name for n in report.notes] == [SEALS_NOTE]
            assert len(report.skipped) == 1 and report.skipped[0].startswith(f"{mine.resolve()}: it has no mmdocsum markers")
            assert mine.read_text(encoding="utf-8") == "# My own note on basil\n\nNothing generated here.\n"

    # a note with markers this library never wrote (another library's export into the same vault)
    seals = (vault / SEALS_NOTE).read_text(encoding="utf-8")
    with use.Library(tmp_path / "other-lib") as other:
        use.add_paths(session, other, AddPathsRequest(paths=[tmp_path / "papers" / SEALS], index=False))
        report = _export(other, vault)
        assert report.notes == [] and "no record of writing it" in report.skipped[0]
        assert (vault / SEALS_NOTE).read_text(encoding="utf-8") == seals
        assert _export(other, vault, overwrite_edited=True).skipped == []


def test_damaged_markers_are_reported_and_the_note_left_as_it_is(session, tmp_path):
    vault = tmp_path / "vault"
    with _library(session, tmp_path) as library:
        _export(library, vault)
        note = vault / SEALS_NOTE
        damaged = note.read_text(encoding="utf-8").replace(END_LINE + "\n", "")
        note.write_text(damaged, encoding="utf-8")
        report = _export(library, vault, overwrite_edited=True)
        assert "markers are damaged" in report.skipped[0] and note.read_text(encoding="utf-8") == damaged


def test_parsing_a_note():
    text = (f"---\ntitle: \"A: b\"\nauthors:\n  - X Y\n  - 'Z''s'\nyear: 2010\n---\nabove\n{BEGIN_LINE}\n"
            f"generated\r\n\n{END_LINE}\nbelow\n")
    parsed = parse_note(text)
    assert [key for key, _raw in parsed.entries] == ["title", "authors", "year"]
    assert [entry_value(raw) for _key, raw in parsed.entries] == ["A: b", ["X Y", "Z's"], 2010]
    assert (parsed.above, parsed.body, parsed.below) == ("above\n", "generated\n\n", "below\n")
    assert body_hash("generated  \n\n") == body_hash(parsed.body or "") != body_hash("generated!")
    assert parse_note("no markers at all").body is None
    # a line that only mentions the markers inside the text is no marker
    assert parse_note(f"x \\<!-- mmdocsum:end -->\n{BEGIN_LINE}\ny\n{END_LINE}\n").body == "y\n"


def _with_a_figure(library: use.Library, tmp_path: Path) -> None:
    """The seals paper's summary, one paragraph showing Figure 1 (an image in the summary's assets folder)."""
    assets = tmp_path / "assets"
    (assets / "figures").mkdir(parents=True)
    (assets / "figures" / "fig1.png").write_bytes(b"\x89PNG the summary's figure")
    seals = next(p for p in library.store.papers() if p.source_path.endswith(SEALS))
    summary = Summary(title="Seals", paragraphs=[SummaryParagraph(
        role="results", text="Pups told familiar pups from strangers.",
        figure=FigureChoice(index=1, id="fig1", label="Figure 1", image="figures/fig1.png"))])
    library.store.store_summary(seals.id, summary.model_dump_json(), str(assets))


def test_a_figure_beside_a_note_never_replaces_a_file_the_app_did_not_write(session, tmp_path):
    vault = tmp_path / "vault"
    with _library(session, tmp_path) as library:
        _with_a_figure(library, tmp_path)
        first = _export(library, vault)
        assert len(first.notes) == 2, first.skipped
        copies = list((vault / "attachments").rglob("*.png"))
        assert len(copies) == 1 and copies[0].read_bytes() == b"\x89PNG the summary's figure"
        copy = copies[0]
        copy.write_bytes(b"the user's drawing, saved over the figure")  # now the user's file
        note = (vault / SEALS_NOTE).read_text(encoding="utf-8")
        again = _export(library, vault)
        assert any(line.startswith(f"{vault.resolve() / SEALS_NOTE}: its figure") for line in again.skipped)
        assert copy.read_bytes() == b"the user's drawing, saved over the figure"
        assert (vault / SEALS_NOTE).read_text(encoding="utf-8") == note
        copy.write_bytes(b"\x89PNG the summary's figure")  # the same bytes as the app's: nothing to refuse
        assert _export(library, vault).skipped == []


def test_export_into_the_papers_own_folder_changes_none_of_its_files(session, tmp_path):
    """The vault is the papers' folder, holding the user's notes.md and a note named like a citation key."""
    with _library(session, tmp_path) as library:
        papers = tmp_path / "papers"
        (papers / "notes.md").write_text("# My reading notes\n", encoding="utf-8")
        (papers / RATS_NOTE).write_text("# Basil, my notes\n", encoding="utf-8")
        before = {p.name: p.read_bytes() for p in papers.iterdir()}
        for overwrite in (False, True):
            report = _export(library, papers, overwrite_edited=overwrite)
            assert [Path(n).name for n in report.notes] == [SEALS_NOTE]
        assert {name: (papers / name).read_bytes() for name in before} == before
