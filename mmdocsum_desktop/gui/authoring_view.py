"""The authoring view: a Markdown editor with live preview, and "Place images" — flow insertion over the
user's paragraphs with the open document's figures or a folder of images; each suggestion shows its
score and is accepted (the image goes into the text after its paragraph) or rejected."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QImageReader
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.app.placement_render import figure_caption, image_markdown, insert_image
from mmdocsum_desktop.app.present import markdown_to_html
from mmdocsum_desktop.app.project import PlacementSuggestion, Workspace, adopt_image
from mmdocsum_desktop.gui import core, icons
from mmdocsum_desktop.gui.project_model import ProjectModel
from mmdocsum_desktop.gui.workers import Job
from mmdocsum_desktop.schemas.placement import PlacementWhy
from mmdocsum_desktop.text.paragraphs import split_paragraphs

if TYPE_CHECKING:
    from mmdocsum_desktop.gui.main_window import MainWindow

PREVIEW_DELAY_MS = 250
PREVIEW_MARGIN = 36  # pixels left beside an image in the preview (its frame and scroll bar)
_PREVIEW_IMAGE = re.compile(r'<img src="([^"]+)"')


class AuthoringView(QWidget):
    textChanged = Signal(str)
    suggestionsChanged = Signal()

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window_ = window
        self.workspace: Workspace | None = None
        self.folder: Path | None = None
        self._loading = False
        self._job: Job | None = None
        self.changing_text = False  # an accept writes the text: recorded as that accept, not as typing
        self._placed_paragraphs: list[str] | None = None  # the paragraphs the suggestions were made for

        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText(
            "Write in Markdown. Separate paragraphs with a blank line, then “Place images” suggests which "
            "figure goes after which paragraph."
        )
        self.editor.textChanged.connect(self._edited)
        self.preview = QTextBrowser()
        self.preview.setOpenLinks(False)
        self.preview.installEventFilter(self)  # images are scaled to the preview's width when it resizes
        self._preview_width = 0
        self.preview_timer = QTimer(self)
        self.preview_timer.setSingleShot(True)
        self.preview_timer.setInterval(PREVIEW_DELAY_MS)
        self.preview_timer.timeout.connect(self.refresh_preview)

        self.source = QComboBox()
        self.source.addItem("Figures of the open document", "document")
        self.source.addItem("A folder of images…", "folder")
        self.source.activated.connect(self._source_chosen)
        self.place_button = QPushButton(icons.icon("place-images"), "Place images")
        self.place_button.clicked.connect(self.place_images)
        self.status = QLabel("")
        self.status.setStyleSheet("color: palette(placeholder-text);")
        # a long message wraps inside the pane; it never widens the pane or the window
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        top = QHBoxLayout()
        top.addWidget(self.place_button)
        top.addWidget(QLabel("from"))
        top.addWidget(self.source)
        top.addWidget(self.status, 1)

        # the buttons come first: they must never be hidden off the right edge of a narrow pane
        self.table = QTableWidget(0, 6)
        self.table.setHorizontalHeaderLabels(["", "¶", "Image", "Why", "Score", "Paragraph"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setVisible(False)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.editor)
        split.addWidget(self.preview)
        # the line between the text and the suggestions can be dragged: many suggestions, or a long text
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(split)
        self.splitter.addWidget(self.table)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)

    def observe(self, state: ProjectModel) -> None:
        """Follow the project model: its project's text and placements; accepting, rejecting and taking
        back a placement are its intents (each one step of Undo)."""
        self._state = state
        state.workspaceChanged.connect(self.set_workspace)
        state.placementsChanged.connect(self._state_placements)
        state.authoringRestored.connect(self._restored)

    def _restored(self, text: str) -> None:
        """Undo or Redo put the text back."""
        if self.editor.toPlainText() != text:
            self.editor.setPlainText(text)

    def _state_placements(self, _placements: list) -> None:
        if self.workspace is self._state.workspace:
            self._show_suggestions()

    # ---- content
    def set_workspace(self, workspace: Workspace | None) -> None:
        if workspace is not self.workspace:
            self._placed_paragraphs = None  # suggestions of another project: not compared with this text
            self.status.setText("")  # "3 suggestion(s)…" was about the other project
        self.workspace = workspace
        self._loading = True
        text = workspace.project.authoring if workspace is not None else ""
        if self.editor.toPlainText() != text:
            if workspace is None and self.editor.toPlainText().strip():
                pass  # never throw away what is typed when a document closes
            else:
                self.editor.setPlainText(text)
        self._loading = False
        self.folder = Path(workspace.project.image_folder) if workspace and workspace.project.image_folder else None
        self._show_suggestions()
        self.refresh_preview()

    def append_text(self, text: str) -> None:
        current = self.editor.toPlainText().rstrip()
        self.editor.setPlainText((current + "\n\n" if current else "") + text.strip() + "\n")

    def _edited(self) -> None:
        self.preview_timer.start()
        if not self._loading:
            self.textChanged.emit(self.editor.toPlainText())

    def refresh_preview(self) -> None:
        self.preview_timer.stop()
        if self._placed_paragraphs is not None and self.table.isVisible():
            self._show_suggestions()  # rows whose paragraph changed since are marked, not offered
        base = self.workspace.root if self.workspace is not None else Path.cwd()
        self.preview.document().setBaseUrl(QUrl.fromLocalFile(str(base) + "/"))
        self._preview_width = self.preview.viewport().width()
        room = max(80, self._preview_width - PREVIEW_MARGIN)
        self.preview.setHtml(scaled_images(markdown_to_html(self.editor.toPlainText()), base, room))

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 — Qt's name
        if watched is self.preview and event.type() == QEvent.Type.Resize and \
                abs(self.preview.viewport().width() - self._preview_width) > 8:
            self.preview_timer.start()
        return False

    # ---- placement
    def _source_chosen(self, index: int) -> None:
        if self.source.itemData(index) == "folder":
            folder = self.window_.ask_directory("Choose a folder of images")
            if folder:
                self.folder = Path(folder)
                self.source.setItemText(index, f"Folder: {self.folder.name}")
                if self.workspace is not None:
                    self.workspace.project.image_folder = str(self.folder)
            else:
                self.source.setCurrentIndex(0)

    def place_images(self) -> Job | None:
        paragraphs = split_paragraphs(self.editor.toPlainText())
        if not paragraphs:
            self.window_.show_error("Write some paragraphs first (separated by blank lines), then Place images.", "info")
            return None
        use_folder = self.source.currentData() == "folder"
        if use_folder and self.folder is None:
            self.window_.show_error("Choose a folder of images first.", "info")
            return None
        document = self.workspace.document if self.workspace is not None else None
        if not use_folder and document is None:
            self.window_.show_error("Open a document whose figures to place, or choose a folder of images.", "info")
            return None
        if self._job is not None:
            return None
        fn = core.place_images(self.window_.current_session(), paragraphs,
                               document=None if use_folder else document,
                               workspace_root=self.workspace.root if self.workspace else None,
                               folder=self.folder if use_folder else None)
        job = Job("Placing images", fn, kind="placement")
        # suggestions for the paper they were made for only: another paper's tab may be shown by now
        workspace = self.workspace
        job.signals.succeeded.connect(lambda rows: self._placed(rows) if workspace is self.workspace else None)
        def failed(message: str) -> None:
            self.window_.show_error(f"Place images failed: {message}")
            self.status.setText("Place images failed; your text is unchanged.")

        job.signals.failed.connect(failed)
        job.signals.cancelled.connect(lambda partial: self.status.setText("Place images cancelled; your text is unchanged."))
        job.signals.finished.connect(self._finished)
        self._job = job
        self.place_button.setEnabled(False)
        self.status.setText("Placing…")
        self.window_.start_job(job)
        return job

    def _finished(self) -> None:
        self._job = None
        self.place_button.setEnabled(True)

    def _placed(self, rows: list[dict]) -> None:
        if self.workspace is None:
            return
        root = self.workspace.root
        for row in rows:  # the project file names the workspace's own images relatively (it moves)
            image = Path(row.get("image") or "")
            if row.get("image") and image.is_absolute() and image.is_relative_to(root):
                row["image"] = image.relative_to(root).as_posix()
        self.workspace.project.placements = [PlacementSuggestion(**row) for row in rows if row.get("image")]
        placed = len(self.workspace.project.placements)
        self._placed_paragraphs = split_paragraphs(self.editor.toPlainText())
        suggestions = "1 suggestion" if placed == 1 else f"{placed or 'No'} suggestions"
        paragraphs = "1 paragraph" if len(rows) == 1 else f"{len(rows)} paragraphs"
        self.status.setText(f"{suggestions} for {paragraphs}. Nothing goes into your text until you press Accept.")
        self._show_suggestions()
        self.suggestionsChanged.emit()

    def _stale(self, suggestion: PlacementSuggestion, paragraphs: list[str]) -> bool:
        """The paragraph the suggestion was made for has changed (or gone) since."""
        if self._placed_paragraphs is None:
            return False
        index = suggestion.paragraph
        was = self._placed_paragraphs[index] if index < len(self._placed_paragraphs) else None
        now = paragraphs[index] if index < len(paragraphs) else None
        return was != now

    def _show_suggestions(self) -> None:
        suggestions = self.workspace.project.placements if self.workspace is not None else []
        paragraphs = split_paragraphs(self.editor.toPlainText())
        self.table.setRowCount(len(suggestions))
        self.table.setVisible(bool(suggestions))
        stale_rows = 0
        for row, suggestion in enumerate(suggestions):
            text = paragraphs[suggestion.paragraph] if suggestion.paragraph < len(paragraphs) else ""
            stale = suggestion.status == "pending" and self._stale(suggestion, paragraphs)
            stale_rows += stale
            cells = ["", str(suggestion.paragraph + 1), suggestion.label or Path(suggestion.image or "").name,
                     _why_short(suggestion.why), f"{suggestion.score:.2f}", text[:90]]
            reason = _why_text(suggestion.why)
            for column, value in enumerate(cells):
                item = QTableWidgetItem(value)
                if reason:
                    item.setToolTip(reason)
                if stale:
                    item.setForeground(Qt.GlobalColor.gray)
                self.table.setItem(row, column, item)
            host = QWidget()
            box = QHBoxLayout(host)
            box.setContentsMargins(0, 0, 0, 0)
            if suggestion.status == "pending" and not stale:
                accept = QPushButton("Accept")
                accept.setToolTip("Put this image into your text after the paragraph (Ctrl+Z takes it back)")
                reject = QPushButton("Reject")
                accept.clicked.connect(lambda checked=False, r=row: self.accept(r))
                reject.clicked.connect(lambda checked=False, r=row: self.reject(r))
                box.addWidget(accept)
                box.addWidget(reject)
            elif stale:
                label = QLabel("paragraph changed")
                label.setToolTip("Your paragraph changed since this suggestion: run Place images again.")
                box.addWidget(label)
            else:
                take_back = QPushButton("Undo " + ("accept" if suggestion.status == "accepted" else "reject"))
                take_back.clicked.connect(lambda checked=False, r=row: self.take_back(r))
                box.addWidget(take_back)
            self.table.setCellWidget(row, 0, host)
        self.table.resizeColumnsToContents()
        if stale_rows:
            self.status.setText(f"Your text changed: {stale_rows} suggestion(s) no longer fit it. Run Place images "
                                "again for fresh ones.")

    def accept(self, row: int) -> None:
        suggestion = self.workspace.project.placements[row] if self.workspace else None
        if suggestion is None or suggestion.status != "pending" or not suggestion.image:
            return

        def change() -> bool:
            self.changing_text = True
            try:
                inserted = self._insert_image(suggestion)
            finally:
                self.changing_text = False
            if not inserted:
                self.window_.show_error("That paragraph changed since the suggestion; run Place images again.",
                                        "warning")
                return False
            suggestion.status = "accepted"
            self._show_suggestions()
            self.suggestionsChanged.emit()
            return True

        self._state.change_authoring(f"Accept {suggestion.label or 'image'}", change)

    def reject(self, row: int) -> None:
        suggestion = self.workspace.project.placements[row] if self.workspace else None
        if suggestion is None or suggestion.status != "pending":
            return

        def change() -> bool:
            suggestion.status = "rejected"
            self._show_suggestions()
            self.suggestionsChanged.emit()
            return True

        self._state.change_authoring(f"Reject {suggestion.label or 'image'}", change)

    def take_back(self, row: int) -> None:
        """An accepted row back to pending (its image line leaves the text), or a rejected one."""
        suggestion = self.workspace.project.placements[row] if self.workspace else None
        if suggestion is None or suggestion.status == "pending":
            return

        def change() -> bool:
            if suggestion.status == "accepted":
                link = self._image_link(suggestion)
                text = self.editor.toPlainText()
                line = re.compile(r"\n*!\[[^\]]*\]\(<?" + re.escape(link) + r">?\)[ \t]*(?:\n\n\*[^\n]*\*[ \t]*)?")
                self.changing_text = True
                try:
                    self.editor.setPlainText(line.sub("", text, count=1))
                finally:
                    self.changing_text = False
            suggestion.status = "pending"
            self._show_suggestions()
            self.suggestionsChanged.emit()
            return True

        self._state.change_authoring(f"Take back {suggestion.label or 'image'}", change)

    def _image_link(self, suggestion: PlacementSuggestion) -> str:
        """The image copied into the project (``images/figure-3.png``, named after its label) and the
        relative link to it: the text never holds a workspace path."""
        image = Path(suggestion.image or "")
        if self.workspace is not None and not image.is_absolute():
            image = self.workspace.root / image
        if self.workspace is None or not image.is_file():
            return image.as_posix()
        return adopt_image(self.workspace, image, suggestion.label)

    def _insert_image(self, suggestion: PlacementSuggestion) -> bool:
        """The image (and its caption line) into the text after its paragraph, written as `mmdocsum place`
        writes placement.md (app.placement_render)."""
        text = self.editor.toPlainText()
        paragraphs = split_paragraphs(text)
        if suggestion.paragraph >= len(paragraphs) or self._stale(suggestion, paragraphs):
            return False  # before the image is copied into the project
        document = self.workspace.document if self.workspace is not None else None
        caption = figure_caption(document, suggestion.figure, suggestion.label)
        changed = insert_image(text, suggestion.paragraph,
                               image_markdown(suggestion.label, self._image_link(suggestion), caption))
        if changed is None:
            return False
        self.editor.setPlainText(changed)
        return True


def scaled_images(page: str, base: Path, room: int) -> str:
    """Every image of the preview's HTML at most ``room`` pixels wide (a figure is often wider than the
    pane: shown at its own size it needed a horizontal scroll bar); smaller ones keep their size."""

    def scale(match: re.Match[str]) -> str:
        source = match.group(1)
        path = Path(source) if Path(source).is_absolute() else base / source
        natural = QImageReader(str(path)).size().width() if path.is_file() else -1
        width = min(room, natural) if natural > 0 else room
        return f'<img width="{width}" src="{source}"'

    return _PREVIEW_IMAGE.sub(scale, page)


def _why_short(why: dict | None) -> str:
    """One short reason for the table: the mention, else the caption or image-text match."""
    if not why:
        return ""
    if why.get("mention"):
        return f"cites {why['mention']}"
    if why.get("ocr_words"):
        return "words in the image: " + ", ".join(why["ocr_words"][:3])
    if why.get("caption_match") is not None:
        return f"caption match {why['caption_match']:.2f}"
    return str(why.get("decision") or "")


def _why_text(why: dict | None) -> str:
    """The placement's reasons as tooltip lines (caption match, matched sentences, OCR words, position)."""
    if not why:
        return ""
    try:
        return PlacementWhy.model_validate(why).tooltip()
    except ValueError:
        return ""
