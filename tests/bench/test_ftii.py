"""FTII-Bench: its formats as published, its metrics as its scoring code computes them, and placement run
on a small split built from a real paper."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from mmdocsum_desktop.bench.metrics.ftii import flow_metrics, score_articles, single_choice_accuracy
from mmdocsum_desktop.bench.splits import (
    load_flow_insertion,
    load_ftii_predictions,
    load_single_choice,
    parse_flow_insertion,
)
from mmdocsum_desktop.bench.suites.ftii import run_flow_insertion, run_single_choice
from mmdocsum_desktop.errors import InputNotFoundError
from mmdocsum_desktop.models.cache import ContentCache
from mmdocsum_desktop.models.embed import TextEmbedder
from mmdocsum_desktop.placement.candidates import read_captions_file
from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.schemas.bench import BenchDataError
from tests.placement.ftii_split import build_paper_split


def test_the_papers_worked_example():
    gold = [["", "", "s1", "", "", "s2"]]
    predicted = [["", "d2", "s1", "", "", "d5"]]
    metrics = flow_metrics(gold, predicted)
    assert metrics.acc_i == pytest.approx(1 / 2)
    assert metrics.acc_ni == pytest.approx(3 / 4)
    assert metrics.acc_b == pytest.approx(4 / 6)  # the paper prints 4/7; its scoring code gives 4/6
    assert metrics.metrics() == {"acc_b": 4 / 6, "acc_i": 0.5, "acc_ni": 0.75, "n_slots": 6}


def test_metrics_are_micro_averaged_over_articles_and_handle_empty_sets():
    metrics = flow_metrics([["a", ""], ["b"]], [["a", ""], [None]])
    assert (metrics.correct, metrics.n_slots, metrics.acc_i, metrics.acc_ni) == (2, 3, 0.5, 1.0)
    none_only = flow_metrics([["", ""]], [["", "x"]])
    assert none_only.acc_i is None and none_only.acc_ni == 0.5
    assert flow_metrics([], []).acc_b is None
    with pytest.raises(BenchDataError):
        flow_metrics([["a"]], [["a", ""]])


def test_groups_share_their_image_database():
    data = [
        {
            "imagedatabase": [["img/1.jpg", "img/2.jpg"], ["img/3.jpg", "img/1.jpg"]],
            "news_text": [
                {"id": "n1", "content": ["p1", "p2"], "groundtruth": ["img/1.jpg", ""]},
                {"id": "n2", "content": ["q1"], "groundtruth": ["img/9.jpg"]},
            ],
        }
    ]
    first, second = parse_flow_insertion(data)
    assert first.pool == ["img/1.jpg", "img/2.jpg", "img/3.jpg"]
    assert second.pool[-1] == "img/9.jpg"  # a gold image missing from the database is still a candidate
    assert first.groundtruth == ["img/1.jpg", ""]


@pytest.mark.parametrize(
    "data, message",
    [
        ({"news_text": [{"id": "a", "content": ["x", "y"], "groundtruth": [""]}]}, "2 paragraphs"),
        ("not a list", "expected a list"),
        ([{"imagedatabase": []}], "no news_text"),
        ([{"news_text": [{"id": "a", "content": "x", "groundtruth": [""]}, {"id": "a", "content": ["y"], "groundtruth": [""]}]}], "twice"),
    ],
)
def test_malformed_data_is_refused_clearly(data, message):
    with pytest.raises(BenchDataError, match=message):
        parse_flow_insertion(data)


def test_files_and_predictions(tmp_path):
    with pytest.raises(InputNotFoundError):
        load_flow_insertion(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(BenchDataError):
        load_flow_insertion(tmp_path / "bad.json")
    articles = parse_flow_insertion([{"imagedatabase": [["a.png"]], "news_text": [{"id": 7, "content": ["x", "y"], "groundtruth": ["a.png", None]}]}])
    (tmp_path / "pred.json").write_text(json.dumps({"7": ["a.png", "None"]}))
    predictions = load_ftii_predictions(tmp_path / "pred.json")
    assert predictions == {"7": ["a.png", ""]}
    assert score_articles(articles, predictions).acc_b == 1.0
    with pytest.raises(BenchDataError, match="lack"):
        score_articles(articles, {})
    with pytest.raises(BenchDataError, match="2 paragraphs"):
        score_articles(articles, {"7": ["a.png"]})


def _write_tsv(path: Path, rows: list[dict]) -> None:
    columns = ["index", "above_content", "below_content", "img1", "img2", "img3", "Answer"]
    lines = ["\t".join(columns)] + ["\t".join(str(row.get(c, "")) for c in columns) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_single_choice_tsv_and_accuracy(tmp_path):
    _write_tsv(
        tmp_path / "sc.tsv",
        [
            {"index": 0, "above_content": "a", "below_content": "b", "img1": "x.png", "img2": "y.png", "img3": "z.png", "Answer": "B"},
            {"index": 1, "above_content": "c", "below_content": "d", "img1": "x.png", "img2": "y.png", "img3": "z.png", "Answer": "3"},
            {"index": 2, "above_content": "e", "below_content": "", "img1": "x.png", "img2": "y.png", "img3": "z.png", "Answer": "img1"},
        ],
    )
    items = load_single_choice(tmp_path / "sc.tsv")
    assert [i.answer for i in items] == [1, 2, 0]
    assert items[0].options == ["x.png", "y.png", "z.png"] and items[2].below == ""
    assert single_choice_accuracy(items, [1, 0, 0]) == pytest.approx(2 / 3)
    (tmp_path / "bad.tsv").write_text("above_content\tAnswer\nx\tA\n")
    with pytest.raises(BenchDataError, match="below_content"):
        load_single_choice(tmp_path / "bad.tsv")


def test_single_choice_with_base64_images_runs_placement(tmp_path, paper_split):
    root = paper_split["root"]
    images = [root / p for p in paper_split["pool"][:3]]
    encoded = [base64.b64encode(p.read_bytes()).decode() for p in images]
    _write_tsv(
        tmp_path / "sc.tsv",
        [{"above_content": "Text", "below_content": "more", "img1": encoded[0], "img2": paper_split["pool"][1], "img3": encoded[2], "Answer": "A"}],
    )
    items = load_single_choice(tmp_path / "sc.tsv")
    answers = run_single_choice(items, PlacementEngine(use_ocr=False), root, tmp_path / "work")
    assert answers[0] in (0, 1, 2)
    assert len(list((tmp_path / "work").iterdir())) == 2  # the two base64 options, decoded once


def test_flow_insertion_on_a_split_built_from_a_real_paper(paper_split):
    articles = load_flow_insertion(paper_split["data"])
    captions = read_captions_file(paper_split["captions"])
    engine = PlacementEngine(TextEmbedder(cache=ContentCache(":memory:")), use_ocr=False)
    run = run_flow_insertion(articles, engine, paper_split["root"], captions=captions, strategy="global")
    metrics = score_articles(articles, run.predictions)
    assert metrics.n_image_slots == 3
    assert metrics.acc_i >= 2 / 3 and metrics.acc_b >= 0.85
    greedy = run_flow_insertion(articles, engine, paper_split["root"], captions=captions, strategy="greedy")
    assert len(greedy.predictions[articles[0].id]) == len(articles[0].content)


@pytest.fixture(scope="module")
def paper_split(tmp_path_factory):
    return build_paper_split(tmp_path_factory.mktemp("ftii-3780"))
