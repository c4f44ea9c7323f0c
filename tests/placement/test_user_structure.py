"""The structure users write (issue 39): Markdown headings are the sections of the paragraphs below them and
never get an image; a JSON list given to `mmdocsum place` is paragraphs only; the baseline strategy runs.
Real MiniLM, real `mmdocsum place` through ``main()``, a real figure crop."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from mmdocsum_desktop.app.placement import markdown_structure, place
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.suites.pairs import user_forms
from mmdocsum_desktop.cli import main
from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.placement.sequence import paragraph_sections
from mmdocsum_desktop.schemas.placement import ImageCandidate
from mmdocsum_desktop.schemas.settings import PlacementSettings, Settings
from mmdocsum_desktop.text.paragraphs import split_paragraphs
from tests.conftest import DATA_PAPERS

CAPTION = "Apoptosis of HEK293 cells after TNF treatment for 24h, measured by annexin V staining."
HEADING = "Apoptosis of HEK293 cells after TNF treatment"  # a heading in the caption's own words
BODY = "TNF treatment for 24h raised apoptosis of HEK293 cells threefold, as annexin V staining showed."
LATER = "The effect was smaller in other cell lines, which we discuss below."


@pytest.fixture(scope="module")
def session():
    with Session(Settings.model_validate({"engines": {"engine": "extractive"}})) as current:
        yield current


@pytest.fixture()
def image_folder(paper_3780, tmp_path):
    _, exported = paper_3780
    folder = tmp_path / "images"
    folder.mkdir()
    shutil.copy(exported / "figures" / "fig3.png", folder / "apoptosis.png")
    (folder / "captions.json").write_text(json.dumps({"apoptosis.png": CAPTION}))
    return folder


def run_place(monkeypatch, tmp_path, *args) -> list[dict]:
    monkeypatch.setenv("MMDOCSUM_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    code = main(["place", *map(str, args), "-o", str(out), "--no-ocr", "--quiet"])
    assert code == 0
    return json.loads((out / "placement.json").read_text())


def test_markdown_headings_are_sections_and_never_get_an_image(monkeypatch, tmp_path, image_folder):
    text = tmp_path / "draft.md"
    text.write_text(f"## {HEADING}\n\n{BODY}\n\n{LATER}\n", encoding="utf-8")
    rows = run_place(monkeypatch, tmp_path, "--paragraphs", text, "--images", image_folder,
                     "--strategy", "baseline", "--threshold", "0.3")
    assert [r["image"] is not None for r in rows] == [False, True, False]  # the heading's words match best
    markdown = (tmp_path / "out" / "placement.md").read_text()
    assert markdown.startswith(f"## {HEADING}\n\n{BODY}\n\n![")


def test_a_json_list_is_paragraphs_only(monkeypatch, tmp_path, image_folder):
    text = tmp_path / "draft.json"
    text.write_text(json.dumps([HEADING, BODY, LATER]), encoding="utf-8")
    rows = run_place(monkeypatch, tmp_path, "--paragraphs", text, "--images", image_folder,
                     "--strategy", "baseline", "--threshold", "0.3")
    # the same short line is a paragraph of the user's list, the first that reaches the threshold
    assert [r["image"] is not None for r in rows] == [True, False, False]


def test_place_reads_the_sections_the_markdown_gives(session):
    pool = [ImageCandidate(label="Figure 1", figure="Figure 1", caption=CAPTION, order=0)]
    text = (f"# A study of cell death\n\nSome introduction.\n\n## Materials and methods\n\n### Cell culture\n\n"
            f"Cells were grown.\n\n## Results\n{BODY}\n\n{LATER}")
    run = place(session, text, pool, placement=PlacementSettings(ocr=False))
    assert run.headings == [True, False, True, True, False, False, False]
    assert run.sections == [None, None, ("Materials and methods",), ("Materials and methods", "Cell culture"),
                            ("Materials and methods", "Cell culture"), ("Results",), ("Results",)]
    assert run.placements[5].paragraph_text == f"## Results\n{BODY}"  # written as typed, heading line kept
    assert not any(run.placements[i].candidate is not None for i in (0, 2, 3))

    listed = place(session, text.split("\n\n"), pool, placement=PlacementSettings(ocr=False), headings=False)
    assert listed.headings == [False] * 7 and listed.sections == [None] * 7


def test_markdown_structure_nests_levels_and_leaves_the_title_out():
    rows, sections, bodies = markdown_structure(
        ["# Title about methods", "Intro text here.", "## Results", "Growth", "Cells doubled.", "## Methods\nWe grew."])
    assert rows == [True, False, True, True, False, False]
    assert sections[1] is None  # the title is no section
    assert sections[4] == ("Results", "Growth") and sections[5] == ("Methods",)
    assert bodies[5] == "We grew."
    # one level only: those headings are the sections themselves
    _, sections, _ = markdown_structure(["# Methods", "We grew.", "# Results", "They doubled."])
    assert sections == [("Methods",), ("Methods",), ("Results",), ("Results",)]


def test_a_list_without_headings_has_no_section_features():
    kinds, first = paragraph_sections(["One.", "Two.", "Three."], None, np.zeros(3, dtype=bool))
    assert kinds == [None, None, None] and first == [False, False, False]


@pytest.mark.parametrize("with_embedder", [True, False])
def test_the_baseline_places_each_figure_once_where_its_caption_is_discussed(embedder, with_embedder):
    pool = [ImageCandidate(label="Figure 1", figure="Figure 1", caption=CAPTION, order=0),
            ImageCandidate(label="Figure 2", figure="Figure 2",
                           caption="Western blot of caspase 3 cleavage in liver tissue of treated mice.", order=1)]
    paragraphs = ["Results", BODY, "Caspase 3 cleavage rose in the liver tissue of treated mice on the western blot.",
                  BODY, LATER]
    engine = PlacementEngine(embedder if with_embedder else None, use_ocr=False, threshold=0.3 if with_embedder else 0.2)
    placed = engine.place(paragraphs, pool, strategy="baseline")
    assert [p.candidate for p in placed] == [None, 0, 1, None, None]
    assert placed[1].score > placed[4].score


def test_the_pairs_suite_gives_place_what_a_writer_would():
    paragraphs = ["Cells die in many ways.", "We grew HEK293 cells.\n\nThen treated them.", "", BODY]
    sections = [("Introduction",), ("Materials and methods", "Cell culture"), None, ("Results",)]
    (_, markdown), (_, listed) = user_forms(paragraphs, sections, "A study of cell death")
    assert isinstance(markdown.text, str) and markdown.text.startswith("# A study of cell death\n\n## Introduction")
    rows, read, _ = markdown_structure(split_paragraphs(markdown.text))
    # what place reads back is the JATS sections, the headings are rows of their own, the paragraphs map back
    assert [read[i] for i, row in enumerate(markdown.rows) if row is not None] == [
        ("Introduction",), ("Materials and methods", "Cell culture"), ("Results",)]
    assert [rows[i] for i, row in enumerate(markdown.rows)] == [row is None for row in markdown.rows]
    assert markdown.per_paragraph(list(range(len(markdown.rows))), 4) == [2, 5, None, 7]
    assert listed.text == ["Cells die in many ways.", "We grew HEK293 cells.\nThen treated them.", BODY]
    assert listed.per_paragraph([None, 0, 1], 4) == [None, 0, None, 1]


def test_bench_pairs_scores_the_forms_place_receives(monkeypatch, tmp_path):
    """`mmdocsum bench pairs --stages flow` on the committed pairs: each paper's flow is scored as Markdown
    with headings and as a plain list too, and the metrics pool both."""
    monkeypatch.setenv("MMDOCSUM_CACHE_DIR", str(tmp_path / "cache"))
    pairs = tmp_path / "pairs"
    pairs.mkdir()
    for name in ("PMC2803133", "PMC4736972"):
        for suffix in (".pdf", ".xml"):
            shutil.copy(DATA_PAPERS / f"{name}{suffix}", pairs / f"{name}{suffix}")
    assert main(["bench", "pairs", "--pairs", str(pairs), "--stages", "flow", "-o", str(tmp_path / "o")]) == 0
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    pooled = metrics["by_split"]["all"]
    for form in ("jats_markdown", "jats_list", "own_list"):
        assert 0.0 <= pooled[f"{form}_acc_ni"] <= 1.0
    flows = [paper["flow"] for paper in metrics["papers"]]
    assert len(flows) == 2
    for flow in flows:
        # every gold slot of the paper is scored in each form (headings are extra rows, not slots)
        assert flow["jats_markdown"]["n_slots"] == flow["jats_list"]["n_slots"] == flow["jats"]["n_slots"]
