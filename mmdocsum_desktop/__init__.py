"""mmdocsum-desktop: read documents, find their figures, write interleaved cited summaries."""

__version__ = "0.1.0"
