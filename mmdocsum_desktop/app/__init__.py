"""The application layer: what the command line, the desktop app and the benchmark runner all call.

A :class:`~mmdocsum_desktop.app.session.Session` turns the settings into engines and models once; the use
cases take it: ``summary.summarize_file``, ``summary.summarize``, ``summary.regenerate_paragraph``,
``summary.swap_figure``, ``placement.place``, ``judging.judge``, ``ask.ask``, ``extract.extract``,
``doctor.run_doctor``. The session's :class:`~mmdocsum_desktop.app.models.Models` holds every model. Nothing
here knows of Qt or argparse. The benchmarks (``bench/``) sit above this layer and call it like any front
end, so a benchmark number describes what `mmdocsum summarize` gives.

This package re-exports nothing: import each use case from its module (``from mmdocsum_desktop.app.session
import Session``), so that a command imports only what it runs.
"""
