"""The summary pane: the four paragraphs with their figures, citations that move the document pane,
per-paragraph regenerate / pick another figure / none / drop a figure, live streamed text while an
LLM engine writes, and "Judge this summary" (a language model scores it, shown in a JudgePanel)."""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QFont, QImage, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.app import catalog, judging
from mmdocsum_desktop.app.present import caption_text, markdown_to_html
from mmdocsum_desktop.app.project import Workspace
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.gui import core, icons
from mmdocsum_desktop.gui.judge_panel import JudgePanel
from mmdocsum_desktop.gui.widgets.gallery import FIGURE_MIME
from mmdocsum_desktop.gui.workers import Job, JobRunner
from mmdocsum_desktop.schemas.document import Document, Figure
from mmdocsum_desktop.schemas.settings import load_settings
from mmdocsum_desktop.schemas.summary import Summary, SummaryParagraph
from mmdocsum_desktop.text.reader_strings import reader_strings

_MENTION = re.compile(r"\b(Figure|Fig\.|Table|Tab\.)\s?(S?\d{1,3}(?:[-.]\d{1,3})?|[IVXL]{1,6}\b)", re.IGNORECASE)
_PAGE = re.compile(r"\b(?:p\.|pp\.|page)\s?(\d{1,4})\b", re.IGNORECASE)


def cite_url(kind: str, ref: str) -> str:
    return f"cite:{kind}:{ref}"


def parse_cite_url(url: str) -> tuple[str, str] | None:
    if not url.startswith("cite:"):
        return None
    _, kind, ref = (url.split(":", 2) + ["", ""])[:3]
    return (kind, ref) if kind and ref else None


IMAGE_WIDTH = 560  # figures are shown at most this wide (core.SUMMARY_IMAGE_WIDTH)


# the small print of a paragraph (its sources, its figure's caption, why it has no figure) in each scheme:
# dark greys on white, light greys on the dark window (issue 46, item 6: captions read in dark mode)
SMALL_PRINT = {False: {"sources": "#555555", "caption": "#333333", "note": "#666666"},
               True: {"sources": "#b4b4b4", "caption": "#dcdcdc", "note": "#a8a8a8"}}


def restyle(*widgets: QWidget) -> None:
    """Set each widget's style sheet again: ``palette(...)`` in a style sheet is read when it is set, so a
    widget styled before a switch to dark (or back) would keep the old scheme's colours."""
    for widget in widgets:
        sheet = widget.styleSheet()
        widget.setStyleSheet("")
        widget.setStyleSheet(sheet)


def paragraph_html(paragraph: SummaryParagraph, workspace: Workspace | None, width: int = 480,
                   language: str | None = None) -> str:
    """The paragraph as HTML: Markdown with raw HTML disabled, mentions and citations as cite: links,
    and its figure inline with the caption; what frames the paper's words in the summary's ``language``."""
    strings = reader_strings(language)
    colour = SMALL_PRINT[icons.dark_scheme()]
    figures: dict[str, Figure] = {}
    if workspace is not None and workspace.document is not None:
        for visual in workspace.document.visuals:
            if visual.label:
                figures[visual.label.lower()] = visual

    def link_mention(match: re.Match[str]) -> str:
        word = "table" if match.group(1).lower().startswith("tab") else "figure"
        visual = figures.get(f"{word} {match.group(2)}".lower())
        if visual is None:
            return match.group(0)
        return f"[{match.group(0)}]({cite_url('figure', visual.id)})"

    def linked(text: str) -> str:
        text = _MENTION.sub(link_mention, text)
        return _PAGE.sub(lambda m: f"[{m.group(0)}]({cite_url('page', m.group(1))})", text)

    if sentence_markers(paragraph):
        # each sentence ends with its own citation: a click shows that sentence on its page, marked
        body = markdown_to_html(" ".join(
            f"{linked(s.text)} [{_marker(s.pages)}]({cite_url('sentence', str(k))})"
            for k, s in enumerate(paragraph.sentences)))
    else:
        body = markdown_to_html(linked(paragraph.text))
    cites = citation_links(paragraph, workspace)
    if cites:
        body += f'<p style="color:{colour["sources"]}; font-size:small">{strings.word("sources")}: {" · ".join(cites)}</p>'
    figure = workspace.figure(paragraph.figure_id) if workspace is not None else None
    image = workspace.image_path(figure) if workspace is not None else None
    if figure is not None:
        label = figure.label or figure.id
        caption = caption_text(label, paragraph.image_caption or figure.caption)
        # the label is the link; the rest of the caption follows it once ("Table 2 Flow data", not "Table 2:
        # Table 2 Flow data")
        rest = caption[len(label):].lstrip(":. ") if caption.startswith(label) else caption
        if image is not None:
            body += (
                f'<p align="center"><a href="{html.escape(cite_url("figure", figure.id))}">'
                f'<img src="{html.escape(QUrl.fromLocalFile(str(image)).toString())}" width="{width}"/></a></p>'
            )
        body += (
            f'<p style="color:{colour["caption"]}; font-size:small"><a href="{html.escape(cite_url("figure", figure.id))}">'
            f"<b>{html.escape(label)}</b></a>{': ' if rest else ''}{html.escape(rest)}</p>"
        )
    elif paragraph.no_figure is not None:  # the reader is told why this paragraph shows no figure
        body += f'<p style="color:{colour["note"]}; font-size:small"><i>{html.escape(paragraph.no_figure.message_in(language))}</i></p>'
    return body


def sentence_markers(paragraph: SummaryParagraph) -> bool:
    """Whether the paragraph's text is still its cited sentences (not edited since), each resting on a
    block of the paper: then each sentence is shown with a citation of its own."""
    if not paragraph.sentences or not all(s.blocks for s in paragraph.sentences):
        return False
    return " ".join(" ".join(s.text.split()) for s in paragraph.sentences) == " ".join(paragraph.text.split())


def _marker(pages: list[int]) -> str:
    return f"p.\u00a0{pages[0]}" if pages else "source"


def visuals_by_label(document: Document | None) -> dict[str, Any]:
    """The document's figures and tables by lower-cased label, for turning cited labels into links."""
    return {(v.label or "").lower(): v for v in document.visuals if v.label} if document is not None else {}


def add_page_and_figure_links(links: dict[str, str], sentence: Any, visuals: dict[str, Any]) -> None:
    """A cited sentence's pages and figures/tables (by the document's figure id) as cite: links, each
    once: what a summary sentence and an answer sentence cite alike."""
    for page in sentence.pages:
        links.setdefault(f"p. {page}", cite_url("page", str(page)))
    for label in (*sentence.figures, *sentence.tables):
        visual = visuals.get(label.lower())
        if visual is not None:
            links.setdefault(label, cite_url("figure", visual.id))


def citation_links(paragraph: SummaryParagraph, workspace: Workspace | None) -> list[str]:
    """The paragraph's sentence citations as cite: links, each once: pages, figures and tables (by the
    document's figure id), passages (shown by their page, the link goes to the passage itself)."""
    document = workspace.document if workspace is not None else None
    visuals = visuals_by_label(document)
    blocks = {b.id: b for b in document.blocks} if document is not None else {}
    links: dict[str, str] = {}  # label → href
    for sentence in paragraph.sentences:
        add_page_and_figure_links(links, sentence, visuals)
        for block_id in sentence.blocks:
            block = blocks.get(block_id)
            if block is not None:
                links.setdefault(f"¶ p. {block.page}" if block.page else "¶", cite_url("block", block_id))
    return [f'<a href="{html.escape(href)}">{html.escape(label)}</a>' for label, href in links.items()]


class AutoHeightBrowser(QTextBrowser):
    """A QTextBrowser as tall as its content (the scroll area around the cards scrolls)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().contentsChanged.connect(self._fit)

    def _fit(self) -> None:
        self.document().setTextWidth(max(100, self.viewport().width()))
        self.setFixedHeight(int(self.document().size().height()) + 8)

    def resizeEvent(self, event) -> None:  # noqa: N802 — Qt's name
        super().resizeEvent(event)
        self._fit()


class ParagraphCard(QFrame):
    regenerateRequested = Signal(int)
    figureChosen = Signal(int, object)  # index, figure id or None
    citationClicked = Signal(str, str)
    sentenceClicked = Signal(str, str)  # (block id, sentence): a cited sentence to show on its page
    textEdited = Signal(int, str)

    def __init__(self, index: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.index = index
        self.paragraph: SummaryParagraph | None = None
        self.language: str | None = None  # the summary's (set_paragraph)
        self.workspace: Workspace | None = None
        self.setAcceptDrops(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setObjectName("paragraphCard")
        self.setStyleSheet("#paragraphCard { background: palette(base); border: 1px solid palette(mid); border-radius: 6px; }")
        self._scheme = icons.dark_scheme()  # the scheme its colours were drawn in
        self.title = QLabel("")
        font = QFont(self.title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.title.setStyleSheet("color: palette(link);")
        self.regenerate_button = self._tool("regenerate", "Regenerate this paragraph",
                                            lambda: self.regenerateRequested.emit(self.index))
        self.figure_button = self._tool("figure", "Pick another figure for this paragraph", None)
        self.figure_menu = QMenu(self)
        self.figure_menu.aboutToShow.connect(self._fill_menu)
        self.figure_button.setMenu(self.figure_menu)
        self.figure_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.none_button = self._tool("no-figure", "No figure for this paragraph",
                                      lambda: self.figureChosen.emit(self.index, None))
        self.edit_button = self._tool("edit", "Edit the text", self._toggle_edit)
        self.edit_button.setCheckable(True)
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        for button in (self.regenerate_button, self.figure_button, self.none_button, self.edit_button):
            header.addWidget(button)
        self.browser = AutoHeightBrowser()
        self.browser.anchorClicked.connect(self._anchor)
        self.editor = QPlainTextEdit()
        self.editor.setVisible(False)
        self.editor.setMinimumHeight(140)
        self.drop_hint = QLabel("Drop a figure here to use it for this paragraph")
        self.drop_hint.setStyleSheet("color: #2b6ec8; font-style: italic;")
        self.drop_hint.setVisible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.drop_hint)
        layout.addWidget(self.browser)
        layout.addWidget(self.editor)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """The app switched between light and dark: the card's frame and its text are drawn again in the
        scheme shown (a card shown before the switch would keep the old one's colours)."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) \
                and self._scheme != icons.dark_scheme():
            self._scheme = icons.dark_scheme()
            restyle(self, self.title)
            if self.paragraph is not None:
                self.set_paragraph(self.paragraph, self.workspace, None, self.language)

    def _tool(self, icon_name: str, tip: str, slot) -> QToolButton:
        button = QToolButton()
        button.setIcon(icons.icon(icon_name))
        button.setToolTip(tip)
        button.setAutoRaise(True)
        if slot is not None:
            button.clicked.connect(slot)
        return button

    def set_paragraph(self, paragraph: SummaryParagraph, workspace: Workspace | None,
                      images: dict[str, QImage] | None = None, language: str | None = None) -> None:
        self.paragraph = paragraph
        self.workspace = workspace
        self.language = language  # the summary's: its heading and notes read in the paper's language
        self.title.setText(reader_strings(language).heading(paragraph.role))
        figure = workspace.figure(paragraph.figure_id) if workspace is not None else None
        path = workspace.image_path(figure) if workspace is not None else None
        if path is not None and images is not None:
            image = images.get(str(path))
            if image is None:
                image = QImage(str(path))
                if image.width() > IMAGE_WIDTH:
                    image = image.scaledToWidth(IMAGE_WIDTH, Qt.TransformationMode.SmoothTransformation)
                images[str(path)] = image
            # decoded already: the browser does not read and scale the PNG again while painting
            self.browser.document().addResource(QTextDocument.ResourceType.ImageResource,
                                                QUrl.fromLocalFile(str(path)), image)
        self.browser.setHtml(paragraph_html(paragraph, workspace, width=self._image_width(image=path, images=images),
                                            language=language))
        if not self.edit_button.isChecked():
            self.editor.setPlainText(paragraph.text)

    def _image_width(self, image: Path | None = None, images: dict[str, QImage] | None = None) -> int:
        room = max(200, min(IMAGE_WIDTH, self.width() - 60)) if self.width() > 100 else 420
        decoded = images.get(str(image)) if images is not None and image is not None else None
        return min(room, decoded.width()) if decoded is not None else room

    def _fill_menu(self) -> None:
        self.figure_menu.clear()
        none = QAction("None (no figure)", self.figure_menu)
        none.triggered.connect(lambda: self.figureChosen.emit(self.index, None))
        self.figure_menu.addAction(none)
        self.figure_menu.addSeparator()
        document = self.workspace.document if self.workspace is not None else None
        for visual in (document.visuals if document is not None else []):
            action = QAction(figure_menu_text(visual), self.figure_menu)
            action.setToolTip(visual.caption[:300])
            action.setCheckable(True)
            action.setChecked(self.paragraph is not None and self.paragraph.figure_id == visual.id)
            action.triggered.connect(lambda checked=False, fid=visual.id: self.figureChosen.emit(self.index, fid))
            self.figure_menu.addAction(action)

    def _anchor(self, url: QUrl) -> None:
        parsed = parse_cite_url(url.toString())
        if parsed is None:
            return
        if parsed[0] == "sentence":
            sentences = self.paragraph.sentences if self.paragraph is not None else []
            k = int(parsed[1]) if parsed[1].isdigit() else -1
            if 0 <= k < len(sentences) and sentences[k].blocks:
                self.sentenceClicked.emit(sentences[k].blocks[0], sentences[k].text)
            return
        self.citationClicked.emit(*parsed)

    def _toggle_edit(self) -> None:
        editing = self.edit_button.isChecked()
        if editing and self.paragraph is not None:
            self.editor.setPlainText(self.paragraph.text)
        elif not editing:
            text = self.editor.toPlainText().strip()
            if self.paragraph is not None and text != self.paragraph.text:
                self.textEdited.emit(self.index, text)
        self.editor.setVisible(editing)
        self.browser.setVisible(not editing)

    # ---- drag and drop of gallery figures
    def dragEnterEvent(self, event) -> None:  # noqa: N802 — Qt's name
        if event.mimeData().hasFormat(FIGURE_MIME):
            self.drop_hint.setVisible(True)
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragLeaveEvent(self, event) -> None:  # noqa: N802
        self.drop_hint.setVisible(False)

    def dropEvent(self, event) -> None:  # noqa: N802
        self.drop_hint.setVisible(False)
        if event.mimeData().hasFormat(FIGURE_MIME):
            figure_id = bytes(event.mimeData().data(FIGURE_MIME)).decode("utf-8")
            self.figureChosen.emit(self.index, figure_id)
            event.acceptProposedAction()


def figure_menu_text(visual: Figure) -> str:
    """"Figure 3 — Annual flow duration curves of…" (p. 4): a person's words, never an internal id, and
    short enough that the menu fits on the screen."""
    name = visual.label or ("Table" if visual.kind == "table" else "Figure") + (f" on p. {visual.page}" if visual.page else "")
    caption = " ".join(visual.caption.split())
    if visual.label and caption.lower().startswith(visual.label.lower()):
        caption = caption[len(visual.label):].lstrip(" .:|")
    if len(caption) > 48:
        caption = caption[:47].rstrip() + "…"
    return f"{name} — {caption}" if caption else name


def summary_fingerprint(summary: Summary | None) -> str:
    """What the judge reads of a summary: its paragraphs' text and figures."""
    if summary is None:
        return ""
    return json.dumps([[p.role, p.text, p.figure_id, p.image_caption] for p in summary.paragraphs])


class SummaryView(QWidget):
    summarizeRequested = Signal()
    regenerateRequested = Signal(int)
    figureChosen = Signal(int, object)
    citationClicked = Signal(str, str)
    sentenceClicked = Signal(str, str)  # (block id, sentence): a cited sentence to show on its page
    textEdited = Signal(int, str)
    judged = Signal(object)  # the judgement's JSON, once shown

    def __init__(self, parent: QWidget | None = None, *, runner: JobRunner | None = None) -> None:
        super().__init__(parent)
        # the window's JobRunner (found when the first judgement starts) unless one is given
        self.runner: JobRunner | None = runner
        self.judge_job: Job | None = None
        self.judge_fitness: catalog.Fitness | None = None
        # where the judge's Session comes from: the window's current_session (set by the window)
        self.session_source: Callable[[], Session] | None = None
        self._own_session: Session | None = None  # set when a run starts with a weak judge
        self._judged_fingerprint = ""
        self._busy = False
        self.workspace: Workspace | None = None
        self.summary: Summary | None = None
        self.images: dict[str, QImage] = {}  # decoded figure images by path
        self._pending: list[int] = []
        self._fill_timer = QTimer(self)
        self._fill_timer.setInterval(0)
        self._fill_timer.timeout.connect(self._fill_next)
        self.summarize_button = QPushButton(icons.icon("summarize"), "Summarize")
        self.summarize_button.setToolTip("Write the four-paragraph illustrated summary (Ctrl+R)")
        self.summarize_button.clicked.connect(self.summarizeRequested)
        self.judge_button = QPushButton(icons.icon("judge"), "Judge this summary")
        self.judge_button.setToolTip("Score this summary 0–5 on five aspects (text quality, text–image coherence, "
                                     "image choice, faithfulness, helpfulness) with the language model chosen "
                                     "in Settings")
        self.judge_button.clicked.connect(self.judge)
        self.judge_button.setEnabled(False)
        self.judge_panel = JudgePanel()
        self.judge_panel.cancelRequested.connect(self.cancel_judge)
        self.judge_panel.insistRequested.connect(lambda: self.judge(insist=True))
        self.status = QLabel("Open a document, then Summarize.")
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: palette(placeholder-text);")
        # what the model that wrote the summary is fit for, when it is not (issue 17: no nonsense shown
        # with confidence)
        self.fitness_label = QLabel("")
        self.fitness_label.setObjectName("fitnessWarning")
        self.fitness_label.setWordWrap(True)
        self.fitness_label.setStyleSheet("background: #fff4d6; color: #5a3b00; border: 1px solid #e7c66b; "
                                         "border-radius: 4px; padding: 6px;")
        self.fitness_label.setVisible(False)
        top = QHBoxLayout()
        top.addWidget(self.summarize_button)
        top.addWidget(self.judge_button)
        top.addWidget(self.status, 1)
        self.live = QPlainTextEdit()
        self.live.setReadOnly(True)
        self.live.setPlaceholderText("The engine's text appears here as it is written…")
        self.live.setVisible(False)
        self.live.setMaximumHeight(220)
        self.cards_host = QWidget()
        self.cards_layout = QVBoxLayout(self.cards_host)
        self.cards_layout.setSpacing(10)
        self.cards_layout.addStretch(1)
        self.cards_scroll = QScrollArea()
        self.cards_scroll.setWidgetResizable(True)
        self.cards_scroll.setWidget(self.cards_host)
        self.cards_scroll.setStyleSheet("QScrollArea { background: palette(window); }")
        self.cards_host.setStyleSheet("background: palette(window);")  # light or dark (gui/theme)
        # the warning, the judgement and the live text sit above the summary in a splitter: they never
        # take more than MAX_ABOVE of the pane on their own (the summary stays readable), and the user can
        # drag the line between them either way
        self.fitness_label.setMaximumHeight(self.fitness_label.fontMetrics().lineSpacing() * 4 + 14)
        self.above = QWidget()
        above = QVBoxLayout(self.above)
        above.setContentsMargins(0, 0, 0, 0)
        above.addWidget(self.fitness_label)
        above.addWidget(self.judge_panel)
        above.addWidget(self.live)
        # in a scroll area: dragged smaller than the judgement, it scrolls (never pushes the summary)
        self.above_scroll = QScrollArea()
        self.above_scroll.setWidget(self.above)
        self.above_scroll.setWidgetResizable(True)
        self.above_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.above_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.above_scroll.setMinimumHeight(1)  # with nothing above the summary it takes no room
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.above_scroll)
        self.splitter.addWidget(self.cards_scroll)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.handle(1).setVisible(False)  # until something is above the summary
        for widget in (self.fitness_label, self.judge_panel, self.live):
            widget.installEventFilter(self)  # shown or hidden: the splitter shares the room again
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        self.cards: list[ParagraphCard] = []

    # ---- room for the summary
    MAX_ABOVE = 0.4  # at most this share of the pane goes to the warning, the judgement and the live text

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 — Qt's name
        # shown or hidden only: a size change of the panel's own must not undo the user's drag
        if event.type() in (QEvent.Type.Show, QEvent.Type.Hide) and \
                watched in (self.fitness_label, self.judge_panel, self.live):
            self.share_room()  # at once: what was just shown (a button to press) is in view
        return super().eventFilter(watched, event)

    def share_room(self) -> None:
        """Give what is above the summary the room it asks for, up to MAX_ABOVE of the pane."""
        shown = any(not w.isHidden() for w in (self.fitness_label, self.judge_panel, self.live))
        self.splitter.handle(1).setVisible(shown)
        total = sum(self.splitter.sizes()) or self.splitter.height()
        wanted = min(self.above.sizeHint().height() + 2, int(total * self.MAX_ABOVE)) if shown else 0
        self.splitter.setSizes([wanted, max(1, total - wanted)])

    # ---- streaming
    def begin_stream(self, title: str) -> None:
        self.live.clear()
        self.live.setVisible(True)
        self.status.setText(title)
        self._stream_title = title
        self._stream_started = time.monotonic()
        self._stream_chars = 0

    def append_stream(self, text: str) -> None:
        # what is being written, and how fast: a long LLM run shows it moves (about 4 characters a token)
        self._stream_chars = getattr(self, "_stream_chars", 0) + len(text)
        elapsed = time.monotonic() - getattr(self, "_stream_started", time.monotonic())
        tokens = self._stream_chars / 4
        pace = f", about {tokens / elapsed:.0f} tokens/s" if elapsed > 1 else ""
        self.status.setText(f"{getattr(self, '_stream_title', '')} About {tokens:.0f} tokens written{pace}.")
        cursor = self.live.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        cursor.insertText(text)
        self.live.setTextCursor(cursor)
        self.live.ensureCursorVisible()

    def end_stream(self) -> None:
        self.live.setVisible(False)

    def show_outcome(self, text: str) -> None:
        """What became of a run that did not give a summary: replaces "Summarizing with…"."""
        self.status.setText(text)

    @property
    def streamed_text(self) -> str:
        return self.live.toPlainText()

    # ---- content
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        dark = icons.dark_scheme()
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) \
                and getattr(self, "_scheme", False) != dark and hasattr(self, "cards_host"):
            self._scheme = dark
            restyle(self.cards_scroll, self.cards_host)  # the background behind the cards follows the scheme

    def set_summary(self, summary: Summary | None, workspace: Workspace | None) -> None:
        if workspace is not self.workspace:
            self.images.clear()
            # a judgement (or one being made) belongs to the previous document
            if self.judge_job is not None:
                self.judge_job.cancel()
            self.judge_panel.clear()
        elif summary is None:
            self.judge_panel.clear()
        elif self.judge_panel.result is not None and summary_fingerprint(summary) != self._judged_fingerprint:
            self.judge_panel.mark_stale()
        self.summary = summary
        self.workspace = workspace
        paragraphs = summary.paragraphs if summary is not None else []
        while len(self.cards) > len(paragraphs):
            card = self.cards.pop()
            card.setParent(None)
            card.deleteLater()
        while len(self.cards) < len(paragraphs):
            card = ParagraphCard(len(self.cards))
            card.regenerateRequested.connect(self.regenerateRequested)
            card.figureChosen.connect(self.figureChosen)
            card.citationClicked.connect(self.citationClicked)
            card.sentenceClicked.connect(self.sentenceClicked)
            card.textEdited.connect(self.textEdited)
            self.cards_layout.insertWidget(self.cards_layout.count() - 1, card)
            self.cards.append(card)
        # one card per event-loop turn, so that a new summary never holds the GUI thread for long
        self._pending = list(range(len(paragraphs)))
        self._fill_timer.start()
        if summary is None:
            self.status.setText("Open a document, then Summarize." if workspace is None or workspace.document is None
                                else "Ready. Summarize writes four paragraphs with the document's figures.")
        else:
            parts = [f"Summary by {summary.engine_label or 'the engine'}"]
            if summary.seconds:
                parts.append(f"in {summary.seconds:.1f} s")
            text = " ".join(parts) + "."
            if summary.notes():
                text += " Notes: " + "; ".join(summary.notes()[:3])
            self.status.setText(text)
        writer = catalog.fitness_for_summary(summary) if summary is not None else None
        self.fitness_label.setVisible(writer is not None and writer.warns)
        self.fitness_label.setText(f"⚠ {writer.sentence()} Check each sentence against its citation."
                                   if writer is not None and writer.warns else "")
        self._update_judge_button()

    def add_images(self, images: dict[str, QImage]) -> None:
        self.images.update(images)

    def _fill_next(self) -> None:
        if not self._pending or self.summary is None:
            self._pending = []
            self._fill_timer.stop()
            return
        index = self._pending.pop(0)
        if index < len(self.cards) and index < len(self.summary.paragraphs):
            self.cards[index].set_paragraph(self.summary.paragraphs[index], self.workspace, self.images,
                                            language=self.summary.language)

    def flush(self) -> None:
        """Fill every card now (tests, screenshots)."""
        while self._pending:
            self._fill_next()
        self._fill_timer.stop()

    @property
    def filled(self) -> bool:
        return not self._pending

    def observe(self, state) -> None:
        """Follow the application state (gui.state.AppState): its summary, and whether a summary runs."""
        self._state = state
        state.summaryChanged.connect(self._state_summary)
        state.busyChanged.connect(self.set_busy)

    def _state_summary(self, summary: Summary | None) -> None:
        self.set_summary(summary, self._state.workspace)
        self.set_busy(self._state.busy)  # new paragraph cards cannot regenerate while a summary runs

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.summarize_button.setEnabled(not busy)
        for card in self.cards:
            card.regenerate_button.setEnabled(not busy)
        self._update_judge_button()

    # ---- judging
    def _update_judge_button(self) -> None:
        has_summary = self.summary is not None and any(p.text.strip() for p in self.summary.paragraphs)
        self.judge_button.setEnabled(has_summary and not self._busy and self.judge_job is None)

    def _job_runner(self) -> JobRunner:
        if self.runner is None:
            found = getattr(self.window(), "runner", None)
            self.runner = found if isinstance(found, JobRunner) else JobRunner(self, max_threads=1)
        return self.runner

    def current_session(self) -> Session:
        """The session the judge runs in: the window's (``session_source``, set by the window), with the
        settings as saved now; a view on its own keeps one of its own."""
        if self.session_source is not None:
            return self.session_source()
        if self._own_session is None:
            self._own_session = Session(load_settings())
        else:
            self._own_session.use_settings(load_settings())
        return self._own_session

    def judge(self, *, insist: bool = False) -> Job | None:
        """Judge the summary as it is now with the language model of the settings, in the background.
        Says what to do when only the extractive engine is set up (it cannot judge). A model labelled
        unfit to judge does not run: the panel says why and offers "Judge anyway" (``insist``)."""
        workspace = self.workspace
        summary = self.summary
        if self.judge_job is not None or summary is None or workspace is None or workspace.document is None:
            return None
        try:
            session = self.current_session()
            judge = core.judge_description(session)
            judge_fitness = judging.judge_fitness(session)
        except MmdocsumError as error:  # no language model configured, or unreadable settings
            self.judge_panel.clear()
            self.judge_panel.title.setText("Judgement")
            self.judge_panel.show_message(str(error), "warning")
            return None
        if judging.refuses(judge_fitness) and not insist:
            assert judge_fitness is not None
            self.judge_panel.show_refusal(f"{judging.refusal_text(judge_fitness)}: press Judge anyway to run it "
                                          "(its scores are marked unreliable), or choose a larger model in "
                                          "Settings ▸ Engine ▸ Judge.")
            self.share_room()  # the refusal and its button in view above the summary
            return None
        self.judge_fitness = judge_fitness if judge_fitness is not None and judge_fitness.warns else None
        snapshot = summary.model_copy(deep=True)  # the user may go on editing while the judge works
        fingerprint = summary_fingerprint(snapshot)
        job = Job(f"Judging the summary with {judge}",
                  core.judge_summary(session, workspace.document, snapshot, workspace.root, insist=insist),
                  kind="judge")
        job.signals.progress.connect(self.judge_panel.set_progress)
        # the fitness known before the run marks its result (the judgement's label may not name a file)
        run_fitness = self.judge_fitness
        job.signals.succeeded.connect(lambda result: self._judge_done(workspace, fingerprint, result, run_fitness))
        job.signals.failed.connect(lambda message: self._judge_ended(workspace, f"Judging failed: {message}",
                                                                     "error"))
        job.signals.cancelled.connect(lambda partial: self._judge_ended(
            workspace, "Judging cancelled; no scores were kept.", "info"))
        job.signals.finished.connect(lambda: self._judge_finished(job))
        self.judge_job = job
        # an unfit or weak judge is said before the run, not only after 200 s of it
        self.judge_panel.start(f"Judging with {judge}…",
                               self.judge_fitness.sentence() if self.judge_fitness is not None else "")
        self._update_judge_button()
        job_bar = getattr(self.window(), "job_bar", None)
        track = getattr(job_bar, "track", None)
        if callable(track):  # the window's job bar shows it too (and its Cancel / Esc stops it)
            track(job)
        job_failed = getattr(self.window(), "job_failed", None)
        if callable(job_failed):  # a crashed model process is also said in the window's dialog
            job.signals.failed.connect(lambda _message: job_failed(job))
        self._job_runner().start(job)
        return job

    def cancel_judge(self) -> None:
        if self.judge_job is not None:
            self.judge_job.cancel()

    def _judge_done(self, workspace: Workspace, fingerprint: str, result: Any,
                    run_fitness: catalog.Fitness | None = None) -> None:
        if not shiboken6.isValid(self) or workspace is not self.workspace or not isinstance(result, dict):
            return
        self._judged_fingerprint = fingerprint
        titles = result.get("aspect_titles") or {}
        overall = result.get("overall")
        judge_fitness = run_fitness or catalog.fitness_for_judgement(result)
        warns = judge_fitness is not None and judge_fitness.warns
        # the scores stay visible, marked: they are the model's, and it cannot tell good from bad
        self.judge_panel.title.setText(f"Judgement by {result.get('judge') or 'the judge'}"
                                       + (" — unreliable" if warns else ""))
        self.judge_panel.show_result(result, titles,
                                     unreliable=judge_fitness.sentence() if judge_fitness is not None and warns else "")
        self.share_room()  # the scores take more room than the progress did
        if fingerprint != summary_fingerprint(self.summary):
            self.judge_panel.mark_stale()
        self.status.setText("Summary judged" + (f": overall {overall:.1f} / 5." if overall is not None else "."))
        self.judged.emit(result)

    def _judge_ended(self, workspace: Workspace, message: str, kind: str) -> None:
        if not shiboken6.isValid(self) or workspace is not self.workspace:
            return
        self.judge_panel.title.setText("Judgement")
        self.judge_panel.set_unreliable("")  # no scores to mark
        self.judge_panel.show_message(message, kind)

    def _judge_finished(self, job: Job) -> None:
        if not shiboken6.isValid(self):  # destroyed while the judge worked
            return
        if job is self.judge_job:
            self.judge_job = None
        self.judge_panel.finish()
        self._update_judge_button()

    def image_paths(self) -> list[Path]:
        out = []
        for card in self.cards:
            if card.paragraph is not None and self.workspace is not None:
                path = self.workspace.image_path(self.workspace.figure(card.paragraph.figure_id))
                if path is not None:
                    out.append(path)
        return out
