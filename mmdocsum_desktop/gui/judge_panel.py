"""The judgement panel of the summary view: "Judge this summary" runs a language model over the summary
and its document (``judge.summary.judge_document``) and this panel shows its progress with Cancel,
then one row per aspect (score 0–5, "missing" or "n/a", and the judge's explanation), the overall
score, and a note when the judge read the figures as text rather than seeing them. A judge labelled unfit
or weak (run because the user insisted) is said in a warning line that stays with its scores, beside an
overall score marked unreliable (issue 46, point 2); the heading wraps rather than running off the edge."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.gui import icons

_MESSAGE_COLOURS = {"error": "#fbe3e1", "warning": "#fff4d6", "info": "#e3effb"}


def format_score(aspect: dict[str, Any]) -> str:
    """"4 / 5", "3.5 / 5", "missing" (the judge gave no usable answer) or "n/a" (not applicable)."""
    status = aspect.get("status")
    score = aspect.get("score")
    if status == "not_applicable":
        return "n/a"
    if status == "missing" or score is None:
        return "missing"
    value = float(score)
    shown = f"{value:.0f}" if value.is_integer() else f"{value:.1f}"
    return f"{shown} / 5"


def explanation_text(aspect: dict[str, Any]) -> str:
    text = str(aspect.get("explanation") or "").strip()
    status = aspect.get("status")
    if status == "missing":
        reason = str(aspect.get("error") or "no usable answer")
        return f"The judge gave no usable score ({reason})." + (f" Its reply: {text}" if text else "")
    if status == "rule":
        return f"Scored by rule: {text}" if text else "Scored by rule."
    if status == "not_applicable":
        return f"Not applicable: {text}" if text else "Not applicable."
    return text or "(no explanation)"


class JudgePanel(QFrame):
    cancelRequested = Signal()
    insistRequested = Signal()  # "Judge anyway": the user insists on a judge labelled unfit

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("judgePanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#judgePanel { background: palette(base); border: 1px solid palette(mid); border-radius: 6px; }")
        self.result: dict[str, Any] | None = None
        self._running = False
        self.title = QLabel("Judgement")
        self.title.setWordWrap(True)  # "Judging with llama (a long model name.gguf)…" wraps in a narrow pane
        self.title.setMinimumWidth(1)  # its width comes from the pane, not from the heading's length
        font = QFont(self.title.font())
        font.setBold(True)
        self.title.setFont(font)
        self.title.setStyleSheet("color: palette(link);")
        self.overall = QLabel("")
        self.overall.setFont(font)
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setToolTip("Hide the judgement")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.hide)
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.overall)
        header.addWidget(self.close_button)

        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.cancel_button = QPushButton(icons.icon("cancel"), "Cancel")
        self.cancel_button.setToolTip("Stop judging (the scores so far are not kept)")
        self.cancel_button.clicked.connect(self._cancel)
        self.progress_row = QWidget()
        row = QHBoxLayout(self.progress_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)

        # the judge's model is labelled unfit or weak: said while it runs and on its scores, until cleared
        self.warning = QLabel("")
        self.warning.setObjectName("judgeWarning")
        self.warning.setWordWrap(True)
        self.warning.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warning.setStyleSheet(f"background: {_MESSAGE_COLOURS['warning']}; color: #222; padding: 4px; "
                                   "border-radius: 3px;")
        self.warning.setVisible(False)
        self.unreliable = ""  # the warning's sentence, "" for a judge not labelled unfit or weak

        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setVisible(False)
        # shown when the judge's model is labelled unfit: it does not run unless the user insists here
        self.insist_button = QPushButton("Judge anyway")
        self.insist_button.setToolTip("Run this judge although its scores are unreliable (they are marked so)")
        self.insist_button.clicked.connect(self.insistRequested)
        self.insist_button.setVisible(False)

        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Aspect", "Score", "Explanation"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        header_view = self.table.horizontalHeader()
        header_view.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header_view.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header_view.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.setVisible(False)

        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: palette(placeholder-text); font-size: small;")
        self.note.setVisible(False)

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.warning)
        layout.addWidget(self.progress_row)
        layout.addWidget(self.message)
        layout.addWidget(self.insist_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.table)
        layout.addWidget(self.note)
        self.progress_row.setVisible(False)
        self.setVisible(False)

    # ---- running
    def start(self, title: str, unreliable: str = "") -> None:
        """A run begins; ``unreliable`` says why its judge's scores cannot be trusted (its fitness)."""
        self.result = None
        self.title.setText(title)
        self.set_unreliable(unreliable)
        self.overall.setText("")
        self.table.setRowCount(0)
        self.table.setVisible(False)
        self.note.setVisible(False)
        self.message.setVisible(False)
        self.insist_button.setVisible(False)
        self.progress.setRange(0, 0)  # busy until the first report gives a total
        self.progress.setFormat("starting the judge…")
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Cancel")
        self.progress_row.setVisible(True)
        self._running = True
        self.setVisible(True)

    def set_progress(self, done: int, total: int, what: str) -> None:
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
            self.progress.setFormat(f"%p%  {what}" if what else "%p%")

    def finish(self) -> None:
        self._running = False
        self.progress_row.setVisible(False)

    @property
    def running(self) -> bool:
        return self._running

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Cancelling…")
        # llama.cpp cannot be interrupted while it reads a prompt: say why Cancel may take a moment
        self.progress.setFormat("cancelling: the judge stops once it has read its current prompt…")
        self.cancelRequested.emit()

    def set_unreliable(self, sentence: str) -> None:
        self.unreliable = sentence
        self.warning.setText(f"Unreliable scores: {sentence}" if sentence else "")
        self.warning.setVisible(bool(sentence))

    # ---- outcome
    def show_refusal(self, text: str) -> None:
        """The judge did not start: ``text`` says why, and "Judge anyway" runs it if the user insists."""
        self.clear()
        self.title.setText("Judgement")
        self.show_message(text, "warning")
        self.insist_button.setVisible(True)

    def show_message(self, text: str, kind: str = "error") -> None:
        self.message.setStyleSheet(f"background: {_MESSAGE_COLOURS.get(kind, '#e3effb')}; color: #222; "
                                   "padding: 4px; border-radius: 3px;")
        self.message.setText(text)
        self.message.setVisible(True)
        self.setVisible(True)

    def clear(self) -> None:
        self.result = None
        self.table.setRowCount(0)
        self.set_unreliable("")
        self.message.setVisible(False)
        self.insist_button.setVisible(False)
        self.progress_row.setVisible(False)
        self._running = False
        self.setVisible(False)

    def show_result(self, result: dict[str, Any], titles: dict[str, str] | None = None, *,
                    unreliable: str = "") -> None:
        """The scores of a finished judgement; ``unreliable`` (the judge's fitness sentence) marks them."""
        self.result = result
        self.set_unreliable(unreliable)
        titles = titles or {}
        aspects = result.get("aspects") or {}
        self.table.setRowCount(len(aspects))
        for row, (name, aspect) in enumerate(aspects.items()):
            score = format_score(aspect)
            cells = [titles.get(name) or name.replace("_", " ").capitalize(), score, explanation_text(aspect)]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if column == 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    if score in ("missing", "n/a"):
                        item.setForeground(Qt.GlobalColor.darkGray)
                self.table.setItem(row, column, item)
        self.table.resizeRowsToContents()
        self.table.setVisible(True)
        rows_height = sum(self.table.rowHeight(row) for row in range(self.table.rowCount()))
        self.table.setFixedHeight(min(260, self.table.horizontalHeader().sizeHint().height() + rows_height
                                      + 2 * self.table.frameWidth() + 4))
        overall = result.get("overall")
        self.overall.setText((f"Overall {format_score({'score': overall, 'status': 'ok'})}"
                              if overall is not None else "Overall: no score")
                             + (" (unreliable)" if unreliable else ""))
        notes = []
        if result.get("figures_as_text"):
            notes.append("The judge does not see images: it was given each figure as its label, caption and "
                         "the text found in it.")
        missing = result.get("missing") or []
        if missing:
            notes.append(f"{len(missing)} aspect(s) got no usable answer from the judge and are left out of "
                         "the overall score (never counted as 0).")
        details = []
        if result.get("judge"):
            details.append(f"judge {result['judge']}")
        if result.get("calls") is not None:
            details.append(f"{result['calls']} calls")
        if result.get("seconds") is not None:
            details.append(f"{float(result['seconds']):.1f} s")
        notes.append("Scores 0–5 from a reference-free judge, one call per aspect"
                     + (f" ({', '.join(details)})." if details else "."))
        self.note.setText(" ".join(notes))
        self.note.setVisible(True)
        self.setVisible(True)

    def mark_stale(self) -> None:
        if self.result is not None:
            self.show_message("The summary has changed since it was judged; judge it again for fresh scores.",
                              "info")

    # ---- for tests and screen readers
    def rows(self) -> list[tuple[str, str, str]]:
        out = []
        for row in range(self.table.rowCount()):
            aspect, score, explanation = (_text(self.table.item(row, column)) for column in range(3))
            out.append((aspect, score, explanation))
        return out


def _text(item: QTableWidgetItem | None) -> str:
    return item.text() if item is not None else ""
