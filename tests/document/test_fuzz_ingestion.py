"""Bounded fuzzing of PDF ingestion with mutated real PDFs: the only way out is a Document or a
user-facing MmdocsumError (the long run is tests/fuzz_ingestion.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mmdocsum_desktop.document.mutate import mutate
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.errors import MmdocsumError
from tests.conftest import DATA_PAPERS

# Three publishers' PDFs of 5-8 pages: figures, tables, two columns, math set in a symbol font
SEEDS = ["PMC4736972.pdf", "PMC2803133.pdf", "pymupdf_test_3780.pdf"]
ORIGINALS = {name: (DATA_PAPERS / name).read_bytes() for name in SEEDS}


@pytest.mark.slow  # 40 mutated PDFs read in turn
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(SEEDS), seed=st.integers(0, 2**32 - 1), rounds=st.integers(1, 6))
def test_mutated_pdfs_read_or_fail_cleanly(tmp_path, name, seed, rounds):
    path = tmp_path / f"mutant_{seed}.pdf"
    path.write_bytes(mutate(ORIGINALS[name], random.Random(seed), rounds))
    try:
        document = read_document(path)
    except MmdocsumError as error:
        assert str(error) and "\n" not in str(error)
        return
    export_document(document, tmp_path / f"out_{seed}", dpi=50)
    assert (tmp_path / f"out_{seed}" / "document.json").is_file()


def test_mutation_changes_the_bytes_reproducibly():
    data = ORIGINALS[SEEDS[0]]
    first = mutate(data, random.Random(7), 3)
    assert first == mutate(data, random.Random(7), 3)
    assert first != data
