"""Scanned-page helpers of models/ocr.py: which way a page was scanned (from RapidOCR's boxes and its
angle classifier's verdicts), and the word spaces PP-OCR drops in tightly set English."""

from __future__ import annotations

from mmdocsum_desktop.models.ocr import OcrLine, OcrResult, page_quarter_turns, restore_spaces


def lines(*rows: tuple[float, float, bool]) -> OcrResult:
    """OcrResult of lines (width, height, turned over by the classifier)."""
    made = []
    for position, (width, height, flipped) in enumerate(rows):
        x, y = 10.0, 10.0 + 40 * position
        box = ((x, y), (x + width, y), (x + width, y + height), (x, y + height))
        made.append(OcrLine(text=f"line {position}", box=box, confidence=0.9, flipped=flipped))
    return OcrResult(lines=tuple(made), width=1000, height=1000)


def test_upright_sideways_and_upside_down_pages():
    assert page_quarter_turns(lines((300, 20, False), (280, 20, False), (310, 20, True))) == 0
    # lines standing on end that read top to bottom: the page was turned clockwise, one turn back
    assert page_quarter_turns(lines((20, 300, False), (20, 280, False), (20, 310, False))) == 1
    # standing on end and read upside down after RapidOCR's own quarter turn: three turns
    assert page_quarter_turns(lines((20, 300, True), (20, 280, True), (20, 310, False))) == 3
    assert page_quarter_turns(lines((300, 20, True), (280, 20, True), (310, 20, False))) == 2
    assert page_quarter_turns(lines((20, 300, True), (280, 20, True))) == 0  # too few lines to tell


def test_dropped_spaces_are_restored_only_where_the_words_are_sure():
    assert restore_spaces("Evaluationofliverandcardiacfunction") == "Evaluation of liver and cardiac function"
    assert restore_spaces("Assessment of tissuelipid peroxidecontent") == "Assessment of tissue lipid peroxide content"
    # names, rare words and runs that would split into fragments stay as they are
    for kept in ("Thamolwan Suanarunsawat", "intraperitoneal", "immunohistochemistry", "photosynthesis",
                 "thespecificchemicalingredientsinOSleavesresponsibleforthesepharmacological"):
        assert restore_spaces(kept) == kept
    assert restore_spaces("short words stay") == "short words stay"
