"""The application layer: what the command line, the desktop app and the benchmark runner all call.

A :class:`Session` turns the settings into engines and models once; the use cases take it:
:func:`summarize`, :func:`regenerate_paragraph`, :func:`swap_figure`, :func:`place`, :func:`judge`,
:func:`run_benchmark`. Nothing here knows of Qt or argparse.
"""

from mmdocsum_desktop.app.benchmark import run_benchmark, run_ftii
from mmdocsum_desktop.app.judging import judge
from mmdocsum_desktop.app.placement import PlacementRun, image_pool, place
from mmdocsum_desktop.app.session import Session, default_session
from mmdocsum_desktop.app.summary import FigureSwap, regenerate_paragraph, summarize, swap_figure

__all__ = [
    "FigureSwap", "PlacementRun", "Session", "default_session", "image_pool", "judge", "place",
    "regenerate_paragraph", "run_benchmark", "run_ftii", "summarize", "swap_figure",
]
