"""The document pane, a reader: every PDF page in one continuous scroll (pages rendered by PyMuPDF in the
background as they come into view), zoom steps, fit-width (the default) and fit-page, pages rotated one by
one, a page-thumbnail sidebar, text selection with copy and a context menu (PyMuPDF's words and their
boxes), search over the normalised text with every hit marked, the detected figures and tables outlined;
the page and zoom go with the project. Articles (HTML, Markdown, JATS) are shown as their extracted text."""

from __future__ import annotations

import bisect
import html
import re
import threading
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from PySide6.QtCore import QPoint, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QGuiApplication,
    QIcon,
    QImage,
    QKeySequence,
    QPainter,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import (
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTextBrowser,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.app.pages import PdfPages, line_rects, match_words
from mmdocsum_desktop.app.present import MUPDF_LOCK, normalize_text, reading_citation, try_mupdf
from mmdocsum_desktop.gui import icons, render_process
from mmdocsum_desktop.gui.workers import Job, JobRunner
from mmdocsum_desktop.schemas.document import Document, Figure

ZOOMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
PAGE_GAP = 12  # pixels between pages in the continuous view
MARGIN = 16  # pixels left of room around the page in fit-width and fit-page
THUMB_SCALE = 0.2  # pixels per point of the sidebar's thumbnails
THUMB_BATCH = 6  # thumbnails rendered per background job
KEEP_RENDERED = 16  # rendered pages kept (more would hold hundreds of MB at high zoom)
_FIGURE_COLOUR = QColor(43, 110, 200)
_TABLE_COLOUR = QColor(210, 120, 30)
_HIGHLIGHT = QColor(255, 200, 0)
_SELECTION = QColor(40, 110, 230, 80)
_HIT = QColor(255, 215, 0, 110)
_SENTENCE = QColor(255, 226, 64, 120)  # the cited sentence, as a highlighter marks it
SENTENCE_MARGIN = 2.0  # points around the cited block: a word poking out of its box still counts

Rect = tuple[float, float, float, float]


class Word(NamedTuple):
    """One word of a PDF page as PyMuPDF gives it: its box in points and its place in reading order."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    block: int
    line: int


def search_key(text: str) -> str:
    """What search compares, for the page's words and the query alike: the reader's own normalisation
    (ligatures as letters, soft hyphens gone), then NFKC (full-width forms, other compatibility
    characters) and case folding. Only for matching: what is shown and copied keeps the paper's text."""
    return unicodedata.normalize("NFKC", normalize_text(text)).casefold()


def words_text(words: list[Word]) -> str:
    """Selected words as text: a space between words, a line break between blocks, ligatures as letters."""
    parts: list[str] = []
    previous: Word | None = None
    for word in words:
        if previous is not None:
            parts.append("\n" if word.block != previous.block else " ")
        parts.append(word.text)
        previous = word
    return normalize_text("".join(parts))


def line_boxes(words: list[Word]) -> list[Rect]:
    """One box per line of the words (what a selection or a search hit is drawn as)."""
    boxes: dict[tuple[int, int], list[float]] = {}
    for word in words:
        box = boxes.setdefault((word.block, word.line), [word.x0, word.y0, word.x1, word.y1])
        box[0], box[1] = min(box[0], word.x0), min(box[1], word.y0)
        box[2], box[3] = max(box[2], word.x1), max(box[3], word.y1)
    return [(box[0], box[1], box[2], box[3]) for box in boxes.values()]


def find_in_words(words: list[Word], query: str) -> list[list[int]]:
    """Every place the query occurs in the page's words, each as the indexes of the words it covers
    (matching on :func:`search_key` of both, so "flow" finds the "ﬂow" a ligature font printed)."""
    key = " ".join(search_key(query).split())
    if not key:
        return []
    starts: list[int] = []
    parts: list[str] = []
    offset = 0
    for word in words:
        starts.append(offset)
        part = " ".join(search_key(word.text).split())
        parts.append(part)
        offset += len(part) + 1
    text = " ".join(parts)
    hits: list[list[int]] = []
    position = text.find(key)
    while position >= 0:
        end = position + len(key)
        first = bisect.bisect_right(starts, position) - 1
        last = bisect.bisect_right(starts, end - 1) - 1
        hits.append(list(range(first, last + 1)))
        position = text.find(key, end)
    return hits


class _PdfRenderer:
    """One PDF used by render jobs, one at a time (its pages come from the page service, app.pages)."""

    def __init__(self, path: Path, password: str | None) -> None:
        self._lock = threading.Lock()
        self.path, self.password = str(path), password
        self.in_child = True  # pages are rasterised in the render process (see render_process)
        with MUPDF_LOCK:  # opened, measured and its metadata read in one turn in PyMuPDF (document/mupdf.py)
            self.pdf = PdfPages(path, password)
            # every page's size in points, for the continuous layout before any page is rendered
            self.sizes = self.pdf.sizes
            # title, author, subject ("Journal, 2017, doi:…"): what "Copy with citation" can name
            self.metadata: dict[str, str] = self.pdf.metadata
        self.page_count = self.pdf.page_count
        self._words: dict[int, list[Word]] = {}  # page index -> its words (read once, for selection and search)

    def words(self, page: int, *, wait: bool = False) -> list[Word]:
        """The words of page ``page`` (0-based) in reading order, with their boxes in points. On the GUI
        thread (``wait`` False): while another thread is in PyMuPDF (a paper being read), none for now
        rather than a frozen window or two threads in MuPDF at once (a crash). A job waits its turn."""
        with self._lock:
            if page not in self._words:
                with try_mupdf(3600.0 if wait else 0.05) as taken:
                    if not taken:
                        return []
                    # the lock is held: the page service takes it again (re-entrant) without waiting
                    self._words[page] = [Word(*w[:7]) for w in self.pdf.words(page)]
            return self._words[page]

    def has_words(self, page: int) -> bool:
        return page in self._words

    def render(self, page: int, zoom: float) -> QImage:
        if self.in_child and not render_process.ready():
            render_process.warm()  # meanwhile, this process renders (the first page must not wait seconds)
        elif self.in_child:
            try:
                width, height, stride, data = render_process.render(self.path, self.password, page, zoom)
            except Exception:  # noqa: BLE001 — no child process here (or it died): render in this one
                self.in_child = False
            else:
                return QImage(data, width, height, stride, QImage.Format.Format_RGB888).copy()
        with self._lock:
            pixels = self.pdf.render(page, zoom)
        return QImage(pixels.samples, pixels.width, pixels.height, pixels.stride, QImage.Format.Format_RGB888).copy()

    def thumbnails(self, pages: list[int], control) -> list[tuple[int, QImage]]:
        out = []
        for position, page in enumerate(pages):
            control.report(position, len(pages), "thumbnails")
            out.append((page, self.render(page - 1, THUMB_SCALE)))
        return out

    def search(self, text: str, control) -> list[tuple[int, list[Rect]]]:
        """Every occurrence of ``text`` as (page, its boxes, one per line), in reading order. PyMuPDF's
        own search compares the raw text, where a ligature font's "ﬂ" is not "fl": the words are
        compared normalised instead."""
        hits = []
        for number in range(self.page_count):
            control.report(number, self.page_count, "searching")
            words = self.words(number, wait=True)  # a job: it waits for a read in progress
            for indexes in find_in_words(words, text):
                hits.append((number + 1, line_boxes([words[i] for i in indexes])))
        return hits

    def close(self) -> None:
        render_process.forget(self.path)
        with self._lock:
            self.pdf.close()


class PageView(QGraphicsView):
    """The pages. A left-button drag selects text (as in every PDF reader); the middle button, or the
    left one with Space held, pans; a right click asks for the context menu."""

    zoomRequested = Signal(int)
    resized = Signal()
    selectionStarted = Signal(QPointF)  # scene positions
    selectionDragged = Signal(QPointF)
    contextMenuAt = Signal(QPointF, QPoint)  # scene position, global position

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)
        self.setBackgroundBrush(QBrush(QColor(90, 94, 102)))
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.viewport().setCursor(Qt.CursorShape.IBeamCursor)
        self._selecting = False
        self._pan_from: QPoint | None = None
        self._space = False

    def mousePressEvent(self, event) -> None:  # noqa: N802 — Qt's name
        pan = event.button() == Qt.MouseButton.MiddleButton or (
            event.button() == Qt.MouseButton.LeftButton and self._space)
        if pan:
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
        elif event.button() == Qt.MouseButton.LeftButton:
            self._selecting = True
            self.selectionStarted.emit(self.mapToScene(event.position().toPoint()))
            event.accept()
        else:
            super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        if self._pan_from is not None:
            delta = event.position().toPoint() - self._pan_from
            self._pan_from = event.position().toPoint()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
        elif self._selecting:
            self.selectionDragged.emit(self.mapToScene(event.position().toPoint()))
        else:
            super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        if self._pan_from is not None:
            self._pan_from = None
            self.viewport().setCursor(Qt.CursorShape.IBeamCursor)
        elif self._selecting:
            self._selecting = False
            self.selectionDragged.emit(self.mapToScene(event.position().toPoint()))
        else:
            super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().setCursor(Qt.CursorShape.IBeamCursor)
        super().keyReleaseEvent(event)

    def contextMenuEvent(self, event) -> None:  # noqa: N802
        self.contextMenuAt.emit(self.mapToScene(event.pos()), event.globalPos())
        event.accept()

    def wheelEvent(self, event) -> None:  # noqa: N802 — Qt's name
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoomRequested.emit(1 if event.angleDelta().y() > 0 else -1)
            event.accept()
            return
        super().wheelEvent(event)

    def resizeEvent(self, event) -> None:  # noqa: N802 — Qt's name
        super().resizeEvent(event)
        self.resized.emit()


class DocumentView(QWidget):
    """Shows one document. ``show_page``, ``show_figure`` and ``show_block`` are what citation clicks
    call; ``current_page``, ``rendered_page`` and ``highlighted`` tell tests where the pane is."""

    pageChanged = Signal(int)
    positionChanged = Signal(dict)  # {"page", "zoom", "fit"}: what the project keeps
    message = Signal(str)
    askRequested = Signal(str)  # "Ask about this" on selected text

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.document: Document | None = None
        self._renderer: _PdfRenderer | None = None
        self._page = 1
        self._zoom = 1.0
        self.fit: str | None = None  # None, "width" or "page": the zoom follows the pane's size
        self._base = 1.5  # pixels per point at 100 %
        self._render_job: Job | None = None
        self._render_again = False
        self._cache: dict[tuple[int, float], QImage] = {}
        self._tops: list[float] = []  # each page's top in the scene at the current scale
        self._page_items: dict[int, QGraphicsRectItem] = {}  # the white sheet of each page
        self._drawn: dict[int, float] = {}  # page -> scale of the pixmap on its sheet
        self._pixmaps: dict[int, QGraphicsPixmapItem] = {}
        self._hits: list[tuple[int, Rect]] = []  # each search hit: its page and the box around it
        self._hit_boxes: list[tuple[int, list[Rect]]] = []  # the same hits, one box per line they span
        self._hit_index = -1
        self._hits_for: str | None = None  # the query the hits are for (Enter again goes to the next hit)
        self._rotation: dict[int, int] = {}  # page -> degrees clockwise (90, 180, 270) the user turned it
        self._selection: tuple[int, int, int] | None = None  # page, the word the drag began at, the word now
        self._selection_items: list[QGraphicsRectItem] = []
        self._hit_items: list[QGraphicsRectItem] = []
        # the cited sentence shown: (page, one box per printed line), drawn until another citation is followed
        self.sentence: tuple[int, tuple[Rect, ...]] | None = None
        self._sentence_items: list[QGraphicsRectItem] = []
        self._text_hits: list = []  # an article's search hits (QTextCursor each)
        self._anchor_pos = QPointF()
        self.last_menu: QMenu | None = None  # the context menu shown last (tests and screenshots look at it)
        self.highlighted: str | None = None  # id of the figure/table/block shown, or "page:N"
        self._highlight_rect: tuple[float, float, float, float] | None = None
        self._highlight_item: QGraphicsRectItem | None = None
        self._moving = False  # a scroll made by show_page does not recompute the current page
        self.inverted = False  # pages drawn inverted (dark mode, when asked for: gui.theme)
        self._thumb_jobs: list[Job] = []
        render_process.warm()  # pages are rasterised in a child process with its own GIL

        self.scene = QGraphicsScene(self)
        self.view = PageView()
        self.view.setScene(self.scene)
        self.view.zoomRequested.connect(self._zoom_step)
        self.view.resized.connect(self._resized)
        self.view.selectionStarted.connect(self._select_from)
        self.view.selectionDragged.connect(self._select_to)
        self.view.contextMenuAt.connect(self._context_menu)
        self.view.verticalScrollBar().valueChanged.connect(self._scrolled)
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(80)
        self._fit_timer.timeout.connect(self._apply_fit)
        self.thumbs = QListWidget()
        self.thumbs.setViewMode(QListView.ViewMode.IconMode)
        self.thumbs.setFlow(QListView.Flow.TopToBottom)
        self.thumbs.setWrapping(False)
        self.thumbs.setMovement(QListView.Movement.Static)
        self.thumbs.setIconSize(QSize(96, 128))
        self.thumbs.setSpacing(4)
        self.thumbs.setMinimumWidth(120)
        self.thumbs.setMaximumWidth(170)
        self.thumbs.setToolTip("Pages: click one to go there")
        self.thumbs.currentRowChanged.connect(self._thumb_chosen)
        self.thumbs.setVisible(False)
        self.reader = QSplitter(Qt.Orientation.Horizontal)
        self.reader.addWidget(self.thumbs)
        self.reader.addWidget(self.view)
        self.reader.setStretchFactor(1, 1)
        self.reader.setChildrenCollapsible(False)
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.empty = QLabel("Open a PDF, HTML, Markdown or JATS file\n(File ▸ Open, or drop it here)")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("color: palette(placeholder-text); font-size: 14px;")
        self.stack = QStackedWidget()
        for widget in (self.empty, self.reader, self.text):
            self.stack.addWidget(widget)

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        self.prev_button = self._tool(icons.icon("previous"), "Previous page (PgUp)", self.previous_page)
        self.next_button = self._tool(icons.icon("next"), "Next page (PgDown)", self.next_page)
        self.page_box = QSpinBox()
        self.page_box.setMinimum(1)
        self.page_box.setKeyboardTracking(False)
        self.page_box.valueChanged.connect(self.show_page)
        self.page_count_label = QLabel("/ 0")
        self.zoom_out_button = self._tool(icons.icon("zoom-out"), "Zoom out (Ctrl+-)", lambda: self._zoom_step(-1))
        self.zoom_label = QLabel("100 %")
        self.zoom_in_button = self._tool(icons.icon("zoom-in"), "Zoom in (Ctrl++)", lambda: self._zoom_step(1))
        self.fit_width_action = self._view_action("Fit &Width", "Ctrl+1", lambda: self.set_fit("width"))
        self.fit_page_action = self._view_action("Fit &Page", "Ctrl+2", lambda: self.set_fit("page"))
        self.thumbs_action = self._view_action("Page &Thumbnails", "Ctrl+T", self.show_thumbnails)
        self.thumbs_action.setCheckable(True)
        self.rotate_action = self._view_action("&Rotate Page", "Ctrl+]", lambda: self.rotate_page(90))
        self.rotate_back_action = self._view_action("Rotate Page &Back", "Ctrl+[", lambda: self.rotate_page(-90))
        # Ctrl+F anywhere in the window goes to the search box, as in every reader
        self.find_action = self._view_action("&Find…", QKeySequence(QKeySequence.StandardKey.Find).toString(),
                                             self.focus_search)
        self.fit_width_button = self._tool_for(self.fit_width_action, "↔")
        self.fit_page_button = self._tool_for(self.fit_page_action, "⤢")
        self.thumbs_button = self._tool_for(self.thumbs_action, "▦")
        self.rotate_button = self._tool_for(self.rotate_action, "↻")
        # Copy works where the pages have focus; the summary's and the editor's own Copy stay theirs
        self.copy_action = QAction("&Copy", self)
        self.copy_action.setShortcut(QKeySequence.StandardKey.Copy)
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.copy_action.triggered.connect(lambda checked=False: self.copy_selection())
        self.view.addAction(self.copy_action)
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search the document…")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.returnPressed.connect(self._search_or_next)
        self.search_label = QLabel("")
        tools: tuple[QWidget, ...] = (self.thumbs_button, self.prev_button, self.page_box, self.page_count_label,
                                      self.next_button, self.zoom_out_button, self.zoom_label, self.zoom_in_button,
                                      self.fit_width_button, self.fit_page_button, self.rotate_button)
        for tool in tools:
            bar.addWidget(tool)
        bar.addSpacing(12)
        bar.addWidget(self.search_box, 1)
        bar.addWidget(self.search_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        self._add_shortcuts()
        self._update_controls()

    def _tool(self, icon, tip: str, slot) -> QToolButton:
        button = QToolButton()
        button.setIcon(icon)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def _view_action(self, text: str, keys: str, slot) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(keys))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda checked=False: slot())
        return action

    def _tool_for(self, action: QAction, glyph: str) -> QToolButton:
        button = QToolButton()
        button.setText(glyph)
        button.setToolTip(f"{action.text().replace('&', '')} ({action.shortcut().toString()})")
        button.setAutoRaise(True)
        button.setCheckable(action.isCheckable())
        button.clicked.connect(lambda checked=False: action.trigger())
        if action.isCheckable():
            action.toggled.connect(button.setChecked)
        return button

    def view_actions(self) -> list[QAction]:
        """The reader's actions for the window's View menu (their shortcuts work anywhere in the window)."""
        return [self.find_action, self.fit_width_action, self.fit_page_action, self.thumbs_action,
                self.rotate_action, self.rotate_back_action]

    def focus_search(self) -> None:
        """Ctrl+F: the search box, its text selected (typing replaces it, Enter searches again)."""
        if not self.search_box.isEnabled():
            return
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def _add_shortcuts(self) -> None:
        for keys, slot in (
            (QKeySequence.StandardKey.MoveToPreviousPage, self.previous_page),
            (QKeySequence.StandardKey.MoveToNextPage, self.next_page),
            (QKeySequence.StandardKey.ZoomIn, lambda: self._zoom_step(1)),
            (QKeySequence.StandardKey.ZoomOut, lambda: self._zoom_step(-1)),
        ):
            action = QAction(self)
            action.setShortcut(keys)
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)

    # ------------------------------------------------------------------------------ document
    def observe(self, state) -> None:
        """Follow the application state (gui.state.AppState): show its document."""
        state.documentChanged.connect(self.set_document)

    def set_document(self, document: Document | None, *, password: str | None = None) -> None:
        self.close_document()
        self.document = document
        if document is None:
            self.stack.setCurrentWidget(self.empty)
        elif document.kind == "pdf" and Path(document.source).exists():
            try:
                self._renderer = _PdfRenderer(Path(document.source), password)
            except Exception as error:  # noqa: BLE001 — the text view still works
                self.message.emit(f"cannot show the PDF pages ({error}); showing its text instead")
                self._show_text()
            else:
                self.stack.setCurrentWidget(self.reader)
                self.page_box.blockSignals(True)
                self.page_box.setMaximum(max(1, self._renderer.page_count))
                self.page_box.blockSignals(False)
                self._fill_thumbnail_list()
                self._page = 1
                self.fit = "width"  # a new document fills the pane's width (a project's saved zoom wins)
                self._apply_fit(relayout=False)
                self._layout()
                self.show_page(1)
        else:
            self._show_text()
        self._update_controls()

    def close_document(self) -> None:
        for job in [self._render_job, *self._thumb_jobs]:
            if job is not None:
                job.cancel()
        if self._renderer is not None:
            renderer = self._renderer
            self._renderer = None
            running = [job for job in [self._render_job, *self._thumb_jobs] if job is not None and not job.done]
            if not running:
                renderer.close()
            else:  # closed once the last job that uses it has ended
                remaining = {"n": len(running)}

                def one_done(renderer=renderer, remaining=remaining) -> None:
                    remaining["n"] -= 1
                    if remaining["n"] == 0:
                        renderer.close()

                for job in running:
                    job.signals.finished.connect(one_done)
        self._thumb_jobs = []
        self._cache.clear()
        self._hits = []
        self._hit_boxes = []
        self.sentence = None
        self._hit_index = -1
        self._hits_for = None
        self._text_hits = []
        self.text.setExtraSelections([])
        self.search_label.setText("")  # "3 of 15 matches" was about the document before
        self._rotation = {}
        self._selection = None
        self._selection_items = []
        self._hit_items = []
        self.highlighted = None
        self._highlight_rect = None
        self._highlight_item = None
        self._tops = []
        self._page_items.clear()
        self._pixmaps.clear()
        self._drawn.clear()
        self.scene.clear()
        self.thumbs.clear()
        self.document = None

    @property
    def page_count(self) -> int:
        if self._renderer is not None:
            return self._renderer.page_count
        return self.document.page_count or 0 if self.document else 0

    @property
    def current_page(self) -> int:
        return self._page

    @property
    def zoom(self) -> float:
        return self._zoom

    @property
    def scale(self) -> float:
        """Pixels per point of the pages as shown."""
        return self._base * self._zoom

    @property
    def rendered_page(self) -> int | None:
        """The current page when its pixels at the current zoom are on screen, else None."""
        return self._page if self._drawn.get(self._page) == self.scale else None

    @property
    def position(self) -> dict[str, Any]:
        position: dict[str, Any] = {"page": self._page, "zoom": round(self._zoom, 3), "fit": self.fit}
        if self._rotation:
            position["rotation"] = {str(page): degrees for page, degrees in self._rotation.items()}
        return position

    def restore_position(self, position: dict) -> None:
        """Go back to where the reader was (a project's saved page and zoom)."""
        if self._renderer is None or not position:
            return
        fit = position.get("fit")
        if fit in ("width", "page"):
            self.fit = fit
            self._apply_fit(relayout=False)
        elif isinstance(position.get("zoom"), (int, float)):
            self.fit = None
            self._zoom = max(ZOOMS[0], min(ZOOMS[-1], float(position["zoom"])))
        rotation = position.get("rotation")
        if isinstance(rotation, dict):
            self._rotation = {int(page): int(degrees) % 360 for page, degrees in rotation.items()
                              if str(page).isdigit() and int(degrees) % 90 == 0 and int(degrees) % 360}
        self._layout()
        self.show_page(int(position.get("page") or 1))
        self._update_controls()

    def _update_controls(self) -> None:
        pdf = self._renderer is not None
        for widget in (self.prev_button, self.next_button, self.page_box, self.zoom_in_button,
                       self.zoom_out_button, self.fit_width_button, self.fit_page_button, self.thumbs_button,
                       self.rotate_button):
            widget.setEnabled(pdf)
        for action in self.view_actions():
            action.setEnabled(pdf)
        self.find_action.setEnabled(self.document is not None)  # articles are searched too
        self.fit_width_button.setChecked(self.fit == "width")
        self.fit_page_button.setCheckable(True)
        self.fit_width_button.setCheckable(True)
        self.fit_page_button.setChecked(self.fit == "page")
        self.search_box.setEnabled(self.document is not None)
        self.page_count_label.setText(f"/ {self.page_count}")
        # an article (HTML, Markdown, JATS) has no pages to go to: no "5 / 0"
        self.page_box.setVisible(pdf)
        self.page_count_label.setVisible(pdf)
        self.zoom_label.setText(f"{round(self.zoom * 100)} %")

    # ------------------------------------------------------------------------------ layout
    def _layout(self) -> None:
        """Every page as a white sheet at the current scale, one under the other; pages already
        rendered at this scale are drawn at once, the others when their render job returns."""
        if self._renderer is None:
            return
        scale = self.scale
        self._moving = True  # the scroll bar moves while the scene is rebuilt: not the user's scroll
        self.scene.clear()
        self._page_items.clear()
        self._pixmaps.clear()
        self._drawn.clear()
        self._highlight_item = None
        self._selection_items = []
        shown = [self._shown_size(number) for number in range(1, len(self._renderer.sizes) + 1)]
        widest = max((w for w, _ in shown), default=0) * scale
        self._tops = []
        y = 0.0
        for number, ((width, height), (shown_w, shown_h)) in enumerate(zip(self._renderer.sizes, shown), start=1):
            # the sheet keeps the page's own coordinates; a turned page is the same sheet rotated
            sheet = QGraphicsRectItem(0, 0, width * scale, height * scale)
            degrees = self._rotation.get(number, 0)
            sheet.setRotation(degrees)
            offset = {90: (height * scale, 0.0), 180: (width * scale, height * scale),
                      270: (0.0, width * scale)}.get(degrees, (0.0, 0.0))
            sheet.setPos((widest - shown_w * scale) / 2 + offset[0], y + offset[1])
            sheet.setBrush(QBrush(QColor("black" if self.inverted else "white")))
            sheet.setPen(QPen(Qt.PenStyle.NoPen))
            self.scene.addItem(sheet)
            self._page_items[number] = sheet
            self._tops.append(y)
            y += shown_h * scale + PAGE_GAP
        self.scene.setSceneRect(QRectF(0, 0, widest, max(0.0, y - PAGE_GAP)))
        self._hit_items = []
        self._sentence_items = []
        self._draw_hits()
        self._draw_sentence()
        self._draw_selection()
        for (page, cached_scale), image in list(self._cache.items()):
            if cached_scale == scale:
                self._place(page, image)
        self._place_highlight()
        self._moving = False
        self._request_render()

    def set_inverted(self, inverted: bool) -> None:
        """Draw the pages inverted (white text on black) or as printed; the pages are laid out again."""
        if inverted == self.inverted:
            return
        self.inverted = inverted
        self._layout()
        for row in range(self.thumbs.count()):  # the thumbnails drawn so far, turned over too
            item = self.thumbs.item(row)
            if item is not None and item.data(Qt.ItemDataRole.UserRole):
                image = item.icon().pixmap(self.thumbs.iconSize()).toImage()
                image.invertPixels()
                item.setIcon(QIcon(QPixmap.fromImage(image)))

    def page_image(self, page: int) -> QImage | None:
        """The page as it is drawn now (inverted or not), None until it is rendered (tests look)."""
        item = self._pixmaps.get(page)
        return item.pixmap().toImage() if item is not None else None

    def _place(self, page: int, image: QImage) -> None:
        sheet = self._page_items.get(page)
        if sheet is None or page in self._pixmaps:
            return
        if self.inverted:
            image = image.copy()
            image.invertPixels()  # the cached image stays as rendered
        item = QGraphicsPixmapItem(QPixmap.fromImage(image), sheet)
        item.setZValue(0)
        self._pixmaps[page] = item
        self._drawn[page] = self.scale
        if self.document is not None:
            for visual in self.document.visuals:
                if visual.page == page and visual.bbox is not None:
                    self._outline(visual, self.scale, item)

    def _place_highlight(self) -> None:
        if self._highlight_item is not None and self._highlight_item.scene() is self.scene:
            self.scene.removeItem(self._highlight_item)
        self._highlight_item = None
        sheet = self._page_items.get(self._page)
        if self._highlight_rect is None or sheet is None:
            return
        focus = self._scaled(self._highlight_rect, self.scale).adjusted(-4, -4, 4, 4)
        item = QGraphicsRectItem(focus, sheet)
        item.setPen(QPen(_HIGHLIGHT, 4))
        item.setBrush(QBrush(QColor(255, 200, 0, 40)))
        item.setZValue(3)
        self._highlight_item = item

    def _marks(self, old: list[QGraphicsRectItem], boxes: Iterable[tuple[int, Rect]], colour: QColor, z: float,
               grow: float = 0.0) -> list[QGraphicsRectItem]:
        """Filled boxes (page, box in points) drawn on their pages in place of ``old`` (search hits, the
        cited sentence, the selection); boxes of pages not laid out are left out."""
        for item in old:
            if item.scene() is self.scene:
                self.scene.removeItem(item)
        drawn = []
        for page, box in boxes:
            sheet = self._page_items.get(page)
            if sheet is None:
                continue
            mark = QGraphicsRectItem(self._scaled(box, self.scale).adjusted(-grow, -grow, grow, grow), sheet)
            mark.setPen(QPen(Qt.PenStyle.NoPen))
            mark.setBrush(QBrush(colour))
            mark.setZValue(z)
            drawn.append(mark)
        return drawn

    def _draw_hits(self) -> None:
        """Every search hit marked on its page (the items are replaced, the pages stay)."""
        self._hit_items = self._marks(self._hit_items, [(p, b) for p, boxes in self._hit_boxes for b in boxes], _HIT, 2)

    def _shown_size(self, page: int) -> tuple[float, float]:
        """The page's width and height in points as shown (a page turned by 90° is as wide as it was high)."""
        width, height = self._renderer.sizes[page - 1] if self._renderer is not None else (0.0, 0.0)
        return (height, width) if self._rotation.get(page, 0) in (90, 270) else (width, height)

    def rotate_page(self, degrees: int = 90, page: int | None = None) -> None:
        """Turn one page (the current one) clockwise by ``degrees``: a sideways table reads upright."""
        if self._renderer is None:
            return
        page = page or self._page
        turned = (self._rotation.get(page, 0) + degrees) % 360
        if turned:
            self._rotation[page] = turned
        else:
            self._rotation.pop(page, None)
        if self.fit is not None:
            self._apply_fit(relayout=False)
        self._layout()
        self.show_page(page)
        self.positionChanged.emit(self.position)

    def rotation(self, page: int) -> int:
        return self._rotation.get(page, 0)

    def _page_at(self, y: float) -> int:
        return max(1, min(len(self._tops), bisect.bisect_right(self._tops, y))) if self._tops else 1

    def _visible_pages(self) -> list[int]:
        if not self._tops:
            return []
        area = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        first, last = self._page_at(area.top()), self._page_at(area.bottom())
        return list(range(first, last + 1))

    # ------------------------------------------------------------------------------ navigation
    def _thumb_chosen(self, row: int) -> None:
        if row >= 0:
            self.show_page(row + 1)

    def show_page(self, page: int, *, highlight: tuple[float, float, float, float] | None = None,
                  key: str | None = None) -> None:
        if self._renderer is None:
            if self.document is not None and key:
                self._scroll_text_to(key)
            return
        page = max(1, min(int(page), self.page_count))
        self._highlight_rect = highlight
        self.highlighted = key or (f"page:{page}" if highlight is None else self.highlighted)
        self._set_current(page)
        self._place_highlight()
        self._moving = True
        try:
            sheet = self._page_items.get(page)
            if sheet is not None and self._highlight_item is not None:
                focus = self._highlight_item.sceneBoundingRect()
                self.view.ensureVisible(focus, 20, 20)
                self.view.centerOn(focus.center())
            elif sheet is not None:
                self.view.verticalScrollBar().setValue(int(self._tops[page - 1]))
        finally:
            self._moving = False
        self._request_render()

    def _set_current(self, page: int) -> None:
        changed = page != self._page
        self._page = page
        if self.page_box.value() != page:
            self.page_box.blockSignals(True)
            self.page_box.setValue(page)
            self.page_box.blockSignals(False)
        if self.thumbs.currentRow() != page - 1 and page - 1 < self.thumbs.count():
            self.thumbs.blockSignals(True)
            self.thumbs.setCurrentRow(page - 1)
            self.thumbs.blockSignals(False)
        if changed:
            self.pageChanged.emit(page)
            self.positionChanged.emit(self.position)

    def _scrolled(self, _value: int) -> None:
        if self._moving or not self._tops:
            return
        area = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        self._set_current(self._page_at(area.top() + area.height() / 3))
        self._request_render()

    def next_page(self) -> None:
        self.show_page(self._page + 1)

    def previous_page(self) -> None:
        self.show_page(self._page - 1)

    def show_figure(self, figure_id: str) -> bool:
        visual = self._visual(figure_id)
        if visual is None:
            return False
        if visual.page is not None and self._renderer is not None:
            self.show_page(visual.page, highlight=visual.bbox, key=visual.id)
        else:
            self.highlighted = visual.id
            self._scroll_text_to(visual.id)
        return True

    def show_block(self, block_id: str) -> bool:
        if self.document is None:
            return False
        try:
            block = self.document.block(block_id)
        except KeyError:
            return False
        if block.page is not None and self._renderer is not None:
            self.show_page(block.page, highlight=block.bbox, key=block.id)
        else:
            self.highlighted = block.id
            self._scroll_text_to(block.id)
        return True

    def show_sentence(self, block_id: str, text: str) -> bool:
        """Go to a cited sentence and mark its printed lines as a highlighter does (issue 46, item 5): the
        sentence's words found among the words of its block on the page. When they are not there (a
        model's own words, a page without a text layer) the block is shown as before. Returns whether
        the sentence itself was found."""
        if self.document is None:
            return False
        try:
            block = self.document.block(block_id)
        except KeyError:
            return False
        if block.page is None or block.bbox is None or self._renderer is None:
            self.show_block(block_id)
            return False
        x0, y0, x1, y1 = block.bbox
        page_words = self._renderer.words(block.page - 1)
        words = [w for w in page_words
                 if x0 - SENTENCE_MARGIN <= w.x0 and w.x1 <= x1 + SENTENCE_MARGIN
                 and y0 - SENTENCE_MARGIN <= w.y0 and w.y1 <= y1 + SENTENCE_MARGIN]
        found = match_words(text, [w.text for w in words])
        if found is None:  # a paragraph joined across a column or a page: its box is its first part's
            words = page_words
            found = match_words(text, [w.text for w in words])
        if found is None:
            self.show_block(block_id)
            return False
        first, last, _share = found
        lines = line_rects([(w.x0, w.y0, w.x1, w.y1, w.block, w.line) for w in words[first:last + 1]])
        self.sentence = (block.page, lines)
        self.show_page(block.page, key=block.id)
        self._draw_sentence()
        if self._sentence_items:
            focus = self._sentence_items[0].sceneBoundingRect()
            self._moving = True
            try:
                self.view.centerOn(focus.center())
            finally:
                self._moving = False
        return True

    def clear_sentence(self) -> None:
        self.sentence = None
        self._draw_sentence()

    def _draw_sentence(self) -> None:
        lines = [(self.sentence[0], box) for box in self.sentence[1]] if self.sentence is not None else []
        self._sentence_items = self._marks(self._sentence_items, lines, _SENTENCE, 2.5, grow=1.0)

    def _visual(self, figure_id: str) -> Figure | None:
        if self.document is None:
            return None
        return next((v for v in self.document.visuals if v.id == figure_id), None)

    # ------------------------------------------------------------------------------ zoom
    def _zoom_step(self, step: int) -> None:
        larger = [z for z in ZOOMS if z > self._zoom + 1e-6]
        smaller = [z for z in ZOOMS if z < self._zoom - 1e-6]
        target = (larger[0] if larger else ZOOMS[-1]) if step > 0 else (smaller[-1] if smaller else ZOOMS[0])
        self.fit = None
        self._set_zoom(target)

    def set_fit(self, fit: str | None) -> None:
        """"width": the page as wide as the pane; "page": the whole page in view; None: zoom steps."""
        self.fit = fit
        if fit is None:
            self._update_controls()
            return
        self._apply_fit()

    def _apply_fit(self, *, relayout: bool = True) -> None:
        if self.fit is None or self._renderer is None or not self._renderer.sizes:
            return
        width, height = self._shown_size(self._page)
        viewport = self.view.viewport().size()
        room_w = max(50, viewport.width() - 2 * MARGIN)
        room_h = max(50, viewport.height() - 2 * MARGIN)
        zoom = room_w / (width * self._base)
        if self.fit == "page":
            zoom = min(zoom, room_h / (height * self._base))
        zoom = max(0.1, min(ZOOMS[-1], zoom))
        if relayout:
            self._set_zoom(zoom)
        else:
            self._zoom = zoom

    def _resized(self) -> None:
        if self.fit is not None:
            self._fit_timer.start()  # once the size settles, not on every step of a drag
        self._request_render()

    def _set_zoom(self, zoom: float) -> None:
        if abs(zoom - self._zoom) < 1e-3 and self._tops:
            self._update_controls()
            return
        page = self._page
        self._zoom = zoom
        self._update_controls()
        if self._renderer is not None:
            self._layout()
            self.show_page(page, highlight=self._highlight_rect, key=self.highlighted)
        self.positionChanged.emit(self.position)

    # ------------------------------------------------------------------------------ rendering
    def _wanted(self) -> list[int]:
        """Pages to render, nearest the current one first: those in view and one either side."""
        visible = self._visible_pages() or [self._page]
        pages = set(visible) | {visible[0] - 1, visible[-1] + 1, self._page}
        pages = {p for p in pages if 1 <= p <= self.page_count}
        return sorted(pages, key=lambda p: (abs(p - self._page), p))

    def _request_render(self) -> None:
        if self._renderer is None:
            return
        if self._render_job is not None and not self._render_job.done:
            self._render_again = True  # look again once the running render ends
            return
        scale = self.scale
        for page in self._wanted():
            if self._drawn.get(page) == scale:
                continue
            if (page, scale) in self._cache:
                self._place(page, self._cache[(page, scale)])
                continue
            self._start_render(page, scale)
            return
        self._prune()

    def _start_render(self, page: int, scale: float) -> None:
        renderer = self._renderer
        if renderer is None:  # the document closed meanwhile
            return
        job = Job(f"page {page}", lambda control, stream: renderer.render(page - 1, scale), kind="render")
        job.signals.succeeded.connect(lambda image, page=page, scale=scale: self._rendered(page, scale, image))
        job.signals.failed.connect(lambda message: self.message.emit(f"cannot render page {page}: {message}"))
        job.signals.finished.connect(self._render_finished)
        self._render_job = job
        self.runner.start(job)

    def _rendered(self, page: int, scale: float, image: QImage) -> None:
        self._cache[(page, scale)] = image
        while len(self._cache) > KEEP_RENDERED:
            self._cache.pop(next(iter(self._cache)))
        if abs(scale - self.scale) < 1e-9:
            self._place(page, image)

    def _render_finished(self) -> None:
        self._render_job = None
        self._render_again = False
        self._request_render()

    def _prune(self) -> None:
        """Pixmaps of pages far from view go (their memory with them); they are rendered again if needed."""
        keep = set(self._wanted())
        far = [p for p in self._pixmaps if p not in keep and min((abs(p - k) for k in keep), default=99) > 3]
        for page in far:
            item = self._pixmaps.pop(page)
            self._drawn.pop(page, None)
            if item.scene() is self.scene:
                self.scene.removeItem(item)

    def _scaled(self, bbox, scale: float) -> QRectF:
        x0, y0, x1, y1 = bbox
        return QRectF(x0 * scale, y0 * scale, (x1 - x0) * scale, (y1 - y0) * scale)

    def _outline(self, visual: Figure, scale: float, parent: QGraphicsPixmapItem) -> None:
        colour = _TABLE_COLOUR if visual.kind == "table" else _FIGURE_COLOUR
        rect = self._scaled(visual.bbox, scale)
        item = QGraphicsRectItem(rect, parent)
        item.setPen(QPen(colour, 2, Qt.PenStyle.DashLine))
        item.setToolTip(f"{visual.label or visual.id}: {visual.caption[:200]}")
        item.setZValue(1)
        tag = QGraphicsSimpleTextItem(visual.label or ("table" if visual.kind == "table" else "figure"))
        tag.setBrush(QBrush(QColor("white")))
        background = QGraphicsRectItem(tag.boundingRect().adjusted(-3, -1, 3, 1), parent)
        background.setBrush(QBrush(colour))
        background.setPen(QPen(Qt.PenStyle.NoPen))
        background.setPos(rect.left(), max(0.0, rect.top() - tag.boundingRect().height() - 2))
        tag.setParentItem(background)
        background.setZValue(1)

    # ------------------------------------------------------------------------------ thumbnails
    def show_thumbnails(self, shown: bool | None = None) -> None:
        """Show (or hide) the page-thumbnail sidebar; its images are rendered in the background."""
        shown = self.thumbs_action.isChecked() if shown is None else shown
        if self.thumbs_action.isChecked() != shown:
            self.thumbs_action.setChecked(shown)
        self.thumbs.setVisible(shown and self._renderer is not None)
        if shown:
            self._render_thumbnails()

    def _fill_thumbnail_list(self) -> None:
        self.thumbs.clear()
        if self._renderer is None:
            return
        for number, (width, height) in enumerate(self._renderer.sizes, start=1):
            blank = QPixmap(max(1, int(width * THUMB_SCALE)), max(1, int(height * THUMB_SCALE)))
            blank.fill(QColor("black" if self.inverted else "white"))
            item = QListWidgetItem(QIcon(blank), str(number))
            item.setData(Qt.ItemDataRole.UserRole, False)  # not rendered yet
            self.thumbs.addItem(item)
        self.thumbs.setVisible(self.thumbs_action.isChecked())
        if self.thumbs_action.isChecked():
            self._render_thumbnails()

    def _render_thumbnails(self) -> None:
        if self._renderer is None or self._thumb_jobs:
            return
        todo = [row + 1 for row in range(self.thumbs.count())
                if not self.thumbs.item(row).data(Qt.ItemDataRole.UserRole)]
        if not todo:
            return
        renderer = self._renderer
        batch = todo[:THUMB_BATCH]
        job = Job("thumbnails", lambda control, stream: renderer.thumbnails(batch, control), kind="render")
        job.signals.succeeded.connect(self._thumbnails_done)
        job.signals.finished.connect(lambda job=job: self._thumbnail_job_ended(job))
        self._thumb_jobs.append(job)
        self.runner.start(job)

    def _thumbnails_done(self, images: list[tuple[int, QImage]]) -> None:
        for page, image in images:
            item = self.thumbs.item(page - 1)
            if item is not None:
                if self.inverted:  # the sidebar shows the pages as the reader does
                    image = image.copy()
                    image.invertPixels()
                item.setIcon(QIcon(QPixmap.fromImage(image)))
                item.setData(Qt.ItemDataRole.UserRole, True)

    def _thumbnail_job_ended(self, job: Job) -> None:
        if job in self._thumb_jobs:
            self._thumb_jobs.remove(job)
            if job.state == "succeeded":
                self._render_thumbnails()  # the next batch

    @property
    def thumbnails_rendered(self) -> int:
        return sum(1 for row in range(self.thumbs.count()) if self.thumbs.item(row).data(Qt.ItemDataRole.UserRole))

    # ------------------------------------------------------------------------------ search
    def _search_or_next(self) -> None:
        text = self.search_box.text().strip()
        if not text or self.document is None:
            return
        if self._renderer is None and self._text_hits and self._hits_for == text:
            self._goto_text_hit(self._hit_index + 1)
            return
        if self._hits and self._hits_for == text:
            self._goto_hit(self._hit_index + 1)
            return
        self.search(text)

    def search(self, text: str) -> Job | None:
        self._hits_for = text
        if self.search_box.text().strip() != text.strip():
            self.search_box.setText(text)
        if self._renderer is None:
            self._search_text(text)
            return None
        renderer = self._renderer
        if renderer is None:  # the document closed meanwhile
            return
        job = Job(f"search {text!r}", lambda control, stream: renderer.search(text, control), kind="search")
        job.signals.succeeded.connect(self._search_done)
        job.signals.failed.connect(lambda message: self.message.emit(f"search failed: {message}"))
        self.search_label.setText("searching…")
        self.runner.start(job)
        return job

    def _search_done(self, hits) -> None:
        self._hit_boxes = [(page, list(boxes)) for page, boxes in hits]
        self._hits = [(page, _union(boxes)) for page, boxes in self._hit_boxes]
        self._draw_hits()
        if not self._hits:
            self.search_label.setText("not found")
            return
        after = [i for i, (page, _) in enumerate(self._hits) if page >= self._page]
        self._goto_hit(after[0] if after else 0)

    def _goto_hit(self, index: int) -> None:
        if not self._hits:
            return
        self._hit_index = index % len(self._hits)
        page, rect = self._hits[self._hit_index]
        self.search_label.setText(f"{self._hit_index + 1} of {len(self._hits)} matches")
        self.show_page(page, highlight=rect, key=f"search:{self._hit_index}")

    @property
    def search_hits(self) -> list[tuple[int, tuple[float, float, float, float]]]:
        return list(self._hits)

    def _search_text(self, text: str) -> None:
        """An article's text: every hit marked, the first one shown, "1 of N matches". The text shown is
        the reader's normalised text already; the query is normalised the same way."""
        query = " ".join(normalize_text(text).split())
        document = self.text.document()
        self._text_hits = []
        cursor = document.find(query)
        while not cursor.isNull() and len(self._text_hits) < 10_000:
            self._text_hits.append(cursor)
            cursor = document.find(query, cursor)
        marks = []
        for hit in self._text_hits:
            mark = QTextEdit.ExtraSelection()
            mark.cursor = hit
            mark.format.setBackground(QBrush(_HIT))
            marks.append(mark)
        self.text.setExtraSelections(marks)
        if not self._text_hits:
            self.search_label.setText("not found")
            return
        self._goto_text_hit(0)

    def _goto_text_hit(self, index: int) -> None:
        self._hit_index = index % len(self._text_hits)
        self.text.setTextCursor(self._text_hits[self._hit_index])
        self.text.ensureCursorVisible()
        self.search_label.setText(f"{self._hit_index + 1} of {len(self._text_hits)} matches")

    @property
    def text_search_hits(self) -> int:
        return len(self._text_hits)

    # ------------------------------------------------------------------------------ selection
    def _word_at(self, scene_pos: QPointF, *, nearest: bool) -> tuple[int, int] | None:
        """The page and the index of the word under ``scene_pos`` (or, with ``nearest``, the closest word
        of that page: a drag that ends between lines still selects up to the line it is on)."""
        if self._renderer is None or not self._tops:
            return None
        page = self._page_at(scene_pos.y())
        sheet = self._page_items.get(page)
        if sheet is None:
            return None
        point = sheet.mapFromScene(scene_pos)
        x, y = point.x() / self.scale, point.y() / self.scale
        words = self._renderer.words(page - 1)
        best, best_distance = None, float("inf")
        for index, word in enumerate(words):
            dx = max(word.x0 - x, 0.0, x - word.x1)
            dy = max(word.y0 - y, 0.0, y - word.y1)
            distance = dx + 4 * dy  # the line a point is on counts more than how far along it is
            if distance < best_distance:
                best, best_distance = index, distance
        if best is None or (not nearest and best_distance > 2.0):
            return None
        return page, best

    def _select_from(self, scene_pos: QPointF) -> None:
        self.view.setFocus(Qt.FocusReason.MouseFocusReason)
        hit = self._word_at(scene_pos, nearest=False)
        self._selection = (hit[0], hit[1], hit[1]) if hit is not None else None
        self._anchor_pos = scene_pos
        self._draw_selection()

    def _select_to(self, scene_pos: QPointF) -> None:
        if self._selection is None:
            start = self._word_at(self._anchor_pos, nearest=True)
            if start is None:
                return
            self._selection = (start[0], start[1], start[1])
        page, anchor, _ = self._selection
        if self._page_at(scene_pos.y()) != page:  # a selection stays on its page: clamp to its top or end
            sheet = self._page_items[page]
            top = sheet.sceneBoundingRect()
            scene_pos = QPointF(scene_pos.x(), top.top() + 1 if scene_pos.y() < top.top() else top.bottom() - 1)
        hit = self._word_at(scene_pos, nearest=True)
        if hit is not None and hit[0] == page:
            self._selection = (page, anchor, hit[1])
        self._draw_selection()

    def select_words(self, page: int, first: int, last: int) -> None:
        """Select words ``first``..``last`` of ``page`` (what a drag over them does)."""
        self._selection = (page, first, last)
        self._draw_selection()

    @property
    def selected_words(self) -> list[Word]:
        if self._selection is None or self._renderer is None:
            return []
        page, anchor, current = self._selection
        words = self._renderer.words(page - 1)
        return words[min(anchor, current): max(anchor, current) + 1]

    @property
    def selected_text(self) -> str:
        return words_text(self.selected_words)

    @property
    def selection_page(self) -> int | None:
        return self._selection[0] if self._selection is not None and self.selected_words else None

    def _draw_selection(self) -> None:
        boxes = [(self._selection[0], box) for box in line_boxes(self.selected_words)] if self._selection else []
        self._selection_items = self._marks(self._selection_items, boxes, _SELECTION, 4)

    def copy_selection(self, *, citation: bool = False) -> str:
        """Put the selected text on the clipboard (with ``citation``: quoted and followed by the paper's
        citation, its page and the figure or table it lies in); returns it."""
        text = self.selected_text
        if not text:
            return ""
        if citation:
            text = f"“{text}” — {self.citation()}"
        QGuiApplication.clipboard().setText(text)
        return text

    def citation(self) -> str:
        """Where the selection comes from: "Din et al. (2017). Green Adeptness in …, p. 3, Figure 2.
        doi:10.…" — authors, year and DOI where the PDF's metadata gives them."""
        page = self.selection_page
        metadata = self._renderer.metadata if self._renderer is not None else {}
        document = self.document
        title = (document.title if document is not None else None) or _metadata_title(metadata.get("title", "")) \
            or (Path(document.source).stem if document is not None else "")
        # who and when as the paper's first page prints them (its author line, its dates, its DOI), else what
        # the PDF's metadata says (issue 46, item 5: most PDFs' author field is empty)
        names, year, doi = reading_citation(document, metadata.get("author", "")) if document is not None \
            else ([], None, "")
        return format_citation(title, _cited_names(names) or _authors(metadata.get("author", "")),
                               str(year) if year else _year(metadata.get("subject", "")),
                               doi or _doi(metadata.get("subject", "") + " " + metadata.get("keywords", "")), page,
                               self._selected_visual())

    def _selected_visual(self) -> str | None:
        """The label of the figure or table most of the selected words lie in (None: body text)."""
        page = self.selection_page
        words = self.selected_words
        if self.document is None or page is None or not words:
            return None
        for visual in self.document.visuals:
            if visual.page != page or visual.bbox is None:
                continue
            x0, y0, x1, y1 = visual.bbox
            inside = sum(x0 - 2 <= (w.x0 + w.x1) / 2 <= x1 + 2 and y0 - 2 <= (w.y0 + w.y1) / 2 <= y1 + 2 for w in words)
            if inside * 2 > len(words):
                return visual.label or ("Table" if visual.kind == "table" else "Figure")
        return None

    def context_menu(self, scene_pos: QPointF | None = None) -> QMenu:
        """The page's right-click menu: Copy, Copy with citation, Ask about this, Find. A right click on
        a word outside the selection selects that word first."""
        if scene_pos is not None:
            hit = self._word_at(scene_pos, nearest=False)
            inside = hit is not None and self._selection is not None and hit[0] == self._selection[0] and (
                min(self._selection[1:]) <= hit[1] <= max(self._selection[1:]))
            if hit is not None and not inside:
                self.select_words(hit[0], hit[1], hit[1])
        text = self.selected_text
        menu = QMenu(self)
        copy = menu.addAction("&Copy", lambda: self.copy_selection())
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        page = self.selection_page
        cite = menu.addAction(f"Copy with &citation (p. {page})" if page else "Copy with &citation",
                              lambda: self.copy_selection(citation=True))
        ask = menu.addAction("&Ask about this", lambda: self.askRequested.emit(self.selected_text))
        query = " ".join(text.split()).strip(" .,;:!?()[]\"'“”")  # "days." finds "days" wherever it is
        short = query if len(query) <= 30 else query[:29].rstrip() + "…"
        find = menu.addAction(f"&Find “{short}”" if short else "&Find", lambda: self.search(query))
        for action in (copy, cite, ask, find):
            action.setEnabled(bool(text))
        return menu

    def _context_menu(self, scene_pos: QPointF, global_pos: QPoint) -> None:
        menu = self.context_menu(scene_pos)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(global_pos)
        self.last_menu = menu

    # ------------------------------------------------------------------------------ articles
    def _show_text(self) -> None:
        document = self.document
        assert document is not None
        parts = [f"<h1>{html.escape(document.title or Path(document.source).name)}</h1>"]
        captions = {v.caption_block: v for v in document.visuals if v.caption_block}
        placed: set[str] = set()
        for block in document.blocks:
            visual = captions.get(block.id)
            if visual is not None:
                placed.add(visual.id)
                parts.append(self._visual_html(visual))
                continue
            tag = {"heading": "h3", "list": "p", "equation": "pre"}.get(block.type, "p")
            parts.append(f'<a name="{html.escape(block.id)}"></a><{tag}>{html.escape(block.text)}</{tag}>')
        for visual in document.visuals:
            if visual.id not in placed:
                parts.append(self._visual_html(visual))
        self.text.setHtml("\n".join(parts))
        self.stack.setCurrentWidget(self.text)

    def _visual_html(self, visual: Figure) -> str:
        return (
            f'<a name="{html.escape(visual.id)}"></a><p style="background:#eef3fb; padding:4px">'
            f"<b>{html.escape(visual.label or visual.id)}</b> {html.escape(visual.caption)}</p>"
        )

    def _scroll_text_to(self, anchor: str) -> None:
        self.highlighted = anchor
        self.text.scrollToAnchor(anchor)


_YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s,;]+)", re.IGNORECASE)


def format_citation(title: str, authors: str, year: str, doi: str, page: int | None, visual: str | None) -> str:
    """"Din et al. (2017). Title, p. 3, Figure 2. doi:10.…", each part left out when not known."""
    who = f"{authors} ({year})" if authors and year else authors or (f"({year})" if year else "")
    head = ". ".join(part for part in (who, title.strip().rstrip(".")) if part)
    where = ", ".join(part for part in (f"p. {page}" if page else "", visual or "") if part)
    text = ", ".join(part for part in (head, where) if part)
    return text + "." + (f" doi:{doi.rstrip('.')}" if doi else "")


def _authors(author: str) -> str:
    """The PDF's author field as a citation names them: "A", "A and B", "A et al."."""
    names = [n.strip() for n in re.split(r";|,| and ", author) if n.strip()]
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return f"{names[0]} and {names[1]}" if len(names) == 2 else f"{names[0]} et al."


def _cited_names(families: list[str]) -> str:
    """Family names as an author-year citation names them: "Robinson", "Robinson and Twiss", "Din et al."."""
    if len(families) <= 2:
        return " and ".join(families)
    return f"{families[0]} et al."


def _year(subject: str) -> str:
    """The year a journal's subject line gives ("BMC …, 2017, doi:…"); '' when it gives none (the file's
    creation date is when the PDF was made, not when the paper appeared)."""
    found = _YEAR.search(_DOI.sub("", subject))
    return found.group(1) if found else ""


def _doi(text: str) -> str:
    found = _DOI.search(text)
    return found.group(1) if found else ""


def _metadata_title(title: str) -> str:
    """The PDF's title field unless it is a tool's placeholder ("untitled", "2498764.dvi", "Article 1383..")."""
    title = " ".join(title.split())
    if not title or title.lower() in {"untitled", "title"} or re.search(r"\.(dvi|tex|docx?|indd|pdf)$", title, re.I) \
            or re.search(r"\d+\.\.\d+", title):
        return ""
    return title


def _union(boxes: list[Rect]) -> Rect:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
