"""Writing summaries out through the application layer (what `mmdocsum summarize -o` and the benchmarks
write): the format from the suffix, each format's file, JSON image paths, and the prompt's image tags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmdocsum_desktop.app.extract import extract
from mmdocsum_desktop.app.output import FORMATS, format_for, image_tags, summary_json, write_summary
from mmdocsum_desktop.app.summary import summarize
from mmdocsum_desktop.schemas.summary import mdocsum_answer
from tests.conftest import SAMPLE_PDF

PDF = SAMPLE_PDF  # 14 pages, 5 figures and a table: the summary shows some


@pytest.fixture(scope="module")
def written(extractive_session, tmp_path_factory):
    folder = tmp_path_factory.mktemp("output") / "paper_files"
    document = extract(extractive_session, PDF, folder, dpi=72).document
    return summarize(extractive_session, document, folder), folder


def test_the_format_comes_from_the_flag_else_the_suffix():
    assert format_for(Path("s.md"), None) == "md" and format_for(Path("s.HTML"), None) == "html"
    assert format_for(Path("s.pdf"), None) == "pdf" and format_for(Path("s.json"), None) == "json"
    assert format_for(Path("s.txt"), None) == "json"  # unknown suffix: the rich form
    assert format_for(Path("s.md"), "mdocsum") == "mdocsum"
    assert set(FORMATS) == {"json", "mdocsum", "md", "html", "pdf"}


def test_json_and_mdocsum_files_hold_the_summary(written, tmp_path: Path):
    summary, folder = written
    target = write_summary(summary, tmp_path / "out" / "summary.json", "json", base_dir=folder)
    data = json.loads(target.read_text(encoding="utf-8"))
    assert [p["text"] for p in data["paragraphs"]] == [p.text for p in summary.paragraphs]
    # image paths are relative to the file written, and point at the crops
    for paragraph in data["paragraphs"]:
        if paragraph.get("figure"):
            assert (target.parent / paragraph["figure"]["image"]).resolve().is_file()
    answer = write_summary(summary, tmp_path / "out" / "answer.json", "mdocsum", base_dir=folder)
    assert json.loads(answer.read_text(encoding="utf-8")) == mdocsum_answer(summary)


def test_markdown_shows_the_text_and_the_figures(written, tmp_path: Path):
    summary, folder = written
    target = write_summary(summary, tmp_path / "summary.md", "md", base_dir=folder)
    text = target.read_text(encoding="utf-8")
    assert all(p.text.split()[0] in text for p in summary.paragraphs if p.text)
    shown = [p for p in summary.paragraphs if p.figure is not None]
    assert shown and text.count("![") >= len(shown)


def test_summary_json_keeps_or_relinks_image_paths(written, tmp_path: Path):
    summary, folder = written
    stored = summary_json(summary)
    assert stored == summary.model_dump(mode="json")
    relinked = summary_json(summary, base_dir=folder, relative_to=folder.parent)
    images = [f["image"] for f in relinked["figures"] if f["image"]]
    assert images and all((folder.parent / image).is_file() for image in images)


def test_image_tags_map_the_prompt_numbers_back_to_document_order(written):
    summary, _ = written
    n = len(summary.figures)
    assert n >= 2
    assert image_tags(summary) == {str(k): k for k in range(1, n + 1)}
    shuffled = image_tags(summary, shuffle_seed=3)
    assert sorted(shuffled) == sorted(str(k) for k in range(1, n + 1))
    assert sorted(shuffled.values()) == list(range(1, n + 1))
    assert image_tags(summary, shuffle_seed=3) == shuffled  # a seed gives one order
