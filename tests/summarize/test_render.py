"""Output formats: mdocsum is exactly M-DocSum's answer; json is rich; md and html show the images
inline, and HTML never passes markup through from model or document text."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from mmdocsum_desktop.placement import ImageCandidate
from mmdocsum_desktop.summarize.citations import Evidence, SentenceCitation
from mmdocsum_desktop.summarize.pipeline import FigureChoice, Summary, SummaryOptions, SummaryParagraph
from mmdocsum_desktop.summarize.render import format_for, to_html, to_markdown, to_mdocsum, write_summary


@pytest.fixture
def summary(tmp_path) -> Summary:
    figures = tmp_path / "paper_files" / "figures"
    figures.mkdir(parents=True)
    Image.new("RGB", (20, 10), "red").save(figures / "fig2.png")
    candidates = [
        ImageCandidate(image=str(figures / "fig1.png"), label="Figure 1", figure="Figure 1", caption="Fig. 1. Site map.", source_id="fig1"),
        ImageCandidate(image=str(figures / "fig2.png"), label="Figure 2", figure="Figure 2", caption="Fig. 2. Flow curves.", source_id="fig2"),
    ]
    choice = FigureChoice(candidate=1, index=2, label="Figure 2", kind="figure", caption="Fig. 2. Flow curves.",
                          image=str(figures / "fig2.png"), figure_id="fig2", score=0.8, chosen_by="hybrid")
    paragraphs = [
        SummaryParagraph(role="background", text="Trees use water <script>alert(1)</script>.", source="model",
                         sentences=[SentenceCitation("Trees use water <script>alert(1)</script>.", pages=[1], blocks=["b1"],
                                                     evidence=[Evidence("b1", 1, 0.7, "similarity")])]),
        SummaryParagraph(role="method", text="A model [link](javascript:alert(1)) of flows.", figure=choice,
                         image_caption="The flow curves the model was fitted to.",
                         sentences=[SentenceCitation("A model [link](javascript:alert(1)) of flows.", pages=[3], figures=["Figure 2"])]),
        SummaryParagraph(role="results", text="Low flows fell by 30%."),
        SummaryParagraph(role="conclusion", text="Plant with care."),
    ]
    return Summary(source=str(tmp_path / "paper.pdf"), title="Trees & <rivers>", engine={"engine": "llama", "model": "tiny"},
                   paragraphs=paragraphs, candidates=candidates, options=SummaryOptions(),
                   parse={"instruction_following": False, "parsed": True}, repairs=[{"paragraph": 2}])


def test_mdocsum_is_exactly_the_answer_format(summary):
    answer = to_mdocsum(summary)
    assert isinstance(answer, list) and len(answer) == 4
    for item in answer:
        assert set(item) == {"summary", "image"}
        assert set(item["image"]) == {"imageRef", "imageCaption"}
        assert isinstance(item["image"]["imageRef"], str)
    assert answer[1]["image"] == {"imageRef": "2", "imageCaption": "The flow curves the model was fitted to."}
    assert answer[0]["image"] == {"imageRef": "None", "imageCaption": ""}


def test_json_is_rich_and_paths_are_relative(summary, tmp_path):
    path = write_summary(summary, tmp_path / "out.json", "json")
    data = json.loads(path.read_text())
    assert data["paragraphs"][1]["figure"]["image"] == "paper_files/figures/fig2.png"
    assert data["figures"][0]["label"] == "Figure 1"
    assert data["mdocsum"] == to_mdocsum(summary)
    assert data["instruction_following"] is False and data["repairs"]
    assert data["paragraphs"][0]["sentences"][0]["evidence"][0]["how"] == "similarity"


def test_markdown_shows_images_inline_with_citations(summary, tmp_path):
    text = to_markdown(summary, relative_to=tmp_path)
    assert "![Figure 2](<paper_files/figures/fig2.png>)" in text
    assert "## Method" in text and "\\[p. 3; Figure 2\\]" in text
    assert text.index("## Method") < text.index("fig2.png") < text.index("## Results")


def test_html_disables_raw_html_and_bad_links(summary, tmp_path):
    page = to_html(summary, relative_to=tmp_path)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert 'href="javascript:' not in page
    assert '<img src="paper_files/figures/fig2.png" alt="Figure 2"' in page
    assert "<title>Trees &amp; &lt;rivers&gt;</title>" in page


def test_write_all_formats(summary, tmp_path):
    for fmt, name in (("json", "a.json"), ("mdocsum", "b.json"), ("md", "c.md"), ("html", "d.html")):
        path = write_summary(summary, tmp_path / name, fmt)
        assert path.stat().st_size > 0
    assert json.loads((tmp_path / "b.json").read_text()) == to_mdocsum(summary)
    assert format_for(tmp_path / "x.html", None) == "html" and format_for(tmp_path / "x.out", "md") == "md"
    with pytest.raises(ValueError):
        write_summary(summary, tmp_path / "e.txt", "pdf")
