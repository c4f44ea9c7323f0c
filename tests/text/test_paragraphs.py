"""The one paragraph splitter of the user's text (authoring view, ``mmdocsum place``, summaries)."""

from __future__ import annotations

from mmdocsum_desktop.text.paragraphs import split_paragraphs


def test_blank_lines_separate_paragraphs_and_single_newlines_stay_inside():
    text = "First line\nsame paragraph.\n\n\n  Second paragraph.  \n \t \nThird."
    assert split_paragraphs(text) == ["First line\nsame paragraph.", "Second paragraph.", "Third."]


def test_windows_and_old_mac_line_ends_count_as_newlines():
    assert split_paragraphs("One.\r\n\r\nTwo.\r\nstill two.\r\rThree.") == ["One.", "Two.\nstill two.", "Three."]


def test_headings_and_list_items_are_kept_as_written():
    text = "# Results\n\nThe method works.\n\n## Notes\nA heading right above its text.\n\n- item one\n- item two"
    assert split_paragraphs(text) == [
        "# Results", "The method works.", "## Notes\nA heading right above its text.", "- item one\n- item two",
    ]


def test_image_lines_and_the_caption_under_an_image_are_not_paragraphs():
    text = ("First paragraph.\n\n![Figure 2](images/figure-2.png)\n\n*Figure 2: Flicker in disparity maps.*\n\n"
            "*An italic sentence of mine.*\n\nLast paragraph.\n![inline](x.png)")
    assert split_paragraphs(text) == ["First paragraph.", "*An italic sentence of mine.*", "Last paragraph."]


def test_empty_and_blank_text_have_no_paragraphs():
    assert split_paragraphs("") == [] and split_paragraphs(" \n\n \t\n") == []
