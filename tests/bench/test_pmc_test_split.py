"""The bundled real-paper splits (``pmc-test``, ``elife-digests``): only test-half papers under CC BY or
CC0, every structured-abstract paper of the test half in, gold that fits the app's own reading of the
PDFs, and every suite able to load them; a run's report names the papers and their licences."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mmdocsum_desktop.bench import report, splits
from mmdocsum_desktop.bench.pairs_gold import read_gold
from mmdocsum_desktop.bench.pairs_split import split_of
from mmdocsum_desktop.bench.split_assets import paper_reading
from mmdocsum_desktop.bench.suites.mdocsum import run_mdocsum
from mmdocsum_desktop.errors import BenchError, InputNotFoundError
from tests.conftest import REPO_ROOT, model_dirs_in

# the split as the app finds it: its papers are committed beside it
PMC = splits.bundled("pmc-test").folder
ELIFE = splits.BUNDLED["elife-digests"].folder


def _tool():
    spec = importlib.util.spec_from_file_location("build_pmc_test_split", REPO_ROOT / "tools" / "build_pmc_test_split.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module", autouse=True)
def _own_cache(tmp_path_factory):
    """Readings and cut images in a temporary cache, never the user's."""
    with model_dirs_in(tmp_path_factory.mktemp("pmc-split-cache")):
        yield


def _papers(folder: Path) -> list[dict]:
    return json.loads((folder / "papers.json").read_text(encoding="utf-8"))["papers"]


def test_only_test_half_papers_under_open_licences_within_the_budget():
    tool = _tool()
    papers = _papers(PMC)
    assert 12 <= len(papers) <= 20
    for paper in papers:
        assert split_of(paper["id"]) == "test", paper["id"]
        assert paper["licence"] in ("CC BY", "CC0"), paper["id"]
        tool.check_licence(paper, paper["id"])  # the JATS statement, as stored, says CC BY or CC0
        if paper["licence_url"]:
            assert re.search(r"creativecommons\.org/(licenses/by/|publicdomain/zero/)", paper["licence_url"]), paper["id"]
        assert paper["title"] and paper["authors"] and paper["journal"], paper["id"]
        for suffix in (".pdf", ".xml"):
            assert (PMC / "papers" / f"{paper['id']}{suffix}").is_file()
    # the papers are committed, each PDF and JATS, and nothing the attribution does not name
    tracked = subprocess.run(["git", "ls-files", "papers"], cwd=PMC, capture_output=True, text=True)
    assert tracked.returncode == 0
    assert set(tracked.stdout.split()) == {f"papers/{p['id']}{suffix}" for p in papers for suffix in (".pdf", ".xml")}
    assert not any(path.is_symlink() for path in (PMC / "papers").iterdir())
    stored = {p.stem for p in (PMC / "papers").iterdir()}
    assert stored == {p["id"] for p in papers}
    size = sum(p.stat().st_size for p in PMC.rglob("*") if p.is_file())
    assert size <= tool.SIZE_BUDGET_BYTES
    attribution = (PMC / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert all(p["id"] in attribution and (p["doi"] or "") in attribution for p in papers)


def test_the_committed_splits_are_what_the_tool_builds_from_their_papers(capsys):
    # from a clone: gold, papers.json and ATTRIBUTION.md rebuilt from the committed papers, licences checked
    assert _tool().main(["--check"]) == 0, capsys.readouterr().err


def test_the_corpus_chooses_the_committed_papers_byte_for_byte(corpus, capsys):
    assert _tool().main(["--check", "--corpus", str(corpus)]) == 0, capsys.readouterr().err


def test_a_missing_paper_is_named(tmp_path):
    split = tmp_path / "pmc-test"
    shutil.copytree(PMC, split)
    first = _papers(PMC)[0]["id"]
    (split / "papers" / f"{first}.xml").unlink()
    with pytest.raises(BenchError, match=rf"lacks 1 paper file\(s\) \({re.escape(first)}\.xml"):
        splits.provide_pmc_papers(split)


def test_every_structured_abstract_of_the_test_half_is_bundled(corpus):
    tool = _tool()
    structured = {
        xml.stem for xml in (corpus / "pmc").glob("*.xml")
        if split_of(xml.stem) == "test" and tool.structured_roles(read_gold(xml))
    }
    assert len(structured) == 8
    assert {p["id"] for p in _papers(PMC) if p["structured_abstract"]} == structured
    for paper in _papers(PMC):  # redistributed unchanged
        for suffix in (".pdf", ".xml"):
            bundled = (PMC / "papers" / f"{paper['id']}{suffix}").read_bytes()
            assert bundled == (corpus / "pmc" / f"{paper['id']}{suffix}").read_bytes(), paper["id"]


def test_the_build_refuses_a_dev_paper_and_a_non_cc_by_licence(corpus, tmp_path, monkeypatch):
    tool = _tool()
    dev = next(x.stem for x in sorted((corpus / "pmc").glob("*.xml")) if split_of(x.stem) == "dev")
    monkeypatch.setattr(tool, "EXTRA_PAPERS", (*tool.EXTRA_PAPERS, dev))
    with pytest.raises(tool.BuildError, match="dev paper"):
        tool.corpus_papers(corpus)
    info = {"licence": "CC BY", "licence_url": "http://creativecommons.org/licenses/by-nc/4.0/",
            "licence_statement": "Creative Commons Attribution-NonCommercial"}
    with pytest.raises(tool.BuildError, match="not CC BY"):
        tool.check_licence(info, "x")


@pytest.mark.slow  # reads the papers' PDFs (cached per module)
def test_mdocsum_gold_is_numbered_as_the_app_reads_the_papers():
    loaded = splits.load_mdocsum("pmc-test")
    assert loaded.name == "pmc-test" and not loaded.skipped and loaded.no_abstract
    assert len(loaded.items) == 8
    lines = {json.loads(line)["id"]: json.loads(line) for line in (PMC / "mdocsum.jsonl").read_text().splitlines()}
    gold_images = 0
    for item in loaded.items:
        reading = paper_reading(item.document)
        assert item.n_images == len(reading.visuals)
        for gold, role in zip(item.gold, lines[item.id]["roles"]):
            if role["image_label"] is None:
                assert gold.image is None
            else:
                gold_images += 1
                assert reading.visuals[gold.image - 1].label == role["image_label"]
        assert sum(1 for g in item.gold if g.summary) >= 3
    assert gold_images >= 8


@pytest.mark.slow  # reads the papers' PDFs (cached per module)
def test_mcite_questions_have_one_figure_or_table_as_answer_with_its_image():
    loaded = splits.load_mcite("pmc-test")
    assert len(loaded.items) >= 30 and not loaded.skipped
    raw = [json.loads(line) for line in (PMC / "mcite.jsonl").read_text().splitlines()]
    assert all(r["generated"] for r in raw) and any("generated" in note for note in loaded.notes)
    for record in loaded.items:
        assert len(record.gold) == 1 and re.fullmatch(r"(Figure|Table) \d+", record.gold[0])
        source = record.sources[record.gold[0]]
        assert source.image is not None and source.image.is_file()
        assert record.question.startswith("Which figure or table")


@pytest.mark.slow  # reads the papers' PDFs (cached per module)
def test_ftii_gold_is_the_first_citing_paragraph_with_the_apps_crops():
    data, root, captions = splits.bundled_ftii("pmc-test")
    articles = splits.load_flow_insertion(data)
    notes = json.loads(captions.read_text())
    assert len(articles) == len(_papers(PMC))
    for article in articles:
        gold = read_gold(PMC / "papers" / f"{article.id}.xml")
        by_id = {v.id: v for v in gold.visuals}
        expected = [by_id[f].label for f, p in zip(gold.first_citations(("figure", "table")), gold.paragraphs)
                    if p.flow_text.strip() and f and by_id[f].label]
        placed = [g for g in article.groundtruth if g]
        assert len(placed) == len(expected), article.id  # every first citation kept: the app found each visual
        for path in article.pool:
            assert (root / path).is_file() and notes[path]["label"]
        assert not any(re.search(r"\(Fig(ure)?\.? ?\d", p) for p in article.content)


def test_elife_digests_are_test_half_jats_with_digest_references(corpus):
    loaded = splits.load_rouge("elife-digests")
    assert len(loaded.items) == 40 and not loaded.skipped
    for item in loaded.items:
        assert split_of(item.id) == "test"
        assert item.document.suffix == ".xml" and item.document.is_file()
        assert item.reference == read_gold(corpus / "elife" / f"{item.id}.xml").digest
    assert all(p["licence"] in ("CC BY", "CC0") for p in _papers(ELIFE))


def test_a_suite_a_bundled_split_does_not_serve_is_refused_clearly():
    with pytest.raises(InputNotFoundError, match="elife-digests has no mdocsum part"):
        splits.load_mdocsum("elife-digests")


@pytest.mark.slow  # reads the papers' PDFs (cached per module)
def test_mdocsum_report_scores_per_role_and_names_papers_and_licences(tmp_path):
    """Scored from given answers (each the gold paragraphs with the next role's image), so the numbers
    are known: text identical to the gold, images all shifted."""
    loaded = splits.load_mdocsum("pmc-test")
    answers = tmp_path / "answers"
    answers.mkdir()
    for item in loaded.items:
        answer = [{"summary": g.summary or "No results are reported.",
                   "image": {"imageRef": "None", "imageCaption": ""}} for g in item.gold]
        (answers / f"{item.id}.json").write_text(json.dumps(answer))
    metrics = run_mdocsum("pmc-test", tmp_path / "run", predictions=answers)
    assert metrics["n_docs"] == 8 and metrics["split"] == "pmc-test"
    assert metrics["omatch"] < 1.0 and metrics["nonacc"] == 1.0 and metrics["imgacc"] == 0.0
    by_role = metrics["rouge_by_role"]
    assert by_role["background"]["n_docs"] == 8 and by_role["results"]["n_docs"] == 6
    assert all(v["rouge1"] == pytest.approx(1.0) for v in by_role.values())
    assert any("without its abstract" in note for note in metrics["notes"])
    text = (tmp_path / "run" / "report.md").read_text()
    for paper in metrics["papers"]:
        assert paper["id"] in text and paper["licence"] == "CC BY"
    assert len(metrics["papers"]) == 8 and "ROUGE per role" in text
    assert report.load_metrics(tmp_path / "run")["papers"] == metrics["papers"]
