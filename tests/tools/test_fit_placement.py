"""tools/fit_placement.py, the script that fits the shipped placement/weights.json, refits on the committed
PDF + JATS pairs (tests/data/papers: the JATS gives the gold) and writes a file the app loads, shaped
like the shipped one and carrying its provenance; the shipped file names that script."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from mmdocsum_desktop.bench.pairs_gold import read_gold
from mmdocsum_desktop.placement.weights import DEFAULT_WEIGHTS, load_weights
from tests.conftest import DATA_PAPERS, REPO_ROOT
from tools import fit_placement

TOOL = REPO_ROOT / "tools" / "fit_placement.py"
# what a fit must say about itself: the loader's three, and how it was chosen, on which commit, what it
# kept out of the fit
PROVENANCE = ("script", "fitted_at", "fitted_on", "selection", "git_commit", "test_sets_not_used")
SHIPPED_CONFIG = "6"  # CONFIGS[6]: word evidence + sections + paragraph head, L2 0.3 (issue 27's; it writes a head)


@pytest.fixture(scope="module")
def refit(tmp_path_factory):
    work = tmp_path_factory.mktemp("fit")
    out = work / "weights.json"
    shipped_before = DEFAULT_WEIGHTS.read_bytes()
    result = subprocess.run(
        [sys.executable, str(TOOL), "--pairs", str(DATA_PAPERS), "--configs", SHIPPED_CONFIG, "--write-weights",
         "--weights-out", str(out), "--work", str(work / "cache"), "--results", str(work / "results")],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=1200,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert DEFAULT_WEIGHTS.read_bytes() == shipped_before, "a refit with --weights-out left the package's file alone"
    return json.loads(out.read_text(encoding="utf-8")), out, work


@pytest.mark.slow
def test_a_refit_on_the_committed_pairs_is_a_model_the_app_loads(refit):
    data, out, _ = refit
    shipped = json.loads(DEFAULT_WEIGHTS.read_text(encoding="utf-8"))
    assert set(data) == set(shipped)
    loaded = load_weights(out)  # the app's own checks
    assert set(loaded.sequence) == {"ce", "no_ce"}
    assert loaded.paragraph_head is not None and len(loaded.paragraph_head.weights) == 384
    # refitted, not copied: the sequence model and the head come from these three papers
    assert data["sequence"]["no_ce"]["weights"] != shipped["sequence"]["no_ce"]["weights"]
    assert data["paragraph_head"] != shipped["paragraph_head"]  # the shipped file has none since issue 39
    # the profiles the sequence stage does not read are kept as shipped
    for key, profile in shipped["profiles"].items():
        if key != shipped["sequence_profile"]:
            assert data["profiles"][key] == profile


@pytest.mark.slow
def test_the_refit_says_what_it_was_fitted_on_by_which_script_at_which_commit(refit):
    provenance = refit[0]["provenance"]
    for key in PROVENANCE:
        assert str(provenance[key]).strip(), key
    assert provenance["script"] == "tools/fit_placement.py --write-weights --pairs tests/data/papers"
    assert provenance["fit_papers"] == [f"pmc/{p.stem}" for p in sorted(DATA_PAPERS.glob("PMC*.xml"))]
    assert "tests/data/papers (3 papers" in provenance["fitted_on"]
    head = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert provenance["git_commit"] == head.stdout.strip()
    assert isinstance(provenance["git_dirty"], bool)
    assert len(provenance["fit_data_sha256"]) == 64 and int(provenance["fit_data_sha256"], 16) >= 0


@pytest.mark.slow
def test_the_refit_writes_its_scores_where_it_is_told(refit):
    _, _, work = refit
    result = json.loads((work / "results" / "placement_relevance.json").read_text(encoding="utf-8"))
    assert result["fit_items"] == {"pmc_dev": 3, "elife_dev": 0, "multilingual": 0}  # --pairs: that folder only
    assert result["fit_data_sha256"] == refit[0]["provenance"]["fit_data_sha256"]
    assert result["held_out_items"] == {}  # --pairs holds nothing out


def test_the_shipped_weights_name_the_tool_that_fits_them():
    provenance = load_weights().provenance
    for key in PROVENANCE:
        assert str(provenance[key]).strip(), key
    script, *flags = provenance["script"].split()
    assert script == "tools/fit_placement.py" and (REPO_ROOT / script).is_file()
    assert "--write-weights" in flags


@pytest.mark.corpus
def test_a_multilingual_article_keeps_its_unlabeled_figures_keyed_as_its_gold(corpus):
    """SciELO's XML often carries "Figura 1" only in the caption text: such a figure stays in the fit pool
    under its id, and the paragraphs that first cite it point at that key."""
    xml = corpus / "multilingual" / "jats" / "scielo-ext-link-type-uri.xml"
    item = fit_placement.multilingual_item(xml)
    assert item is not None and item.source == "multilingual"
    gold = read_gold(xml)
    unlabeled = {v.id.lower() for v in gold.figures if not v.label and v.caption.strip()}
    assert unlabeled and unlabeled <= set(item.keys)
    assert all(c.label is None for c, key in zip(item.candidates, item.keys) if key in unlabeled)
    # gold keys are in the pool's key space (a cited figure without a caption is not in the pool: a slot
    # no model can fill, as in the other sources)
    cited = {g for g in item.gold if g}
    assert cited & unlabeled
    assert cited <= {(v.label or v.id).lower() for v in gold.visuals}
    assert len(item.paragraphs) == len(item.sections) == len(item.gold) == len(gold.paragraphs)


def test_the_regularisation_sweep_changes_only_the_penalty():
    """The L2 variants appended for issue 39's leave-one-source-out are the feature set chosen then
    (word evidence + sections, CONFIGS[3]) with another penalty; the indices before them keep their meaning."""
    base = fit_placement.CONFIGS[3]
    sweep = [c for c in fit_placement.CONFIGS[9:] if c.name.startswith("+ word evidence + sections, L2")]
    assert [c.l2 for c in sweep] == [0.1, 3.0, 10.0, 30.0]
    for config in sweep:
        assert (config.signals, config.sequence, config.head) == (base.signals, base.sequence, False)
    assert fit_placement.CONFIGS[6].head and fit_placement.CONFIGS[6].l2 == 0.3


def _problem(source: str, figures: int, gold: list[str | None]) -> fit_placement.Arrays:
    keys = [f"figure {k + 1}" for k in range(figures)]
    return fit_placement.Arrays(f"{source}-{figures}", source, {}, np.ones(len(gold), dtype=bool), [], [], [], {}, [],
                                gold, keys)


def test_weighing_by_source_gives_every_family_the_same_total_and_keeps_the_mean_weight():
    """eLife's many figures must not outweigh pmc's publishers and the multilingual articles; pmc's
    publisher groups of the leave-one-source-out folds count as one family, as in the final fit."""
    arrays = [_problem("elife", 30, [None]), _problem("elife", 10, [None]), _problem("plos", 4, [None]),
              _problem("bmc", 6, [None]), _problem("multilingual", 2, [None])]
    weights = fit_placement.source_weights(arrays)
    assert set(weights) == {"elife", "pmc", "multilingual"}
    totals = {"elife": 40 * weights["elife"], "pmc": 10 * weights["pmc"], "multilingual": 2 * weights["multilingual"]}
    assert max(totals.values()) == pytest.approx(min(totals.values()))
    assert sum(totals.values()) == pytest.approx(52)  # the mean weight of a figure stays 1


def test_tuning_by_source_scores_the_mean_of_the_families_not_the_pooled_slots():
    # eLife: 9 image slots, all right; pmc: 1 image slot, missed
    elife = _problem("elife", 9, [f"figure {k + 1}" for k in range(9)])
    pmc = _problem("hindawi", 1, ["figure 1", None])
    choices = [list(range(9)), [None, None]]
    pooled = fit_placement.tuning_score([elife, pmc], choices, by_source=False)
    balanced = fit_placement.tuning_score([elife, pmc], choices, by_source=True)
    assert pooled["acc_i"] == pytest.approx(0.9)
    assert balanced["acc_i"] == pytest.approx(0.5)
    assert balanced["acc_ni"] == pytest.approx(1.0)
