"""Where the app keeps its files (a bottom utility: the settings, the model layer and the project's
recovery folder all ask here).

* data dir (``platformdirs.user_data_dir("mmdocsum-desktop")``, or ``MMDOCSUM_DATA_DIR``): the user's
  model index ``models.json``, downloaded and assembled models, exported CLIP ONNX files.
* cache dir (``platformdirs.user_cache_dir("mmdocsum-desktop")``, or ``MMDOCSUM_CACHE_DIR``): the
  content cache of embeddings and OCR results; deleting it only costs recomputation.

Both are read from the environment on every call, so tests can point them at a temporary folder.

* the sample paper (``resources/sample/``, CC BY; ``ATTRIBUTION.md`` beside it): what
  ``mmdocsum summarize --sample`` and ``mmdocsum-desktop --sample`` open.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import platformdirs

APP_NAME = "mmdocsum-desktop"
SAMPLE_PAPER_NAME = "wheat-04-00932.pdf"


def data_dir() -> Path:
    override = os.environ.get("MMDOCSUM_DATA_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    override = os.environ.get("MMDOCSUM_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def sample_paper() -> Path:
    """The sample paper shipped inside the package, found through importlib.resources so an installed
    wheel and a frozen bundle find it as a checkout does."""
    return Path(str(resources.files("mmdocsum_desktop") / "resources" / "sample" / SAMPLE_PAPER_NAME))
