"""mmdocsum-desktop: read documents, find their figures, write interleaved cited summaries."""

from mmdocsum_desktop.offline import keep_runtimes_offline

__version__ = "0.1.0"

# before anything imports onnxruntime (this package, RapidOCR, PyMuPDF's layout model) or a child process
# is started: its telemetry client writes ~/.cache/Microsoft and looks up Microsoft's collector otherwise
keep_runtimes_offline()
