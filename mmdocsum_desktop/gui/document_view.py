"""The document pane: PDF pages rendered by PyMuPDF (zoom, page navigation, search) with the detected
figures and tables outlined; articles (HTML, Markdown, JATS) shown as their extracted text."""

from __future__ import annotations

import html
import threading
from pathlib import Path

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QImage, QKeySequence, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QStackedWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.document.model import Document, Figure
from mmdocsum_desktop.gui import icons
from mmdocsum_desktop.gui.workers import Job, JobRunner

ZOOMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
_FIGURE_COLOUR = QColor(43, 110, 200)
_TABLE_COLOUR = QColor(210, 120, 30)
_HIGHLIGHT = QColor(255, 200, 0)


class _PdfRenderer:
    """One PyMuPDF document used by render jobs, one at a time (PyMuPDF objects are not thread-safe)."""

    def __init__(self, path: Path, password: str | None) -> None:
        import pymupdf  # on first use: importing it (with its layout models) costs a second of start-up

        self._matrix = pymupdf.Matrix
        self._lock = threading.Lock()
        self.pdf = pymupdf.open(path)
        if self.pdf.needs_pass and password:
            self.pdf.authenticate(password)

    def render(self, page: int, zoom: float) -> QImage:
        with self._lock:
            pix = self.pdf.load_page(page).get_pixmap(matrix=self._matrix(zoom, zoom), alpha=False)
            image = QImage(pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888)
            return image.copy()  # own the bytes before pix goes away

    def search(self, text: str, control) -> list[tuple[int, tuple[float, float, float, float]]]:
        hits = []
        with self._lock:
            for number in range(self.pdf.page_count):
                control.report(number, self.pdf.page_count, "searching")
                for rect in self.pdf.load_page(number).search_for(text):
                    hits.append((number + 1, (rect.x0, rect.y0, rect.x1, rect.y1)))
        return hits

    def close(self) -> None:
        with self._lock:
            self.pdf.close()


class PageView(QGraphicsView):
    zoomRequested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setBackgroundBrush(QBrush(QColor(90, 94, 102)))
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)

    def wheelEvent(self, event) -> None:  # noqa: N802 — Qt's name
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoomRequested.emit(1 if event.angleDelta().y() > 0 else -1)
            event.accept()
            return
        super().wheelEvent(event)


class DocumentView(QWidget):
    """Shows one document. ``show_page``, ``show_figure`` and ``show_block`` are what citation clicks
    call; ``current_page`` and ``highlighted`` tell tests where the pane is."""

    pageChanged = Signal(int)
    message = Signal(str)

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.document: Document | None = None
        self._renderer: _PdfRenderer | None = None
        self._page = 1
        self._zoom_index = ZOOMS.index(1.0)
        self._base = 1.5  # pixels per point at 100 %
        self._render_job: Job | None = None
        self._pending_render: tuple[int, float] | None = None
        self._cache: dict[tuple[int, float], QImage] = {}
        self._hits: list[tuple[int, tuple[float, float, float, float]]] = []
        self._hit_index = -1
        self.highlighted: str | None = None  # id of the figure/table/block shown, or "page:N"
        self._highlight_rect: tuple[float, float, float, float] | None = None
        self.rendered_page: int | None = None

        self.scene = QGraphicsScene(self)
        self.view = PageView()
        self.view.setScene(self.scene)
        self.view.zoomRequested.connect(self._zoom_step)
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.empty = QLabel("Open a PDF, HTML, Markdown or JATS file\n(File ▸ Open, or drop it here)")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("color: #666; font-size: 14px;")
        self.stack = QStackedWidget()
        for widget in (self.empty, self.view, self.text):
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
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search the document…")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.returnPressed.connect(self._search_or_next)
        self.search_label = QLabel("")
        for widget in (self.prev_button, self.page_box, self.page_count_label, self.next_button,
                       self.zoom_out_button, self.zoom_label, self.zoom_in_button):
            bar.addWidget(widget)
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
                self.stack.setCurrentWidget(self.view)
                self.page_box.blockSignals(True)
                self.page_box.setMaximum(max(1, self._renderer.pdf.page_count))
                self.page_box.blockSignals(False)
                self._page = 0
                self.show_page(1)
        else:
            self._show_text()
        self._update_controls()

    def close_document(self) -> None:
        if self._render_job is not None:
            self._render_job.cancel()
        if self._renderer is not None:
            renderer = self._renderer
            self._renderer = None
            if self._render_job is None or self._render_job.done:
                renderer.close()
            else:
                self._render_job.signals.finished.connect(renderer.close)
        self._cache.clear()
        self._hits = []
        self._hit_index = -1
        self.highlighted = None
        self._highlight_rect = None
        self.rendered_page = None
        self.scene.clear()
        self.document = None

    @property
    def page_count(self) -> int:
        if self._renderer is not None:
            return self._renderer.pdf.page_count
        return self.document.page_count or 0 if self.document else 0

    @property
    def current_page(self) -> int:
        return self._page

    @property
    def zoom(self) -> float:
        return ZOOMS[self._zoom_index]

    def _update_controls(self) -> None:
        pdf = self._renderer is not None
        for widget in (self.prev_button, self.next_button, self.page_box, self.zoom_in_button,
                       self.zoom_out_button):
            widget.setEnabled(pdf)
        self.search_box.setEnabled(self.document is not None)
        self.page_count_label.setText(f"/ {self.page_count}")
        self.zoom_label.setText(f"{round(self.zoom * 100)} %")

    # ------------------------------------------------------------------------------ navigation
    def show_page(self, page: int, *, highlight: tuple[float, float, float, float] | None = None,
                  key: str | None = None) -> None:
        if self._renderer is None:
            if self.document is not None and key:
                self._scroll_text_to(key)
            return
        page = max(1, min(int(page), self.page_count))
        changed = page != self._page
        self._page = page
        self._highlight_rect = highlight
        self.highlighted = key or (f"page:{page}" if highlight is None else self.highlighted)
        if self.page_box.value() != page:
            self.page_box.blockSignals(True)
            self.page_box.setValue(page)
            self.page_box.blockSignals(False)
        self._request_render()
        if changed:
            self.pageChanged.emit(page)

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

    def _visual(self, figure_id: str) -> Figure | None:
        if self.document is None:
            return None
        return next((v for v in self.document.visuals if v.id == figure_id), None)

    def _zoom_step(self, step: int) -> None:
        index = max(0, min(len(ZOOMS) - 1, self._zoom_index + step))
        if index != self._zoom_index:
            self._zoom_index = index
            self._update_controls()
            self._request_render()

    def set_zoom(self, zoom: float) -> None:
        self._zoom_index = min(range(len(ZOOMS)), key=lambda i: abs(ZOOMS[i] - zoom))
        self._update_controls()
        self._request_render()

    # ------------------------------------------------------------------------------ rendering
    def _request_render(self) -> None:
        if self._renderer is None:
            return
        scale = self._base * self.zoom
        key = (self._page, scale)
        if key in self._cache:
            self._draw(self._page, scale, self._cache[key])
            return
        if self._render_job is not None and not self._render_job.done:
            self._pending_render = key  # render the latest request once the running one ends
            return
        renderer = self._renderer
        page, want = key
        job = Job(f"page {page}", lambda control, stream: renderer.render(page - 1, want), kind="render")
        job.signals.succeeded.connect(lambda image, page=page, want=want: self._rendered(page, want, image))
        job.signals.failed.connect(lambda message: self.message.emit(f"cannot render page {page}: {message}"))
        job.signals.finished.connect(self._render_finished)
        self._render_job = job
        self.runner.start(job)

    def _rendered(self, page: int, scale: float, image: QImage) -> None:
        if len(self._cache) > 12:
            self._cache.pop(next(iter(self._cache)))
        self._cache[(page, scale)] = image
        if page == self._page and abs(scale - self._base * self.zoom) < 1e-6:
            self._draw(page, scale, image)

    def _render_finished(self) -> None:
        self._render_job = None
        pending, self._pending_render = self._pending_render, None
        if pending is not None:
            self._request_render()

    def _draw(self, page: int, scale: float, image: QImage) -> None:
        self.scene.clear()
        self.scene.addItem(QGraphicsPixmapItem(QPixmap.fromImage(image)))
        self.scene.setSceneRect(QRectF(0, 0, image.width(), image.height()))
        if self.document is not None:
            for visual in self.document.visuals:
                if visual.page == page and visual.bbox is not None:
                    self._outline(visual, scale)
        for hit_page, rect in self._hits:
            if hit_page == page:
                item = self.scene.addRect(self._scaled(rect, scale), QPen(Qt.PenStyle.NoPen),
                                          QBrush(QColor(255, 230, 0, 90)))
                item.setZValue(2)
        focus = None
        if self._highlight_rect is not None:
            focus = self._scaled(self._highlight_rect, scale).adjusted(-4, -4, 4, 4)
            pen = QPen(_HIGHLIGHT, 4)
            item = self.scene.addRect(focus, pen, QBrush(QColor(255, 200, 0, 40)))
            item.setZValue(3)
        self.rendered_page = page
        if focus is not None:
            self.view.ensureVisible(focus, 20, 20)
            self.view.centerOn(focus.center())
        else:
            self.view.verticalScrollBar().setValue(0)

    def _scaled(self, bbox, scale: float) -> QRectF:
        x0, y0, x1, y1 = bbox
        return QRectF(x0 * scale, y0 * scale, (x1 - x0) * scale, (y1 - y0) * scale)

    def _outline(self, visual: Figure, scale: float) -> None:
        colour = _TABLE_COLOUR if visual.kind == "table" else _FIGURE_COLOUR
        rect = self._scaled(visual.bbox, scale)
        item = QGraphicsRectItem(rect)
        item.setPen(QPen(colour, 2, Qt.PenStyle.DashLine))
        item.setToolTip(f"{visual.label or visual.id}: {visual.caption[:200]}")
        item.setZValue(1)
        self.scene.addItem(item)
        tag = QGraphicsSimpleTextItem(visual.label or ("table" if visual.kind == "table" else "figure"))
        tag.setBrush(QBrush(QColor("white")))
        background = QGraphicsRectItem(tag.boundingRect().adjusted(-3, -1, 3, 1))
        background.setBrush(QBrush(colour))
        background.setPen(QPen(Qt.PenStyle.NoPen))
        background.setPos(rect.left(), max(0.0, rect.top() - tag.boundingRect().height() - 2))
        tag.setParentItem(background)
        background.setZValue(1)
        self.scene.addItem(background)

    # ------------------------------------------------------------------------------ search
    def _search_or_next(self) -> None:
        text = self.search_box.text().strip()
        if not text or self.document is None:
            return
        if self._hits and getattr(self, "_hits_for", None) == text:
            self._goto_hit(self._hit_index + 1)
            return
        self.search(text)

    def search(self, text: str) -> Job | None:
        self._hits_for = text
        if self._renderer is None:
            found = self.text.find(text)
            self.search_label.setText("found" if found else "not found")
            return None
        renderer = self._renderer
        job = Job(f"search {text!r}", lambda control, stream: renderer.search(text, control), kind="search")
        job.signals.succeeded.connect(self._search_done)
        job.signals.failed.connect(lambda message: self.message.emit(f"search failed: {message}"))
        self.search_label.setText("searching…")
        self.runner.start(job)
        return job

    def _search_done(self, hits) -> None:
        self._hits = list(hits)
        self._cache.clear()
        if not self._hits:
            self.search_label.setText("not found")
            self._request_render()
            return
        after = [i for i, (page, _) in enumerate(self._hits) if page >= self._page]
        self._goto_hit(after[0] if after else 0)

    def _goto_hit(self, index: int) -> None:
        if not self._hits:
            return
        self._hit_index = index % len(self._hits)
        page, rect = self._hits[self._hit_index]
        self.search_label.setText(f"{self._hit_index + 1} of {len(self._hits)}")
        self.show_page(page, highlight=rect, key=f"search:{self._hit_index}")

    @property
    def search_hits(self) -> list[tuple[int, tuple[float, float, float, float]]]:
        return list(self._hits)

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
