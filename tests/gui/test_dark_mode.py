"""Dark mode as a reader sees it (issue 46, item 6): the window's icons are drawn in a light ink once the
scheme is dark (icons made before the switch included), a summary card shown before the switch is drawn
dark after it, and its caption and sources read against the card (contrast ≥ 4.5, WCAG's for small print)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication, QPushButton, QToolButton

from mmdocsum_desktop.gui import icons, theme
from mmdocsum_desktop.gui.summary_view import ParagraphCard, paragraph_html
from mmdocsum_desktop.schemas.summary import NoFigure, SummaryParagraph


@pytest.fixture(autouse=True)
def _light_again():
    yield
    theme.apply("light")  # the next test's window starts as a fresh one would


def _luminance(colour: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())


def contrast(a: QColor, b: QColor) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _ink_lightness(image: QImage) -> int:
    """The median lightness of the icon's drawn (opaque) pixels."""
    seen = sorted(image.pixelColor(x, y).lightness() for x in range(image.width()) for y in range(image.height())
                  if image.pixelColor(x, y).alpha() > 200)
    assert seen, "the icon draws something"
    return seen[len(seen) // 2]


def _paragraph() -> SummaryParagraph:
    return SummaryParagraph(role="results", text="Serum cholesterol fell by a third in the treated rats.",
                            no_figure=NoFigure(kind="not_cited"))


def test_icons_made_in_light_mode_are_drawn_light_in_dark_mode(qtbot, make_window):
    window = make_window()
    made = icons.icon("edit")  # made now, in the light scheme, as the window's buttons are
    light = _ink_lightness(made.pixmap(QSize(32, 32)).toImage())
    theme.apply("dark")
    background = QApplication.instance().palette().color(QPalette.ColorRole.Window)
    dark = _ink_lightness(made.pixmap(QSize(32, 32)).toImage())
    assert light < 100 < dark
    assert contrast(QColor.fromHsl(0, 0, dark), background) >= 3.0  # WCAG's for graphics
    theme.apply("light")
    # the window's own buttons, made before any switch, are drawn in the light ink once it is dark
    buttons = [b for b in window.findChildren(QToolButton) + window.findChildren(QPushButton) if not b.icon().isNull()
               and (b.text() or b.toolTip())]  # the app's own (Qt's scroll arrows have neither)
    inked = [b for b in buttons if _ink_lightness(b.icon().pixmap(QSize(32, 32)).toImage()) < 100]
    assert inked, "the window has buttons with the app's icons"
    theme.apply("dark")
    still = [(b.text(), b.toolTip()[:40]) for b in inked if _ink_lightness(b.icon().pixmap(QSize(32, 32)).toImage()) <= 100]
    assert still == []
    theme.apply("light")
    assert _ink_lightness(made.pixmap(QSize(32, 32)).toImage()) == light


def test_a_card_shown_before_the_switch_is_dark_after_it_and_its_small_print_reads(qtbot):
    card = ParagraphCard(0)
    qtbot.addWidget(card)
    card.resize(520, 240)
    card.set_paragraph(_paragraph(), None)
    card.show()
    qtbot.waitExposed(card)
    assert card.grab().toImage().pixelColor(8, card.height() - 8).lightness() > 200  # light card

    theme.apply("dark")
    qtbot.waitUntil(lambda: card.grab().toImage().pixelColor(8, card.height() - 8).lightness() < 100, timeout=5_000)
    html = card.browser.toHtml()
    base = QApplication.instance().palette().color(QPalette.ColorRole.Base)
    colours = [QColor(c) for c in re.findall(r"color:\s*(#[0-9a-fA-F]{6})", paragraph_html(_paragraph(), None))]
    assert colours and all(contrast(c, base) >= 4.5 for c in colours), [c.name() for c in colours]
    assert "#666666" not in html.lower()  # the card's note was drawn again in the dark scheme's grey
