"""The authoring view: a Markdown editor with live preview, and "Place images" — flow insertion over the
user's paragraphs with the open document's figures or a folder of images; each suggestion shows its
score and is accepted (the image goes into the text after its paragraph) or rejected."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.gui import core, icons
from mmdocsum_desktop.gui.workers import Job
from mmdocsum_desktop.project import PlacementSuggestion, Workspace, split_paragraphs
from mmdocsum_desktop.summarize.render import markdown_to_html

if TYPE_CHECKING:
    from mmdocsum_desktop.gui.main_window import MainWindow

PREVIEW_DELAY_MS = 250


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

        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText(
            "Write in Markdown. Separate paragraphs with a blank line, then “Place images” suggests which "
            "figure goes after which paragraph."
        )
        self.editor.textChanged.connect(self._edited)
        self.preview = QTextBrowser()
        self.preview.setOpenLinks(False)
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
        self.status.setStyleSheet("color: #555;")
        top = QHBoxLayout()
        top.addWidget(self.place_button)
        top.addWidget(QLabel("from"))
        top.addWidget(self.source)
        top.addWidget(self.status, 1)

        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["¶", "Paragraph", "Image", "Score", ""])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setMaximumHeight(200)
        self.table.setVisible(False)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.editor)
        split.addWidget(self.preview)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        layout.addWidget(self.table)

    # ---- content
    def set_workspace(self, workspace: Workspace | None) -> None:
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
        base = self.workspace.root if self.workspace is not None else Path.cwd()
        self.preview.document().setBaseUrl(QUrl.fromLocalFile(str(base) + "/"))
        self.preview.setHtml(markdown_to_html(self.editor.toPlainText()))

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
        fn = core.place_images(paragraphs, document=None if use_folder else document,
                               workspace_root=self.workspace.root if self.workspace else None,
                               folder=self.folder if use_folder else None,
                               settings=self.window_.engine_settings())
        job = Job("Placing images", fn, kind="placement")
        job.signals.succeeded.connect(self._placed)
        job.signals.failed.connect(lambda message: self.window_.show_error(f"Place images failed: {message}"))
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
        self.workspace.project.placements = [PlacementSuggestion(**row) for row in rows if row.get("image")]
        placed = len(self.workspace.project.placements)
        self.status.setText(f"{placed} suggestion(s) for {len(rows)} paragraph(s).")
        self._show_suggestions()
        self.suggestionsChanged.emit()

    def _show_suggestions(self) -> None:
        suggestions = self.workspace.project.placements if self.workspace is not None else []
        paragraphs = split_paragraphs(self.editor.toPlainText())
        self.table.setRowCount(len(suggestions))
        self.table.setVisible(bool(suggestions))
        for row, suggestion in enumerate(suggestions):
            text = paragraphs[suggestion.paragraph] if suggestion.paragraph < len(paragraphs) else ""
            cells = [str(suggestion.paragraph + 1), text[:90], suggestion.label or Path(suggestion.image or "").name,
                     f"{suggestion.score:.2f}"]
            reason = _why_text(suggestion.why)
            for column, value in enumerate(cells):
                item = QTableWidgetItem(value)
                if reason:
                    item.setToolTip(reason)
                self.table.setItem(row, column, item)
            if suggestion.status == "pending":
                host = QWidget()
                box = QHBoxLayout(host)
                box.setContentsMargins(0, 0, 0, 0)
                accept = QPushButton("Accept")
                reject = QPushButton("Reject")
                accept.clicked.connect(lambda checked=False, r=row: self.accept(r))
                reject.clicked.connect(lambda checked=False, r=row: self.reject(r))
                box.addWidget(accept)
                box.addWidget(reject)
                self.table.setCellWidget(row, 4, host)
            else:
                self.table.removeCellWidget(row, 4)
                self.table.setItem(row, 4, QTableWidgetItem(suggestion.status))
        self.table.resizeColumnsToContents()

    def accept(self, row: int) -> None:
        suggestion = self.workspace.project.placements[row] if self.workspace else None
        if suggestion is None or suggestion.status != "pending" or not suggestion.image:
            return
        if not self._insert_image(suggestion):
            self.window_.show_error("That paragraph changed since the suggestion; run Place images again.", "warning")
            return
        suggestion.status = "accepted"
        self._show_suggestions()
        self.suggestionsChanged.emit()

    def reject(self, row: int) -> None:
        suggestion = self.workspace.project.placements[row] if self.workspace else None
        if suggestion is None or suggestion.status != "pending":
            return
        suggestion.status = "rejected"
        self._show_suggestions()
        self.suggestionsChanged.emit()

    def _insert_image(self, suggestion: PlacementSuggestion) -> bool:
        text = self.editor.toPlainText()
        paragraphs = split_paragraphs(text)
        if suggestion.paragraph >= len(paragraphs):
            return False
        target = paragraphs[suggestion.paragraph]
        position = text.find(target)
        if position < 0:
            return False
        end = position + len(target)
        alt = re.sub(r"[\[\]]", "", suggestion.label or "image")
        image = Path(suggestion.image)
        if self.workspace is not None and not image.is_absolute():
            image = self.workspace.root / image
        insertion = f"\n\n![{alt}]({image.as_posix()})"
        self.editor.setPlainText(text[:end] + insertion + text[end:])
        return True


def _why_text(why: dict | None) -> str:
    """The placement's reasons as tooltip lines (caption match, matched sentences, OCR words, position)."""
    if not why:
        return ""
    from mmdocsum_desktop.placement import PlacementWhy

    try:
        return PlacementWhy.model_validate(why).tooltip()
    except ValueError:
        return ""
