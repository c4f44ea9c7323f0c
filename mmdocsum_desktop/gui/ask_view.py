"""The Ask pane: a question about the open paper, answered in the background by the app's ask use case
(`mmdocsum ask`: retrieved evidence, each sentence checked against it), shown with its citations as links
that move the reader, as the summary's are. The questions asked about the open paper stay in the pane,
each with its answer (newest last); another paper starts a new history and an empty question box. Each
open paper keeps its own (issue 46, point 1): switching to another paper's tab and back shows its
questions, answers and the question being typed as they were; a closed paper's go with its workspace."""

from __future__ import annotations

import html
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from mmdocsum_desktop.app import catalog
from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.app.ask import ask as ask_the_paper
from mmdocsum_desktop.gui.summary_view import (
    add_page_and_figure_links,
    cite_url,
    parse_cite_url,
    visuals_by_label,
)
from mmdocsum_desktop.gui.workers import Job
from mmdocsum_desktop.schemas.document import Document

if TYPE_CHECKING:
    from mmdocsum_desktop.gui.main_window import MainWindow


def answer_html(answer: Any, document: Document | None, index: int | None = None) -> str:
    """The answer's sentences, each followed by its sources as cite: links (pages, figures, passages).
    ``index``: the answer's place in the pane's history; then a sentence's passage link shows that very
    sentence marked on its page (``cite:sentence:INDEX.K``)."""
    visuals = visuals_by_label(document)
    parts = []
    for k, sentence in enumerate(answer.sentences):
        links: dict[str, str] = {}
        add_page_and_figure_links(links, sentence, visuals)
        if index is not None and sentence.blocks:
            links.setdefault("¶1", cite_url("sentence", f"{index}.{k}"))
        for block in sentence.blocks[:2]:
            links.setdefault(f"¶{len(links) + 1}", cite_url("block", block))
        cites = " ".join(f'<a href="{html.escape(href)}">{html.escape(text)}</a>' for text, href in links.items())
        parts.append(f"{html.escape(sentence.text)}" + (f' <span style="font-size:small">[{cites}]</span>' if cites else ""))
    body = "<p>" + " ".join(parts) + "</p>" if parts else "<p><i>No answer.</i></p>"
    if getattr(answer, "notes", None):
        body += '<p style="color:#666; font-size:small">' + html.escape("; ".join(answer.notes)) + "</p>"
    return body


@dataclass
class PaperQuestions:
    """What the Ask pane holds for one open paper while another is shown."""

    document: Document | None
    history: list[tuple[str, Any]] = field(default_factory=list)
    question: str = ""  # typed, not asked yet


class AskView(QWidget):
    """Ask the open paper a question; the answer cites where each sentence comes from."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window_ = window
        self.job: Job | None = None
        self.answer: Any = None
        self._answered_document: Document | None = None
        # (question, answer) asked about the open paper, oldest first: an answer does not replace the last
        self.history: list[tuple[str, Any]] = []
        self._asking = ""
        # the other open papers' questions, by workspace (a paper's tab holds its workspace while open)
        self._kept: weakref.WeakKeyDictionary[proj.Workspace, PaperQuestions] = weakref.WeakKeyDictionary()
        self._workspace: proj.Workspace | None = None
        self.question = QLineEdit()
        self.question.setPlaceholderText("Ask the paper a question (e.g. Which data were used?) and press Enter")
        self.question.returnPressed.connect(self.ask)
        self.ask_button = QPushButton("Ask")
        self.ask_button.clicked.connect(self.ask)
        self.status = QLabel("Open a document, then ask it a question.")
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: palette(placeholder-text);")
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._anchor)
        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(self.ask_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.browser, 1)

    def observe(self, state) -> None:
        """Follow the application state (gui.state.AppState): an answer belongs to its paper."""
        state.workspaceChanged.connect(self._workspace_changed)

    def _workspace_changed(self, workspace: proj.Workspace | None) -> None:
        document = workspace.document if workspace is not None else None
        if workspace is self._workspace and document is self._answered_document:
            return  # the same paper shown again: its answers stay
        if self._workspace is not None:  # the paper left keeps what was asked about it
            self._kept[self._workspace] = PaperQuestions(self._answered_document, self.history,
                                                         self.question.text())
        kept = self._kept.pop(workspace, None) if workspace is not None else None
        if kept is not None and kept.document is not document:
            kept = None  # the workspace holds another document now: those answers are not about it
        self._workspace = workspace
        self._answered_document = document
        self.history = kept.history if kept is not None else []
        self.answer = self.history[-1][1] if self.history else None
        # a question about the paper before is not one about this one
        self.question.setText(kept.question if kept is not None else "")
        if self.history:
            self._show_history()
        else:
            self.browser.clear()
        # said for the document there is now (the words "Open a document" beside an open one were stale)
        self.status.setText("Open a document, then ask it a question." if document is None
                            else "Ask the paper a question.")

    def ask(self) -> Job | None:
        workspace = self.window_.workspace
        text = self.question.text().strip()
        if workspace is None or workspace.document is None:
            self.status.setText("Open a document first.")
            return None
        if not text or self.job is not None:
            return None
        session = self.window_.current_session()
        answerer = catalog.fitness_for_settings(session.settings, "answerer")
        warning = f" {answerer.sentence()}" if answerer is not None and answerer.warns else ""
        document = workspace.document

        def run(control, stream):
            return ask_the_paper(session, document, text, control=control, on_text=stream)

        job = Job(f"Asking: {text[:40]}", run, kind="ask")
        job.signals.succeeded.connect(lambda answer: self._answered(document, answer, warning, text))
        job.signals.failed.connect(lambda message: self._ended(f"No answer: {message}"))
        job.signals.cancelled.connect(lambda partial: self._ended("Question cancelled."))
        job.signals.finished.connect(self._finished)
        self.job = job
        self.ask_button.setEnabled(False)
        self._show_history(pending=text)  # the earlier answers stay while this one is looked for
        self.status.setText("Looking for the answer in the paper…" + warning)
        self.window_.start_job(job)
        return job

    def _answered(self, document: Document, answer: Any, warning: str, question: str = "") -> None:
        if not shiboken6.isValid(self):
            return
        if self._answered_document is not None and self._answered_document is not document:
            # another paper was shown while this one was asked: the answer goes to its own paper's questions
            kept = next((k for k in self._kept.values() if k.document is document), None)
            if kept is not None:
                kept.history.append((question or answer.question, answer))
            return
        self.answer = answer
        self._answered_document = document
        self.history.append((question or answer.question, answer))
        self._show_history()
        said = "The paper does not say." if answer.not_in_document else f"{len(answer.sentences)} sentence(s)."
        self.status.setText(f"{said} Click a source to see it in the paper.{warning}")

    def _show_history(self, *, pending: str | None = None) -> None:
        """Every question asked about this paper with its answer, oldest first, and the one being asked;
        scrolled to the newest."""
        if pending is not None:
            self._asking = pending
        parts = [f'<p style="margin-top:10px"><b>Q: {html.escape(question)}</b></p>'
                 f'{answer_html(answer, self._answered_document, index)}'
                 for index, (question, answer) in enumerate(self.history)]
        if pending is not None:
            parts.append(f'<p style="margin-top:10px"><b>Q: {html.escape(pending)}</b></p><p><i>Looking…</i></p>')
        self.browser.setHtml("<hr>".join(parts))
        bar = self.browser.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _ended(self, message: str) -> None:
        if shiboken6.isValid(self):
            self.status.setText(message)
            self._show_history()  # the question that got no answer leaves the pane

    def _finished(self) -> None:
        if shiboken6.isValid(self):
            self.job = None
            self.ask_button.setEnabled(True)

    def _anchor(self, url: QUrl) -> None:
        parsed = parse_cite_url(url.toString())
        if parsed is None:
            return
        if parsed[0] == "sentence":
            where = parsed[1].split(".")
            if len(where) == 2 and all(part.isdigit() for part in where):
                h, k = int(where[0]), int(where[1])
                sentences = self.history[h][1].sentences if h < len(self.history) else []
                if k < len(sentences) and sentences[k].blocks:
                    self.window_.follow_sentence(sentences[k].blocks[0], sentences[k].text)
            return
        self.window_.follow_citation(*parsed)
