"""Caption starts as publishers print them, and prose that only cites a figure."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.document.labels import parse_caption_start


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("FIGURE 1 | Growth of the cells", "Figure 1"),
        ("Fig 1. Growth of the cells", "Figure 1"),
        ("Figure-1: Growth of the cells", "Figure 1"),
        ("Table-2: Doses", "Table 2"),
        ("Fig. 3 (a) Growth of the cells; (b) their death", "Figure 3"),
        ("Fig. 3(a–c). Growth of the cells", "Figure 3"),
        ("Figure 1 (A) Growth of cells. (B) Their death.", "Figure 1"),
        ("Fig. 1 (color online) Growth of the cells", "Figure 1"),
    ],
)
def test_label_variants_start_a_caption(text, label):
    start = parse_caption_start(text)
    assert start is not None and start.label == label and start.strong


def test_a_bracketed_continuation_note_marks_the_rest_of_a_table():
    start = parse_caption_start("Table 1 (continued)")
    assert start is not None and start.label == "Table 1" and start.continued


@pytest.mark.parametrize(
    "text",
    ["Figure 2 (right) shows the growth", "Figure 2 (a) shows the growth", "Table 1 [27,28] compares them", "Figure 2, left"],
)
def test_prose_citing_a_figure_is_not_a_caption(text):
    assert parse_caption_start(text) is None
