"""The GUI's end of the core's one message channel (:mod:`mmdocsum_desktop.messages`).

Notices arrive on whatever thread a worker runs; the bridge re-emits them as a Qt signal, which Qt
delivers on the thread the bridge lives on (the GUI thread), where the window shows them."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from mmdocsum_desktop.messages import Notice, subscribe


class MessageBridge(QObject):
    notice = Signal(str, str)  # level, text

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe = subscribe(self._forward)
        self.destroyed.connect(lambda *_: self._unsubscribe())

    def _forward(self, notice: Notice) -> None:
        self.notice.emit(notice.level, notice.text)

    def close(self) -> None:
        self._unsubscribe()
