"""The window's layout, actions, menus, tool bar and help windows, built once for a MainWindow.

The actions only call the window's (or its views') methods; what they do lives there. The keyboard
shortcuts window is made from the actions themselves, so it is never out of date.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.app.project import ExportFormat
from mmdocsum_desktop.gui import icons

if TYPE_CHECKING:  # a type only: the window imports this module
    from mmdocsum_desktop.gui.main_window import MainWindow

EXPORT_FILTERS: dict[ExportFormat, str] = {
    "markdown": "Markdown (*.md)",
    "html": "Self-contained HTML (*.html)",
    "pdf": "PDF (*.pdf)",
    "mdocsum": "M-DocSum JSON (*.json)",
}
AUTHORING_EXPORTS: tuple[ExportFormat, ...] = ("markdown", "html", "pdf")

GUIDE_HTML = """
<h3>mmdocsum in five steps</h3>
<ol>
<li><b>Open</b> a paper (Ctrl+O, or drop a PDF, HTML, Markdown or JATS file on the window). The reader
shows every page; the figures and tables it found are outlined and listed below it.</li>
<li><b>Summarize</b> (Ctrl+R) writes four paragraphs (background, method, results, conclusion), each with
the figure that fits it. Click a citation (<i>p. 4</i>, <i>Figure 2</i>) to see the passage in the paper.</li>
<li><b>Edit</b>: change a paragraph's text, pick another figure, or regenerate one paragraph. Everything can
be undone (Ctrl+Z).</li>
<li><b>Write</b> in the Authoring tab, then <b>Place images</b>: the app suggests which figure goes after
which of your paragraphs; nothing enters your text until you press Accept.</li>
<li><b>Export</b> the summary or your text as Markdown (opens in Obsidian), HTML or PDF.</li>
</ol>
<p>Small language models (under about a billion parameters) write fluent text that is often wrong, and
cannot judge summaries: the app says so before it uses one, and marks what they wrote. The extractive
engine only quotes the paper.</p>
"""


def shortcuts_html(actions: list[QAction]) -> str:
    """The window's keyboard shortcuts as a table, from the actions themselves (never out of date)."""
    rows = []
    for action in actions:
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        if keys:
            rows.append(f"<tr><td><b>{keys}</b></td><td>{action.text().replace('&', '').rstrip('…')}</td></tr>")
    reader = [("PgUp / PgDown", "previous / next page"), ("Ctrl+wheel, Ctrl++ / Ctrl+-", "zoom"),
              ("Ctrl+1 / Ctrl+2", "fit width / fit page")]
    rows += [f"<tr><td><b>{keys}</b></td><td>{what}</td></tr>" for keys, what in reader]
    return "<h3>Keyboard shortcuts</h3><table cellpadding='3'>" + "".join(rows) + "</table>"


def _action(window: MainWindow, text: str, slot: Callable[[], object], *, icon: str | None = None,
            shortcut: QKeySequence.StandardKey | str | None = None, tip: str = "") -> QAction:
    action = QAction(text, window)
    if icon:
        action.setIcon(icons.icon(icon))
    if shortcut is not None:
        action.setShortcut(shortcut)
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    action.triggered.connect(lambda checked=False: slot())
    return action


def build_actions(window: MainWindow) -> None:
    """The window's actions (as its attributes: ``open_action``, ``undo_action``...), menus and tool bar."""
    keys = QKeySequence.StandardKey
    window.open_action = _action(window, "&Open…", window.open_dialog, icon="open", shortcut=keys.Open,
                                 tip="Open a PDF, HTML, Markdown or JATS file")
    window.open_project_action = _action(window, "Open &Project…", window.open_project_dialog)
    window.save_action = _action(window, "&Save Project", window.save_project, icon="save", shortcut=keys.Save,
                                 tip="Save the project file")
    window.save_as_action = _action(window, "Save Project &As…", lambda: window.save_project(ask=True),
                                    shortcut=keys.SaveAs)
    window.export_actions = {
        fmt: _action(window, label.split(" (")[0] + "…", partial(window.export_dialog, fmt))
        for fmt, label in EXPORT_FILTERS.items()
    }
    window.settings_action = _action(window, "&Settings…", window.open_settings, icon="settings",
                                     shortcut=keys.Preferences)
    window.quit_action = _action(window, "&Quit", window.close, shortcut=keys.Quit)
    window.summarize_action = _action(window, "&Summarize", window.summarize, icon="summarize", shortcut="Ctrl+R",
                                      tip="Write the four-paragraph illustrated summary")
    window.cancel_action = _action(window, "&Cancel", window.job_bar.cancel, icon="cancel", shortcut="Esc",
                                   tip="Cancel the running job")
    window.place_action = _action(window, "&Place Images", window.authoring_view.place_images, icon="place-images",
                                  tip="Suggest where the document's figures go in your text")
    window.about_action = _action(window, "&About", window.about)
    window.guide_action = _action(window, "Quick &Guide", lambda: show_help(window, "guide"),
                                  shortcut=keys.HelpContents)
    window.shortcuts_action = _action(window, "&Keyboard Shortcuts", lambda: show_help(window, "shortcuts"),
                                      shortcut="Ctrl+/")
    window.undo_action = window.undo_stack.createUndoAction(window, "&Undo")
    window.undo_action.setShortcut(keys.Undo)
    window.redo_action = window.undo_stack.createRedoAction(window, "&Redo")
    window.redo_action.setShortcut(keys.Redo)
    window.authoring_export_actions = {
        fmt: _action(window, EXPORT_FILTERS[fmt].split(" (")[0] + "…",
                     partial(window.export_dialog, fmt, which="authoring"))
        for fmt in AUTHORING_EXPORTS
    }

    menu = window.menuBar().addMenu("&File")
    menu.addAction(window.open_action)
    window.recent_menu = menu.addMenu("Open &Recent")
    window.recent_menu.aboutToShow.connect(window.fill_recent)
    menu.addAction(window.open_project_action)
    menu.addSeparator()
    menu.addAction(window.save_action)
    menu.addAction(window.save_as_action)
    export_menu = menu.addMenu(icons.icon("export"), "&Export Summary")
    for action in window.export_actions.values():
        export_menu.addAction(action)
    window.authoring_export_menu = menu.addMenu(icons.icon("export"), "Export &Your Text")
    for action in window.authoring_export_actions.values():
        window.authoring_export_menu.addAction(action)
    menu.addSeparator()
    menu.addAction(window.settings_action)
    menu.addSeparator()
    menu.addAction(window.quit_action)
    menu = window.menuBar().addMenu("&Edit")
    menu.addAction(window.undo_action)
    menu.addAction(window.redo_action)
    window.view_menu = window.menuBar().addMenu("&View")
    for action in window.document_view.view_actions():
        window.view_menu.addAction(action)
    menu = window.menuBar().addMenu("&Summary")
    menu.addAction(window.summarize_action)
    menu.addAction(window.cancel_action)
    menu = window.menuBar().addMenu("&Authoring")
    menu.addAction(window.place_action)
    menu = window.menuBar().addMenu("&Help")
    menu.addAction(window.guide_action)
    menu.addAction(window.shortcuts_action)
    menu.addSeparator()
    menu.addAction(window.about_action)

    toolbar = QToolBar("Main")
    toolbar.setObjectName("mainToolbar")
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    toolbar.addAction(window.open_action)
    toolbar.addAction(window.save_action)
    toolbar.addSeparator()
    toolbar.addAction(window.summarize_action)
    export_button = QToolButton()
    export_button.setText("Export")
    export_button.setIcon(icons.icon("export"))
    export_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    export_button.setMenu(export_menu)
    toolbar.addWidget(export_button)
    toolbar.addAction(window.place_action)
    toolbar.addSeparator()
    toolbar.addAction(window.settings_action)
    window.addToolBar(toolbar)


def enable_actions(window: MainWindow) -> None:
    """What can be done now: Summarize with a document and no summary running, Export with something to
    export, Save with a project."""
    has_document = window.workspace is not None and window.workspace.document is not None
    has_summary = window.workspace is not None and window.workspace.project.summary is not None
    running = window.state.busy
    window.summarize_action.setEnabled(has_document and not running)
    window.summary_view.summarize_button.setEnabled(has_document and not running)
    for action in window.export_actions.values():
        action.setEnabled(has_summary)
    has_text = window.workspace is not None and bool(window.workspace.project.authoring.strip())
    for action in window.authoring_export_actions.values():
        action.setEnabled(has_text)
    window.place_action.setEnabled(has_document)
    window.save_action.setEnabled(window.workspace is not None)
    window.save_as_action.setEnabled(window.workspace is not None)


def build_layout(window: MainWindow) -> None:
    """The document pane and the gallery on the left, the tabs on the right, the banner above them, the
    status line and the job bar below."""
    left = QSplitter(Qt.Orientation.Vertical)
    left.addWidget(window.document_view)
    left.addWidget(window.gallery)
    left.setStretchFactor(0, 4)
    left.setStretchFactor(1, 1)
    left.setSizes([600, 200])
    window.tabs = QTabWidget()
    window.tabs.addTab(window.summary_view, icons.icon("summarize"), "Summary")
    window.tabs.addTab(window.authoring_view, icons.icon("edit"), "Authoring")
    window.tabs.addTab(window.ask_view, icons.icon("summarize"), "Ask")
    window.tabs.addTab(window.bench_view, icons.icon("benchmark"), "Benchmark")
    window.tabs.addTab(window.library_view, icons.icon("open"), "Library")
    window.splitter = QSplitter(Qt.Orientation.Horizontal)
    window.splitter.addWidget(left)
    window.splitter.addWidget(window.tabs)
    window.splitter.setSizes([620, 660])
    # the user decides how wide each side is: an explicit minimum lets the splitter go below the
    # widest page's wish (the Benchmark tab's), and no content can push the divider or the window
    for pane in (left, window.tabs):
        pane.setMinimumWidth(300)
    window.splitter.setChildrenCollapsible(False)
    central = QWidget()
    layout = QVBoxLayout(central)
    layout.setContentsMargins(2, 2, 2, 2)
    layout.addWidget(window.banner)
    layout.addWidget(window.splitter, 1)
    window.setCentralWidget(central)

    # a long status line is cut at the window's edge; it never widens the window (the banner wraps)
    window.status_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    window.statusBar().addWidget(window.status_label, 1)
    window.statusBar().addPermanentWidget(window.job_bar)


def show_help(window: MainWindow, which: str) -> QDialog:
    """The quick guide or the keyboard shortcuts, in a window that stays open beside the work."""
    dialog = window.help_dialogs.get(which)
    if dialog is None:
        dialog = QDialog(window)
        dialog.setWindowTitle("Quick guide" if which == "guide" else "Keyboard shortcuts")
        browser = QTextBrowser(dialog)
        browser.setObjectName("helpText")
        actions = [window.open_action, window.save_action, window.summarize_action, window.cancel_action,
                   window.undo_action, window.redo_action, window.guide_action, window.shortcuts_action,
                   window.settings_action, window.quit_action, *window.document_view.view_actions()]
        browser.setHtml(GUIDE_HTML if which == "guide" else shortcuts_html(actions))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        buttons.rejected.connect(dialog.close)
        layout = QVBoxLayout(dialog)
        layout.addWidget(browser)
        layout.addWidget(buttons)
        dialog.resize(560, 460)
        window.help_dialogs[which] = dialog
    dialog.show()
    dialog.raise_()
    return dialog
