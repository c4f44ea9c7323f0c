"""Output formats: mdocsum is exactly M-DocSum's answer; json is rich; md and html show the images
inline, and HTML never passes markup through from model or document text."""

from __future__ import annotations

import json

import pymupdf
import pytest
from PIL import Image

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.cli import main as mmdocsum
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.schemas.summary import (
    Evidence,
    FigureChoice,
    FigureEntry,
    SentenceCitation,
    Summary,
    SummaryOptions,
    SummaryParagraph,
)
from mmdocsum_desktop.summarize.pipeline import summarize_document
from mmdocsum_desktop.summarize.render import format_for, to_html, to_markdown, to_mdocsum, write_summary
from mmdocsum_desktop.summarize.strategies.extractive import ExtractiveStrategy
from tests.conftest import SAMPLE_PDF


@pytest.fixture
def summary(tmp_path) -> Summary:
    figures = tmp_path / "paper_files" / "figures"
    figures.mkdir(parents=True)
    Image.new("RGB", (20, 10), "red").save(figures / "fig2.png")
    candidates = [
        FigureEntry(index=1, image=str(figures / "fig1.png"), label="Figure 1", caption="Fig. 1. Site map.", id="fig1"),
        FigureEntry(index=2, image=str(figures / "fig2.png"), label="Figure 2", caption="Fig. 2. Flow curves.", id="fig2"),
    ]
    choice = FigureChoice(index=2, label="Figure 2", kind="figure", caption="Fig. 2. Flow curves.",
                          image=str(figures / "fig2.png"), id="fig2", score=0.8, chosen_by="hybrid")
    paragraphs = [
        SummaryParagraph(role="background", text="Trees use water <script>alert(1)</script>.", source="model",
                         sentences=[SentenceCitation(text="Trees use water <script>alert(1)</script>.", pages=[1], blocks=["b1"],
                                                     evidence=[Evidence(block="b1", page=1, score=0.7, how="similarity")])]),
        SummaryParagraph(role="method", text="A model [link](javascript:alert(1)) of flows.", figure=choice,
                         image_caption="The flow curves the model was fitted to.",
                         sentences=[SentenceCitation(text="A model [link](javascript:alert(1)) of flows.", pages=[3], figures=["Figure 2"])]),
        SummaryParagraph(role="results", text="Low flows fell by 30%."),
        SummaryParagraph(role="conclusion", text="Plant with care."),
    ]
    return Summary(source=str(tmp_path / "paper.pdf"), title="Trees & <rivers>", engine={"engine": "llama", "model": "tiny"},
                   paragraphs=paragraphs, figures=candidates, options=SummaryOptions(),
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
        write_summary(summary, tmp_path / "e.txt", "docx")


def test_json_round_trips_and_version_1_files_still_load(summary, tmp_path):
    assert Summary.model_validate_json(summary.model_dump_json()) == summary
    data = json.loads(write_summary(summary, tmp_path / "s.json", "json").read_text())
    again = Summary.model_validate(data)
    assert again.paragraphs[1].figure.image == "paper_files/figures/fig2.png"  # relative to the file now
    assert again.paragraphs[0].sentences == summary.paragraphs[0].sentences and again.repairs == summary.repairs
    data["version"], data["options"] = 1, {"figure_mode": "model", "shuffle_images": 7}
    old = Summary.model_validate(data)
    assert old.options.shuffle_seed == 7 and old.options.figure_mode == "model" and old.version == 2


def test_written_files_stand_on_their_own(summary, tmp_path):
    out = tmp_path / "out"
    write_summary(summary, out / "s.md", "md", base_dir=tmp_path)
    text = (out / "s.md").read_text()
    assert "![Figure 2](<s_images/figure-2.png>)" in text
    assert (out / "s_images" / "figure-2.png").read_bytes() == (tmp_path / "paper_files/figures/fig2.png").read_bytes()
    page = write_summary(summary, out / "s.html", "html").read_text()
    assert page.count('<img src="data:image/png;base64,') == 1 and "<script>" not in page
    pdf_path = write_summary(summary, out / "s.pdf", "pdf", base_dir=tmp_path)

    with pymupdf.open(pdf_path) as pdf:
        assert "Plant with care." in "".join(p.get_text() for p in pdf)
        assert sum(len(p.get_images()) for p in pdf) == 1


def test_a_paragraph_rewritten_by_hand_is_not_cited(summary, tmp_path):
    # its sentence citations no longer describe it: the user's words are not vouched for by the paper
    summary.paragraphs[1].text = "Rewritten by hand."
    text = to_markdown(summary, relative_to=tmp_path)
    assert "Rewritten by hand.\n" in text and "p. 3; Figure 2" not in text and "javascript" not in text


def test_the_app_exports_exactly_what_mmdocsum_summarize_writes(tmp_path, monkeypatch, embedder):
    """One renderer: a real extractive summary of the sample paper, exported through the project (the
    desktop app's Export menu) and written by ``mmdocsum summarize`` with the same settings, gives the
    same files, byte for byte (the PDF: the same text and images)."""


    paper = SAMPLE_PDF
    monkeypatch.setenv("MMDOCSUM_WORKSPACES_DIR", str(tmp_path / "workspaces"))
    workspace = proj.Workspace.create()
    workspace.import_document(read_document(paper))
    workspace.project.summary = summarize_document(workspace.document, workspace.root,
                                                   strategy=ExtractiveStrategy(embedder), embedder=embedder)
    assert any(p.figure for p in workspace.project.summary.paragraphs)
    app, cli = tmp_path / "app", tmp_path / "cli"
    for fmt, suffix, name in (("markdown", "md", "s.md"), ("html", "html", "s.html"),
                              ("mdocsum", "mdocsum", "s.json"), ("pdf", "pdf", "s.pdf")):
        proj.export(workspace, fmt, app / name)
        # the command as a user runs it (its own settings, engine and embedder), in this process
        assert mmdocsum(["summarize", str(paper), "-o", str(cli / name), "--engine", "extractive",
                         "--format", suffix, "--quiet"]) == 0
    for name in ("s.md", "s.html", "s.json"):
        assert (app / name).read_bytes() == (cli / name).read_bytes(), name
    # the images (the hidden manifest beside them lists what the app wrote: fileio.OutputFolder)
    shown = sorted(p.name for p in (app / "s_images").iterdir() if not p.name.startswith("."))
    assert shown and shown == sorted(p.name for p in (cli / "s_images").iterdir() if not p.name.startswith("."))
    for image in shown:
        assert (app / "s_images" / image).read_bytes() == (cli / "s_images" / image).read_bytes()
    with pymupdf.open(app / "s.pdf") as mine, pymupdf.open(cli / "s.pdf") as theirs:
        assert [p.get_text() for p in mine] == [p.get_text() for p in theirs]
        assert [len(p.get_images()) for p in mine] == [len(p.get_images()) for p in theirs]
        assert sum(len(p.get_images()) for p in mine) == len(shown)
