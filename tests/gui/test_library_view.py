"""The Library tab in the real window: a folder of committed papers added and indexed in the background,
listed by title with search and sorting, a question asked of the whole library answered with a link that
opens the paper at its page, notes exported; Open Recent names papers by title."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtCore import Qt, QUrl

from mmdocsum_desktop.gui.library_view import COLUMNS, parse_paper_link
from tests.conftest import DATA_PAPERS
from tests.gui.conftest import wait_job


def _papers_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "my papers"
    folder.mkdir()
    for name in ("PMC2803133.xml", "PMC4736972.pdf"):
        shutil.copy2(DATA_PAPERS / name, folder / name)
    return folder


def _jats_title(name: str) -> str:
    """The article title as the paper's publisher wrote it in its JATS."""
    title = ET.parse(DATA_PAPERS / name).getroot().find(".//title-group/article-title")
    assert title is not None
    return " ".join("".join(title.itertext()).split())


def _column(view, name: str) -> list[str]:
    column = COLUMNS.index(name)
    return [view.proxy.index(row, column).data() for row in range(view.proxy.rowCount())]


def test_a_folder_added_in_the_library_tab_is_listed_searched_asked_and_opened(qtbot, make_window, tmp_path, monkeypatch):
    monkeypatch.setenv("MMDOCSUM_LIBRARY", str(tmp_path / "library"))
    window = make_window()
    view = window.library_view
    window.tabs.setCurrentWidget(view)
    assert view.model.rowCount() == 0 and "empty" in view.status.text()

    job = view.add_folder(_papers_folder(tmp_path))
    wait_job(qtbot, job, 240_000)
    assert job.state == "succeeded", job.error
    titles = _column(view, "Title")
    assert sorted(titles) == sorted([_jats_title("PMC2803133.xml"), _jats_title("PMC4736972.xml")])
    assert _column(view, "Status") == ["indexed", "indexed"]
    assert "2 indexed" in view.status.text()

    view.table.sortByColumn(COLUMNS.index("Year"), Qt.SortOrder.DescendingOrder)
    years = [int(y) for y in _column(view, "Year") if y]
    assert years == sorted(years, reverse=True) and years

    view.search.setText("Ocimum")
    view.refresh()
    assert _column(view, "Title") == [_jats_title("PMC2803133.xml")]
    view.search.setText("")
    view.refresh()

    view.question.setText("How did the essential oils change the serum lipid profile of the rats?")
    job = view.ask()
    wait_job(qtbot, job, 120_000)
    assert job.state == "succeeded", job.error
    best = view.answer.papers[0]
    assert best.title == _jats_title("PMC2803133.xml")
    html = view.browser.toHtml()
    links = [part.split('"')[0] for part in html.split('href="')[1:]]
    parsed = [parse_paper_link(link) for link in links]
    assert parsed and all(p is not None for p in parsed)
    paper_id, page = next(p for p in parsed if p is not None and p[0] == best.paper_id)

    # a click on the source opens that paper, at that page once it is read
    view.browser.anchorClicked.emit(QUrl(f"library:{paper_id}:{page}"))
    qtbot.waitUntil(lambda: window.workspace is not None and window.workspace.document is not None, timeout=120_000)
    assert Path(window.workspace.document.source).name == Path(best.source_path).name

    # Open Recent lists the paper by its title, the file name beside it
    window.fill_recent()
    labels = [action.text() for action in window.recent_menu.actions()]
    assert labels and labels[0] != Path(best.source_path).name and Path(best.source_path).name in labels[0]

    out = tmp_path / "vault"
    job = view.export_notes(out)
    wait_job(qtbot, job, 60_000)
    assert job.state == "succeeded", job.error
    assert len(list(out.glob("*.md"))) == 2
