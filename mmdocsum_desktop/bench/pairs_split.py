"""The fixed dev/test split of PDF + JATS pair folders (``../shared/corpus/pmc`` and any user folder).

A pair is ``NAME.pdf`` beside ``NAME.xml``; its split depends only on ``NAME`` (the PMCID, or the file
stem for the few publisher files named after their DOI): the first 8 hex digits of the sha256 of the
stem, modulo 100, below 60 → dev, else test. The constants are written here so the split never changes
when files are added or removed, and anything fitted or tuned on pairs (thresholds, cue lists, weights)
is fitted on ``dev`` only while numbers are reported on ``test``. On the 104 pairs of ``pmc/`` this
gives 63 dev and 41 test.

JATS-only folders (eLife) are split the same way by file stem.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SplitName = Literal["dev", "test"]

# Written into the suite on purpose: changing either constant reshuffles every paper between halves.
SPLIT_HASH_HEX_DIGITS = 8
SPLIT_DEV_PERCENT = 60


def split_of(name: str) -> SplitName:
    """``"dev"`` or ``"test"`` for a pair named ``name`` (a PMCID, a file stem, or a path to either file)."""
    stem = Path(name).stem if name.endswith((".pdf", ".xml", ".nxml")) else name
    digest = hashlib.sha256(stem.encode("utf-8")).hexdigest()[:SPLIT_HASH_HEX_DIGITS]
    return "dev" if int(digest, 16) % 100 < SPLIT_DEV_PERCENT else "test"


@dataclass(frozen=True)
class PairFiles:
    """One item of a pair folder: the JATS file, and the PDF of the same article when there is one."""

    name: str
    xml: Path
    pdf: Path | None

    @property
    def split(self) -> SplitName:
        return split_of(self.name)


def pairs_in(folder: str | Path, split: str = "all") -> list[PairFiles]:
    """Every ``NAME.xml`` / ``NAME.nxml`` in ``folder`` with its ``NAME.pdf`` if present, sorted by name.

    ``split`` is ``"dev"``, ``"test"`` or ``"all"``. An XML without a PDF is kept (JATS-only item, as in
    eLife); a PDF without an XML is not a pair and is left out.
    """
    if split not in ("dev", "test", "all"):
        raise ValueError(f"split must be dev, test or all, not {split!r}")
    root = Path(folder)
    found: dict[str, PairFiles] = {}
    for xml in sorted([*root.glob("*.xml"), *root.glob("*.nxml")]):
        if xml.stem in found:
            continue
        pdf = xml.with_suffix(".pdf")
        found[xml.stem] = PairFiles(name=xml.stem, xml=xml, pdf=pdf if pdf.is_file() else None)
    items = [found[name] for name in sorted(found)]
    if split == "all":
        return items
    return [item for item in items if item.split == split]
