"""What a language model is fit for: writing summaries, judging them, answering questions about a paper.

A model the registry knows carries its verdicts in its manifest's ``[fitness]`` table, from measurements
(``benchmarks/bench_judge_damage.py``: does the judge score a damaged summary lower than the original?).
Any other GGUF is judged from its size: its parameter count read from the file name ("…-135M-…",
"…-1.5B-…") or estimated from the file size at about 4.5 bits per weight. Small models produce fluent
nonsense with confidence; the app says so before a run and marks what they wrote (issue 17).

Qt-free: the GUI, the CLI and the reports ask the same questions here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mmdocsum_desktop.models import registry

Use = Literal["summary_writer", "judge", "answerer"]
Verdict = Literal["fit", "weak", "unfit", "unknown"]
USES: tuple[Use, ...] = ("summary_writer", "judge", "answerer")
USE_TITLES = {"summary_writer": "summary writer", "judge": "judge", "answerer": "answerer"}
_DOING = {"summary_writer": "write summaries", "judge": "judge", "answerer": "answer questions"}

# Below the first bound a model is unfit for the use, below the second weak (parameters). Judging needs
# the most: the measured 135M and 1.5B judges separate damaged summaries from good ones in 1 of 29 and 8
# of 16 pairs.
SIZE_BOUNDS: dict[str, tuple[float, float]] = {
    "summary_writer": (1e9, 7e9),
    "judge": (1e9, 7e9),
    "answerer": (1e9, 7e9),
}
_BITS_PER_WEIGHT = 4.5  # a Q4_K_M GGUF, the common download; only used when the name says nothing
_PARAMS_IN_NAME = re.compile(r"(?<![\dA-Za-z.])(\d+(?:\.\d+)?)\s*([MB])(?![A-Za-z])", re.IGNORECASE)


@dataclass(frozen=True)
class Fitness:
    """One model's fitness for one use, with the reason a person reads."""

    model: str  # the model as a person names it ("SmolLM2-135M-Instruct")
    use: Use
    verdict: Verdict
    reason: str = ""
    parameters: float | None = None
    measured: bool = False  # the verdict comes from a benchmark, not from the size alone
    evidence: str = ""  # the benchmark result it comes from

    @property
    def fit(self) -> bool:
        return self.verdict == "fit"

    @property
    def warns(self) -> bool:
        return self.verdict in ("weak", "unfit")

    def sentence(self) -> str:
        """"SmolLM2-135M-Instruct is too small to judge reliably: its scores do not separate …"."""
        if self.verdict == "unfit":
            head = f"{self.model} is too small to {_DOING[self.use]} reliably"
        elif self.verdict == "weak":
            head = f"{self.model} is a weak {USE_TITLES[self.use]}"
        elif self.verdict == "fit":
            head = f"{self.model} is fit to {_DOING[self.use]}"
        else:
            head = f"How well {self.model} can {_DOING[self.use]} is not known"
        return f"{head}: {self.reason}." if self.reason else f"{head}."

    def mark(self) -> str:
        """A short mark for results from this model ("unreliable: 135M-parameter model"), '' when fit."""
        if not self.warns:
            return ""
        size = f"{_human_parameters(self.parameters)}-parameter model" if self.parameters else "small model"
        return f"{'unreliable' if self.verdict == 'unfit' else 'check it'}: written by a {size}"

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "use": self.use, "verdict": self.verdict, "reason": self.reason,
                "parameters": self.parameters, "measured": self.measured, "evidence": self.evidence,
                "sentence": self.sentence()}


def _human_parameters(count: float | None) -> str:
    if not count:
        return "?"
    return f"{count / 1e9:g}B" if count >= 1e9 else f"{count / 1e6:g}M"


def parameters_from_name(name: str) -> float | None:
    """"SmolLM2-135M-Instruct.Q4_1.gguf" → 1.35e8, "qwen2.5-coder-1.5b-…" → 1.5e9, else None."""
    found = [float(n) * (1e9 if unit.upper() == "B" else 1e6) for n, unit in _PARAMS_IN_NAME.findall(name)]
    plausible = [n for n in found if 1e7 <= n <= 2e12]
    return plausible[-1] if plausible else None


def parameters_from_size(size_bytes: int | None) -> float | None:
    return None if not size_bytes else size_bytes * 8 / _BITS_PER_WEIGHT


def by_size(model: str, use: Use, parameters: float | None) -> Fitness:
    """The verdict from the parameter count alone (what is known of a model nobody measured)."""
    if parameters is None:
        return Fitness(model, use, "unknown", "its size is not known", None)
    unfit_below, weak_below = SIZE_BOUNDS[use]
    size = _human_parameters(parameters)
    if parameters < unfit_below:
        return Fitness(model, use, "unfit", f"a {size}-parameter model produces fluent text that is often wrong",
                       parameters)
    if parameters < weak_below:
        return Fitness(model, use, "weak", f"a {size}-parameter model; check what it writes against the paper",
                       parameters)
    return Fitness(model, use, "fit", "", parameters)


def for_entry(entry: Any, use: Use) -> Fitness:
    """A registry ModelEntry's fitness: its manifest's measured verdict, else from its size."""
    table: dict[str, Any] = dict(getattr(entry, "fitness", {}) or {})
    name = display_name(entry)
    parameters = table.get("parameters")
    if parameters is None:
        file_name = next((Path(f.path).name for f in entry.files if f.kind == "model"), entry.name)
        parameters = parameters_from_name(file_name) or parameters_from_name(entry.name) \
            or parameters_from_size(entry.size)
    verdict = table.get(use)
    if verdict in ("fit", "weak", "unfit"):
        return Fitness(name, use, verdict, str(table.get(f"{use}_why", "")), float(parameters) if parameters else None,
                       measured=bool(table.get("evidence")), evidence=str(table.get("evidence", "")))
    return by_size(name, use, float(parameters) if parameters else None)


def display_name(entry: Any) -> str:
    """"SmolLM2-135M-Instruct" from the description's first words, else the registry name."""
    description = str(getattr(entry, "description", "") or "")
    head = description.split(",")[0].strip()
    return head if head and len(head) <= 48 else str(entry.name)


def for_model(model: str | None, use: Use, *, entries: list[Any] | None = None) -> Fitness:
    """The fitness of a GGUF given as the settings give it: a registered name, a file path or file name
    (as a summary's engine record names it). None: the registry's default language model."""
    if entries is None:
        entries = registry.list_models("gguf-llm")
    entry = _find_entry(model, entries)
    if entry is not None:
        return for_entry(entry, use)
    if model is None:
        return Fitness("the language model", use, "unknown", "no language model is set up")
    path = Path(model)
    size = None
    try:
        size = path.stat().st_size if path.is_file() else None
    except OSError:
        size = None
    parameters = parameters_from_name(path.name) or parameters_from_size(size)
    return by_size(path.stem, use, parameters)


def _find_entry(model: str | None, entries: list[Any]) -> Any | None:
    if model is None:
        return next((e for e in entries if e.default), entries[0] if entries else None)
    wanted = Path(model).name.lower()
    for entry in entries:
        if entry.name.lower() == model.lower():
            return entry
        files = [Path(f.path).name.lower() for f in entry.files if f.kind == "model"]
        if wanted in files:
            return entry
    return None


def for_settings(settings: Any, use: Use, *, engine: str | None = None) -> Fitness | None:
    """The fitness of the model the settings would use for ``use``; None for the extractive engine
    (it writes nothing of its own) and for a server's model (its size is unknown here)."""
    engines = settings.engines
    name = engine or (engines.judge if use == "judge" and engines.judge != "auto" else engines.engine)
    if name == "auto":
        name = "llama" if engines.llama.model else "extractive"
    if name != "llama":
        return None
    return for_model(engines.llama.model, use)


def for_summary(summary: Any) -> Fitness | None:
    """The writer's fitness for a Summary (None: the extractive engine, or a model of unknown size)."""
    engine = dict(getattr(summary, "engine", {}) or {})
    name = str(engine.get("engine") or engine.get("name") or "")
    model = engine.get("model_file") or engine.get("model")
    if name != "llama" or not model:
        return None
    if not any(p.source == "model" for p in summary.paragraphs):
        return None  # every paragraph was extracted: nothing of the model's is shown
    return for_model(str(model), "summary_writer")


def for_judgement(result: dict[str, Any]) -> Fitness | None:
    """The judge's fitness for a judgement's JSON (its ``judge`` names the model, as the engine does:
    "llama (model.gguf)", or as the summary judge labels it: "llama:SmolLM2-135M-Instruct")."""
    judge = str(result.get("judge") or "")
    match = (re.search(r"\(([^()]+\.gguf)\)", judge) or re.search(r"(\S+\.gguf)", judge)
             or re.fullmatch(r"\s*llama:\s*(\S.*?)\s*", judge))
    if not match:
        return None
    return for_model(match.group(1), "judge")
