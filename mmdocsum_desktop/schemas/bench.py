"""The data of the benchmarks, in one module: what a split holds (items), what a model answered as the
metrics see it, and :class:`BenchmarkResult` — one run's typed metrics and per-item rows.

Loaders (``bench/splits.py``) build the items, metrics (``bench/metrics/``) read them, suites
(``bench/suites/``) carry them from one to the other; none of them imports another to share a type.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mmdocsum_desktop.errors import MmdocsumError

# A slot whose reference is present but unusable ("abc", 0, 1.5): never equal to any gold value.
INVALID = "invalid"
# A paragraph the answer does not have (answer too short, or unparseable).
MISSING = "missing"


# ---------------------------------------------------------------------------------------------- M-DocSum


@dataclass(frozen=True)
class GoldParagraph:
    summary: str
    image: int | None
    caption: str = ""


@dataclass
class MDocSumItem:
    """One line of an M-DocSum split."""

    id: str
    document: Path | None
    gold: list[GoldParagraph]
    key_points: list[list[str]] | None = None
    n_images: int | None = None  # from the split record when given, otherwise counted from the document
    n_tokens: int | None = None
    line: int = 0

    @property
    def gold_refs(self) -> list[int | None]:
        return [paragraph.image for paragraph in self.gold]


@dataclass
class PredParagraph:
    summary: str
    image: int | None | str  # an int as given, None, or INVALID
    caption: str = ""
    has_image_field: bool = True


@dataclass
class ParsedAnswer:
    """An answer as the model gave it: ``parsed`` False means nothing usable could be read."""

    parsed: bool
    paragraphs: list[PredParagraph] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    parser_follows_instructions: bool | None = None


@dataclass
class DocScore:
    id: str
    parsed: bool
    follows_rules: bool
    gold: list[int | None]
    predicted: list[int | None | str]  # four slots as scored: int, None, INVALID or MISSING
    correct: list[bool]
    jaccard: float
    problems: list[str] = field(default_factory=list)
    strict_if: bool | None = None  # the summaries parser's flag: no format issue forgiven at all

    @property
    def if_score(self) -> int:
        return int(self.parsed and self.follows_rules)

    def to_dict(self) -> dict[str, Any]:
        """The document's row of ``metrics.json``: every field, and ``if`` (its instruction-following score)."""
        data = asdict(self)
        data["if"] = self.if_score
        return data


@dataclass
class JudgeScore:
    """Judge results for one document (per paragraph: covered/total key points, correct/total sentences)."""

    com: float | None = None
    acc: float | None = None
    com_by_paragraph: list[float | None] = field(default_factory=list)
    acc_by_paragraph: list[float | None] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------- MCiteBench


@dataclass
class Source:
    id: str  # "1", "Figure 3", "Table 2"
    kind: str  # "text", "figure" or "table"
    text: str | None = None
    image: Path | None = None


@dataclass
class MCiteRecord:
    id: str
    pdf_id: str
    question_type: str
    question: str
    answer: str
    evidence_count: int
    evidence_modal: str
    gold: list[str]
    sources: dict[str, Source]
    order: list[str]  # source ids in the order they are shown to the model
    missing: list[str] = field(default_factory=list)  # image sources whose files are absent
    line: int = 0

    @property
    def category(self) -> str:
        kind = self.question_type.lower() or "unknown"
        return f"{kind}_{'single' if self.evidence_count <= 1 else 'multi'}"


# ------------------------------------------------------------------------------------------ LoRaLay ROUGE


@dataclass
class RougeItem:
    id: str
    reference: str
    document: Path | None = None  # summarise this file (abstract removed) ...
    text: str | None = None  # ... or this text (LoRaLay's article_words joined)
    line: int = 0


# ---------------------------------------------------------------------------------------------- FTII-Bench


class BenchDataError(MmdocsumError):
    """A benchmark data or predictions file that does not have the expected shape."""


@dataclass
class FtiiArticle:
    id: str
    content: list[str]
    groundtruth: list[str]
    pool: list[str]


@dataclass
class FtiiMetrics:
    acc_b: float | None
    acc_i: float | None
    acc_ni: float | None
    n_slots: int
    n_image_slots: int = 0
    n_none_slots: int = 0
    correct: int = 0
    correct_image: int = 0
    correct_none: int = 0

    def metrics(self) -> dict[str, Any]:
        """The four numbers ``metrics.json`` holds (the counts behind them are in :meth:`to_dict`)."""
        return {"acc_b": self.acc_b, "acc_i": self.acc_i, "acc_ni": self.acc_ni, "n_slots": self.n_slots}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SingleChoiceItem:
    above: str
    below: str
    options: list[str]  # image paths relative to the images root, or base64 image data
    answer: int  # 0-based index into options


# -------------------------------------------------------------------------------------------- the result

MetricValue = float | int | None

# The overall numbers each suite writes at the top level of ``metrics.json`` (None: not measured, e.g.
# no judge); anything else at the top level is a detail (breakdowns, settings, timings, notes).
METRIC_KEYS: dict[str, tuple[str, ...]] = {
    "mdocsum": (
        "n_docs",
        "n_slots",
        "if",
        "if_strict",
        "omatch",
        "imgacc",
        "nonacc",
        "jacsim",
        "is",
        "com",
        "acc",
        "ts",
        "total",
        "n_judged",
    ),
    "mcite": (
        "n_records",
        "n_uncited",
        "source_f1",
        "source_em",
        "citation_f1",
        "citation_recall",
        "citation_precision",
        "answer_accuracy",
        "n_judged_citations",
        "n_judged_answers",
    ),
    "rouge": ("rouge1", "rouge2", "rougeL", "rougeL_sentence", "n_docs"),
    "ftii": ("acc_b", "acc_i", "acc_ni", "n_slots"),
    "judge": (
        "text_quality",
        "text_image_coherence",
        "image_choice",
        "faithfulness",
        "helpfulness",
        "overall",
        "n_docs",
        "seconds_per_document",
    ),
}
# Where each suite keeps its per-item rows in ``metrics.json``.
ROWS_KEY: dict[str, str] = {
    "mdocsum": "documents",
    "mcite": "records",
    "rouge": "documents",
    "judge": "documents",
}


def _check_metric(key: str, value: Any) -> MetricValue:
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        if isinstance(value, float) and math.isnan(value):
            raise ValueError(f"metric {key!r} is NaN; an unmeasured metric is None")
        return value
    raise TypeError(f"metric {key!r} must be a number or None, not {type(value).__name__}")


@dataclass
class BenchmarkResult:
    """One run of a suite: what ``metrics.json`` holds, with the overall numbers typed.

    ``metrics`` are the suite's overall numbers (:data:`METRIC_KEYS`), each a number or None (absent,
    never replaced by anything else); ``rows`` the per-item rows (a document, a question) under
    :data:`ROWS_KEY`; ``details``
    everything else a report shows. :meth:`to_dict` gives the same flat JSON the reports, ``bench
    compare`` and older runs use, and :meth:`from_dict` reads it back unchanged.
    """

    suite: str
    split: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, MetricValue] = field(default_factory=dict)
    rows: list[dict[str, Any]] | None = None  # None: this run has no per-item rows
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for key, value in self.metrics.items():
            _check_metric(key, value)

    @property
    def rows_key(self) -> str:
        return ROWS_KEY.get(self.suite, "documents")

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"suite": self.suite}
        if self.split is not None:
            data["split"] = self.split
        if self.settings:
            data["settings"] = self.settings
        data.update(self.metrics)
        if self.rows is not None:
            data[self.rows_key] = self.rows
        data.update(self.details)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchmarkResult:
        suite = str(data.get("suite") or ("ftii" if "acc_b" in data or "acc_i" in data else "unknown"))
        declared = METRIC_KEYS.get(suite, ())
        rows_key = ROWS_KEY.get(suite)
        metrics: dict[str, MetricValue] = {}
        details: dict[str, Any] = {}
        for key, value in data.items():
            if key in ("suite", "split", "settings") or key == rows_key:
                continue
            is_number = isinstance(value, int | float) and not isinstance(value, bool)
            if key in declared and (value is None or is_number):
                metrics[key] = value
            else:
                details[key] = value
        rows = data.get(rows_key) if rows_key else None
        return cls(
            suite=suite,
            split=data.get("split"),
            settings=dict(data.get("settings") or {}),
            metrics=metrics,
            rows=list(rows) if isinstance(rows, list) else None,
            details=details,
        )
