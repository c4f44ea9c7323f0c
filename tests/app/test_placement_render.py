"""The Markdown of placed images (app.placement_render): what `mmdocsum place` writes for all its
placements is what the window's Accept gives one image at a time."""

from __future__ import annotations

from mmdocsum_desktop.app.placement_render import image_markdown, insert_image, placements_markdown
from mmdocsum_desktop.text.paragraphs import split_paragraphs

TEXT = "# Notes\n\nThe liver cells [1] are shown.\n\n\nThe heart cells.\n\nThe liver cells [1] are shown.\n"


def test_an_image_block_is_its_label_its_link_and_its_escaped_caption():
    assert image_markdown("Figure [2]", "images/figure-2.png") == "![Figure 2](images/figure-2.png)"
    assert image_markdown(None, "a.png", "Figure 2: *rat* liver") == "![image](a.png)\n\n*Figure 2: \\*rat\\* liver*"


def test_all_placements_at_once_are_the_accepts_one_by_one():
    blocks = {1: image_markdown("Figure 2", "f2.png", "Figure 2: Liver"), 3: image_markdown("Figure 3", "f3.png")}
    text = TEXT
    for paragraph in (3, 1):
        changed = insert_image(text, paragraph, blocks[paragraph])
        assert changed is not None
        text = changed
    assert placements_markdown(TEXT, blocks) == text
    # the repeated paragraph gets its own image, not the first one's; the user's text is kept as written
    assert text.endswith("The liver cells [1] are shown.\n\n![Figure 3](f3.png)\n")
    assert "shown.\n\n![Figure 2](f2.png)\n\n*Figure 2: Liver*\n\n\nThe heart" in text
    assert split_paragraphs(text) == split_paragraphs(TEXT)


def test_a_list_of_paragraphs_is_paragraphs_only():
    blocks = {0: image_markdown("Figure 2", "figures/fig2.png")}
    assert placements_markdown([" First. ", "", "Last."], blocks) == "First.\n\n![Figure 2](figures/fig2.png)\n\nLast.\n"
    assert insert_image("Only one.", 1, "x") is None
