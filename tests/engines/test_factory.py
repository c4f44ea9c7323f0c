"""The factory builds text engines only: the extractive summary has none, and says so."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.app.models import Models
from mmdocsum_desktop.engines.factory import build_engine, configure_engine
from mmdocsum_desktop.errors import EngineError
from mmdocsum_desktop.schemas.settings import EngineChoice, EngineSettings


def test_extractive_is_no_text_engine():
    assert build_engine(EngineChoice(engine="extractive"), EngineSettings()) is None
    assert build_engine(EngineChoice(), EngineSettings()) is None  # auto on a fresh install
    with pytest.raises(EngineError, match="for the llama engine"):
        build_engine(EngineChoice(engine="extractive", model="m.gguf"), EngineSettings())


def test_an_extractive_run_has_its_name_values_and_no_figure_text():
    run = configure_engine(EngineSettings(), EngineChoice(engine="extractive", max_tokens=80), models=Models())
    assert (run.name, run.engine, run.ocr, run.max_tokens) == ("extractive", None, None, 80)
    assert run.describe().engine == "extractive" and run.in_process
    assert run.option_values()["ocr"] is False
    run.close()  # nothing to close, and no error for it
