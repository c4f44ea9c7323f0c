"""The application layer: what the command line, the desktop app and the benchmark runner all call.

A :class:`Session` turns the settings into engines and models once; the use cases take it:
:func:`summarize_file`, :func:`summarize`, :func:`regenerate_paragraph`, :func:`swap_figure`, :func:`place`,
:func:`judge`, and ``app.ask.ask`` (import it from its module: ``app.ask`` names the module). The session's
:class:`~mmdocsum_desktop.app.models.Models` holds every model. Nothing here knows of Qt or argparse. The benchmarks (``bench/``) sit above this layer and
call it like any front end, so a benchmark number describes what `mmdocsum summarize` gives.

The use cases are imported on first use (PEP 562): ``mmdocsum place`` needs neither the summary
pipeline nor the benchmark runner, whose imports (PyMuPDF's layout model, the suites) cost seconds of a
cold start.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "judge": "judging",
    "PlacementRun": "placement", "image_pool": "placement", "place": "placement",
    "Session": "session", "default_session": "session",
    "FigureSwap": "summary", "regenerate_paragraph": "summary", "summarize": "summary", "swap_figure": "summary",
    "FileSummary": "summary", "summarize_file": "summary",
}

__all__ = [
    "FigureSwap", "FileSummary", "PlacementRun", "Session", "default_session", "image_pool", "judge", "place",
    "regenerate_paragraph", "summarize", "summarize_file", "swap_figure",
]

if TYPE_CHECKING:  # for type checkers and editors: the names as if imported here
    from mmdocsum_desktop.app.judging import judge
    from mmdocsum_desktop.app.placement import PlacementRun, image_pool, place
    from mmdocsum_desktop.app.session import Session, default_session
    from mmdocsum_desktop.app.summary import (
        FigureSwap,
        FileSummary,
        regenerate_paragraph,
        summarize,
        summarize_file,
        swap_figure,
    )


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
