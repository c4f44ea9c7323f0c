"""The mdocsum suite on the bundled demo split with given predictions: hand-computed numbers, and bad
input (malformed lines, missing documents and predictions, unknown ids) reported per item."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mmdocsum_desktop.bench import splits
from mmdocsum_desktop.bench.suites.mdocsum import run_mdocsum


def _answer(*refs):
    return [
        {"summary": f"Paragraph {i} says something.", "image": {"imageRef": "None" if r is None else str(r), "imageCaption": ""}}
        for i, r in enumerate(refs, start=1)
    ]


@pytest.fixture
def predictions(tmp_path: Path) -> Path:
    folder = tmp_path / "predictions"
    folder.mkdir()
    (folder / "marsh.json").write_text(json.dumps(_answer(1, None, 2, None)))  # the gold itself
    (folder / "birds.json").write_text(json.dumps(_answer(None, None, None, None)))  # all None
    (folder / "bikes.json").write_text(json.dumps("I am unable to summarise this document."))  # raw text, no JSON
    fenced = "```json\n" + json.dumps(_answer(None, 2, 1, None)) + "\n```"
    (folder / "scooters.json").write_text(fenced)  # not JSON as a file: the file's text is the raw answer
    (folder / "unknown-paper.json").write_text(json.dumps(_answer(None, None, None, None)))
    return folder  # bread.json is missing


def test_demo_split_with_given_predictions(tmp_path, predictions):
    # gold: marsh [1,N,2,N] birds [N,1,2,N] bikes [N,1,2,N] bread [N,N,1,N] scooters [N,1,2,N]
    # correct slots: marsh 4, birds 2, bikes 0 (unparseable), bread 0 (missing), scooters 2 (None slots) -> 8/20
    # image slots 9, right 2 (marsh); None slots 11, right 2 + 2 + 2 = 6
    # Jaccard: marsh 1, birds 0, bikes 0, bread 0, scooters {1,2} = {1,2} -> 1 => 2/5; IF 3/5
    metrics = run_mdocsum("demo", tmp_path / "run", predictions=predictions)
    assert metrics["n_docs"] == 5
    assert metrics["omatch"] == pytest.approx(8 / 20)
    assert metrics["imgacc"] == pytest.approx(2 / 9)
    assert metrics["nonacc"] == pytest.approx(6 / 11)
    assert metrics["jacsim"] == pytest.approx(0.4)
    assert metrics["is"] == pytest.approx(0.4)
    assert metrics["if"] == pytest.approx(0.6)
    assert metrics["ts"] is None and metrics["total"] is None and metrics["com"] is None
    assert metrics["rouge"]["rouge1"] is not None and 0 < metrics["rouge"]["rouge1"] < 1
    assert metrics["missing_predictions"] == ["bread"]
    assert {"id": "unknown-paper", "line": None, "reason": "prediction for an id that is not in the split"} in metrics["skipped"]
    assert any("no judge configured" in note for note in metrics["notes"])
    by_id = {row["id"]: row for row in metrics["documents"]}
    assert by_id["bikes"]["problems"][0] == "no JSON in the answer"
    assert by_id["birds"]["n_images"] == 3 and by_id["bread"]["n_images"] == 1
    # everything is written, atomically, beside each other
    written = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert written["omatch"] == metrics["omatch"]
    assert (tmp_path / "run" / "report.md").read_text().count("| marsh |") == 1
    assert "data:image/png;base64," in (tmp_path / "run" / "report.html").read_text()


def test_bad_split_lines_and_documents_are_skipped_with_reasons(tmp_path, predictions):
    split = tmp_path / "split"
    shutil.copytree(splits.DEMO_ROOT / "docs", split / "docs")
    lines = (splits.DEMO_ROOT / "mdocsum.jsonl").read_text().splitlines()
    marsh = json.loads(lines[0])
    broken_gold = dict(json.loads(lines[1]))
    broken_gold["gold"] = broken_gold["gold"][:3]
    missing_doc = dict(marsh, id="ghost", document="docs/ghost.pdf")
    too_many = dict(json.loads(lines[3]), id="bread")
    too_many["gold"][0]["image"]["imageRef"] = "5"  # bread has one image
    given_count = dict(marsh, id="counted", document="docs/nowhere.md", n_images=2, n_tokens=1200)
    (split / "docs" / "broken.pdf").write_bytes(b"%PDF-1.7 this is not really a PDF")
    corrupt = dict(marsh, id="broken", document="docs/broken.pdf")
    rows = [json.dumps(marsh), "{oops", json.dumps(broken_gold), json.dumps(missing_doc), json.dumps(too_many),
            json.dumps(given_count), json.dumps(marsh), json.dumps(corrupt)]
    (split / "mdocsum.jsonl").write_text("\n".join(rows) + "\n")
    shutil.copy(predictions / "marsh.json", predictions / "counted.json")
    shutil.copy(predictions / "marsh.json", predictions / "bread.json")
    shutil.copy(predictions / "marsh.json", predictions / "broken.json")
    metrics = run_mdocsum(split, tmp_path / "run", predictions=predictions)
    reasons = {(s["line"], s["id"]): s["reason"] for s in metrics["skipped"]}
    assert reasons[(2, None)].startswith("malformed JSON")
    assert reasons[(3, "birds")] == "unusable gold: gold must be a list of 4 paragraphs"
    assert "document is missing" in reasons[(4, "ghost")]
    assert reasons[(5, "bread")] == "gold refers to image 5 but the document has 1 images"
    assert reasons[(7, "marsh")].startswith("duplicate id")
    assert reasons[(8, "broken")].startswith("image count unknown: the document could not be read (")
    # the document is missing but the split gives its image count: it is scored
    assert {row["id"] for row in metrics["documents"]} == {"marsh", "counted"}
    assert metrics["omatch"] == 1.0 and metrics["n_docs"] == 2
    assert metrics["by_length"][0]["bucket"] == "0–5k"


def test_scoring_again_reads_the_cached_document_statistics(tmp_path, predictions):
    first = run_mdocsum("demo", tmp_path / "run", predictions=predictions)
    assert len(list((tmp_path / "run" / "documents").glob("*.json"))) == 5
    second = run_mdocsum("demo", tmp_path / "run", predictions=predictions)
    assert second["omatch"] == first["omatch"] and second["by_image_count"] == first["by_image_count"]
    assert [b["bucket"] for b in second["by_image_count"]] == ["1–3"]
