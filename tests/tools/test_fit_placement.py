"""tools/fit_placement.py, the script that fits the shipped placement/weights.json, refits on the committed
PDF + JATS pairs (tests/data/papers: the JATS gives the gold) and writes a file the app loads, shaped
like the shipped one and carrying its provenance; the shipped file names that script."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mmdocsum_desktop.placement.weights import DEFAULT_WEIGHTS, load_weights
from tests.conftest import DATA_PAPERS, REPO_ROOT

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
    assert result["fit_items"] == {"pmc_dev": 3, "elife_dev": 0}
    assert result["fit_data_sha256"] == refit[0]["provenance"]["fit_data_sha256"]
    assert result["held_out_items"] == {}  # --pairs holds nothing out


def test_the_shipped_weights_name_the_tool_that_fits_them():
    provenance = load_weights().provenance
    for key in PROVENANCE:
        assert str(provenance[key]).strip(), key
    script, *flags = provenance["script"].split()
    assert script == "tools/fit_placement.py" and (REPO_ROOT / script).is_file()
    assert "--write-weights" in flags
