"""The extractive summary's length per role (issue 45 point 4): chosen on the dev halves by
tools/fit_role_lengths.py, shipped in summarize/role_lengths.json with its provenance, checked on load."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.schemas.summary import ROLES
from mmdocsum_desktop.summarize.extractive import (
    ROLE_LENGTHS_FILE,
    ROLE_TARGETS,
    SUMMARY_ROLE_TARGETS,
    Extractor,
    parse_role_targets,
)


def test_the_shipped_lengths_say_where_they_come_from():
    data = json.loads(ROLE_LENGTHS_FILE.read_text(encoding="utf-8"))
    assert parse_role_targets(data) == SUMMARY_ROLE_TARGETS
    provenance = data["provenance"]
    assert provenance["fitted_by"] == "tools/fit_role_lengths.py"
    assert provenance["report"] == "tools/role_lengths_fit.json"
    assert provenance["chosen"]["targets"] == SUMMARY_ROLE_TARGETS
    # chosen on the dev halves, measured against today's lengths in the same fit
    assert provenance["chosen"]["score"] >= provenance["today"]["score"]


def test_the_summary_uses_them_and_a_writer_keeps_its_own():
    assert Extractor(embedder=None).role_targets == SUMMARY_ROLE_TARGETS  # type: ignore[arg-type]
    assert set(ROLE_TARGETS) == set(ROLES)


@pytest.mark.parametrize("data, problem", [
    ({"role_targets": {"background": 60, "method": 20, "results": 50}}, "expected a 'role_targets'"),
    ({"role_targets": {"background": 60, "method": 5, "results": 50, "conclusion": 70}}, "'method'"),
    ({"role_targets": {"background": 60, "method": 20.5, "results": 50, "conclusion": 70}}, "'method'"),
    ({"role_targets": {"background": True, "method": 20, "results": 50, "conclusion": 70}}, "'background'"),
    ([1, 2], "expected a 'role_targets'"),
])
def test_a_bad_lengths_file_names_its_problem(data, problem):
    with pytest.raises(ValueError, match=problem):
        parse_role_targets(data, "role_lengths.json")
