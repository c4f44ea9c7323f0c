"""A sample of tests/fuzz_cli.py (issue 28's hostile cases through the real command) in the suite:
four of the quick cases, drawn with a fixed seed, must come out clean. The whole generator, with the
slow cases and the before/after table, is the benchmark."""

from __future__ import annotations

import argparse
import json
import random

import pytest

from tests import fuzz_cli as FUZZ
from tests.conftest import REPO_ROOT

# the cases that end before a model or a server is involved: a few seconds each
QUICK = [c.name for c in FUZZ.cases() if c.timeout_s <= 90 and not c.server and not c.full_disk_kb
         and "summarize md with" not in c.name and "html" not in c.name]


@pytest.mark.slow
@pytest.mark.parametrize("name", random.Random(28).sample(QUICK, 4))
def test_a_sample_of_the_hostile_cases_is_clean(tmp_path, name):
    keyring = tmp_path / "keyring.json"
    keyring.write_text(json.dumps({"mmdocsum-desktop\0fuzz": FUZZ.KEY}))
    # run from a child of the generator script, as the benchmark does: its RUSAGE_CHILDREN is then this
    # case's peak alone (pytest's own children, a language model among them, would count otherwise)
    row = FUZZ._isolated(name, argparse.Namespace(code=REPO_ROOT), tmp_path)
    assert row["outcome"] == "clean", row
