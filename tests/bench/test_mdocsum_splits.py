"""Split loaders: the bundled demo splits are whole and consistent; official layouts load; bad lines are
skipped with their line number and reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmdocsum_desktop.bench import splits
from mmdocsum_desktop.bench.glue import document_stats
from mmdocsum_desktop.bench.splits import load_flow_insertion
from mmdocsum_desktop.errors import InputNotFoundError


def test_demo_splits_are_complete():
    loaded = splits.load_mdocsum("demo")
    assert [i.id for i in loaded.items] == ["marsh", "birds", "bikes", "bread", "scooters"] and not loaded.skipped
    kinds = {i.document.suffix for i in loaded.items}
    assert kinds == {".md", ".html", ".pdf"}
    for item in loaded.items:
        assert item.document.is_file()
        assert item.key_points and all(item.key_points)
        assert len(item.gold) == 4 and any(p.image for p in item.gold) and any(p.image is None for p in item.gold)
    rouge = splits.load_rouge("demo")
    assert len(rouge.items) == 5 and all(i.reference and i.document.is_file() for i in rouge.items)
    mcite = splits.load_mcite("demo")
    assert len(mcite.items) == 2 and not mcite.skipped
    assert mcite.items[0].gold == ["1", "Figure 1"] and mcite.items[1].gold == ["Figure 2"]


def test_demo_ftii_split_reads_with_the_placement_suite_loader():
    data, root, captions = splits.demo_ftii()
    articles = load_flow_insertion(data)
    assert [a.id for a in articles] == ["demo-garden", "demo-birds"]
    for article in articles:
        assert len(article.content) == len(article.groundtruth)
        assert all((root / path).is_file() for path in article.pool)
    assert set(json.loads(captions.read_text())) <= set(articles[0].pool)


def test_demo_gold_fits_the_documents():
    for item in splits.load_mdocsum("demo").items:
        n_images = document_stats(item.document)["n_images"]
        assert max(g for g in item.gold_refs if g) <= n_images, item.id


def test_loralay_layout(tmp_path):
    folder = tmp_path / "arxivlay"
    folder.mkdir()
    rows = [
        {"article_id": "0903.5449", "article_words": ["Light", "scintillations", "are", "studied", "."], "abstract": " The effect of a diffuser."},
        {"article_id": "1002.1288", "article_words": ["Words"], "abstract": ""},
        {"article_id": "0903.5449", "article_words": ["Again"], "abstract": "Duplicate."},
        {"article_id": "x", "abstract": "No body."},
    ]
    (folder / "test.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (folder / "train.jsonl").write_text("")
    loaded = splits.load_rouge(folder)
    assert loaded.path.name == "test.jsonl"
    assert [(i.id, i.text, i.reference) for i in loaded.items] == [
        ("0903.5449", "Light scintillations are studied .", "The effect of a diffuser.")
    ]
    reasons = [s.reason for s in loaded.skipped]
    assert reasons == ["no reference summary (abstract)", "duplicate id (the first is used)",
                       "no document, article_words or text to summarise"]


def test_mdocsum_aliases_and_folders(tmp_path):
    gold = [{"summary": "s", "image": {"imageRef": "None", "imageCaption": ""}}] * 4
    (tmp_path / "bench.jsonl").write_text(json.dumps({"paper_id": "p1", "pdf": "p1.pdf", "summary": gold, "n_images": 3}) + "\n")
    loaded = splits.load_mdocsum(tmp_path)
    item = loaded.items[0]
    assert item.id == "p1" and item.document == (tmp_path / "p1.pdf").resolve() and item.n_images == 3
    (tmp_path / "other.jsonl").write_text("")
    with pytest.raises(InputNotFoundError, match="expected one of"):
        splits.load_mdocsum(tmp_path)


def test_missing_split():
    with pytest.raises(InputNotFoundError, match="no such split"):
        splits.resolve(Path("/nonexistent/split.jsonl"), "mdocsum")


def test_gold_images_by_label_are_numbered_as_the_app_reads_the_document(tmp_path):
    """A split may name each role's gold image by its label; the loader numbers it as the summaries
    pipeline does, and refuses a line whose label the app does not find in the document."""
    import shutil

    from tests.conftest import model_dirs_in

    paper = splits.bundled("pmc-test").folder / "papers" / "PMC8052020.pdf"  # one figure: Figure 1
    shutil.copyfile(paper, tmp_path / "paper.pdf")

    def line(doc_id, label):
        roles = [{"summary": f"role {k}", "image_label": label if k == 1 else None} for k in range(4)]
        return json.dumps({"id": doc_id, "document": "paper.pdf", "roles": roles, "gold_from": "abstract"})

    (tmp_path / "split.jsonl").write_text(line("ok", "Figure 1") + "\n" + line("bad", "Figure 9") + "\n")
    with model_dirs_in(tmp_path / "dirs"):
        loaded = splits.load_mdocsum(tmp_path / "split.jsonl")
    assert [i.id for i in loaded.items] == ["ok"] and loaded.no_abstract
    assert loaded.items[0].gold_refs == [None, 1, None, None] and loaded.items[0].n_images == 1
    assert [(s.id, s.reason) for s in loaded.skipped] == [("bad", "unusable gold: the app does not find Figure 9 in paper.pdf")]
