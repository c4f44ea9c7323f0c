"""The figure gallery: every figure and table of the open document with its label and caption.
Items can be dragged onto a summary paragraph (MIME ``application/x-mmdocsum-figure``, the figure id)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from mmdocsum_desktop.app.present import caption_text
from mmdocsum_desktop.app.project import Workspace
from mmdocsum_desktop.gui import core
from mmdocsum_desktop.gui.state import AppState
from mmdocsum_desktop.gui.workers import Job, JobRunner
from mmdocsum_desktop.schemas.document import Document, Figure

FIGURE_MIME = "application/x-mmdocsum-figure"
_THUMB = 150


def item_label(visual: Figure) -> str:
    """"Figure 3", or "Table on p. 4"; an article's unlabelled figure is just "Figure" (no "p. ?")."""
    if visual.label:
        return visual.label
    kind = "Table" if visual.kind == "table" else "Figure"
    return f"{kind} on p. {visual.page}" if visual.page else kind


def placeholder(why: str) -> QPixmap:
    """A tile that says why there is no picture, instead of an empty box."""
    pixmap = QPixmap(_THUMB, int(_THUMB * 0.7))
    pixmap.fill(QColor("#eef1f5"))
    painter = QPainter(pixmap)
    painter.setPen(QColor("#667"))
    painter.drawText(pixmap.rect().adjusted(8, 8, -8, -8), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, why)
    painter.end()
    return pixmap


class _FigureList(QListWidget):
    def mimeTypes(self) -> list[str]:  # noqa: N802 — Qt's name
        return [FIGURE_MIME, "text/plain"]

    def mimeData(self, items) -> QMimeData:  # noqa: N802
        data = QMimeData()
        if items:
            figure_id = items[0].data(Qt.ItemDataRole.UserRole)
            data.setData(FIGURE_MIME, figure_id.encode("utf-8"))
            data.setText(items[0].text())
        return data


class FigureGallery(QWidget):
    figureActivated = Signal(str)

    def __init__(self, runner: JobRunner | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.thumbnail_job: Job | None = None
        self.list = _FigureList()
        self.list.setViewMode(QListWidget.ViewMode.IconMode)
        self.list.setIconSize(QSize(_THUMB, _THUMB))
        self.list.setGridSize(QSize(_THUMB + 24, _THUMB + 40))
        self.list.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.list.setMovement(QListWidget.Movement.Static)
        self.list.setWordWrap(True)
        self.list.setDragEnabled(True)
        self.list.setDragDropMode(QListWidget.DragDropMode.DragOnly)
        self.list.itemActivated.connect(lambda item: self.figureActivated.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.list.itemDoubleClicked.connect(
            lambda item: self.figureActivated.emit(item.data(Qt.ItemDataRole.UserRole))
        )
        self.list.currentItemChanged.connect(self._show_caption)
        self.caption = QLabel("")
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caption.setStyleSheet("padding: 4px; color: palette(text);")
        self.caption.setMaximumHeight(120)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.caption)
        self.figures: list[Figure] = []
        self.setVisible(False)  # shown with a document's figures: never an empty, unlabelled box

    def observe(self, state: AppState) -> None:
        """Follow the project model: the figures of its document (crops in its workspace), or none."""
        state.workspaceChanged.connect(self._workspace_changed)

    def _workspace_changed(self, workspace: Workspace | None) -> None:
        self.set_figures(workspace.document if workspace is not None else None,
                         workspace.root if workspace is not None else None)

    def set_figures(self, document: Document | None, root: Path | None) -> None:
        self.list.clear()
        self.caption.setText("")
        self.setVisible(document is not None)  # no empty, unlabelled box before a document is open
        self.figures = list(document.visuals) if document is not None else []
        if self.thumbnail_job is not None:
            self.thumbnail_job.cancel()
        thumbnails: list[tuple[str, Path]] = []
        for visual in self.figures:
            label = item_label(visual)
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, visual.id)
            path = (root / visual.image) if (root is not None and visual.image) else None
            why = ""
            if path is not None and path.is_file():
                thumbnails.append((visual.id, path))
            elif document is not None and document.kind != "pdf":
                why = "The article's image file is not here (only its caption)"
            else:
                why = "No picture: its region on the page was not found"
            if why:
                item.setIcon(placeholder(why))
            item.setToolTip(f"<b>{label}</b><br>{visual.caption[:400]}" + (f"<br><i>{why}</i>" if why else ""))
            self.list.addItem(item)
        if thumbnails:
            job = Job("thumbnails", core.make_thumbnails(thumbnails, _THUMB), kind="thumbnails")
            job.signals.succeeded.connect(lambda images, job=job: self._set_thumbnails(job, images))
            self.thumbnail_job = job
            if self.runner is not None:
                self.runner.start(job)
            else:
                job.run()
        if not self.figures and document is not None:
            self.caption.setText("This document has no detected figures or tables.")

    def _set_thumbnails(self, job: Job, images: list[tuple[str, QImage]]) -> None:
        if job is not self.thumbnail_job:
            return
        icons = dict(images)
        for row in range(self.list.count()):
            item = self.list.item(row)
            image = icons.get(item.data(Qt.ItemDataRole.UserRole))
            if image is not None:
                item.setIcon(QPixmap.fromImage(image))

    def _show_caption(self, item: QListWidgetItem | None) -> None:
        if item is None:
            self.caption.setText("")
            return
        figure_id = item.data(Qt.ItemDataRole.UserRole)
        visual = next((v for v in self.figures if v.id == figure_id), None)
        if visual is not None:
            self.caption.setText(caption_text(item_label(visual), visual.caption))

    def select(self, figure_id: str) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == figure_id:
                self.list.setCurrentRow(row)
                return
