"""RapidOCR's ONNX sessions sleep between operators instead of spinning (issue 39, point 4: a third less
CPU per crop on a shared machine, the same text), and building them leaves RapidOCR's class as it was."""

from __future__ import annotations

import pytest
from rapidocr_onnxruntime.utils import infer_engine

from mmdocsum_desktop.models.cache import ContentCache
from mmdocsum_desktop.models.ocr import OcrEngine

SPINNING = "session.intra_op.allow_spinning"


def test_ocr_sessions_do_not_spin_and_rapidocr_is_left_unchanged():
    before = infer_engine.OrtInferSession.__dict__["_init_sess_opts"]
    engine = OcrEngine(cache=ContentCache(":memory:"))
    stages = engine._engine
    # the classifier and recogniser are wrapped by the engine (its _Recorder keeps their last output)
    sessions = [stages.text_det.infer.session, stages.text_cls.stage.infer.session,
                stages.text_rec.stage.session.session]
    assert [s.get_session_options().get_session_config_entry(SPINNING) for s in sessions] == ["0", "0", "0"]
    assert infer_engine.OrtInferSession.__dict__["_init_sess_opts"] is before  # the wrapper is gone again
    # options RapidOCR makes itself afterwards are its own again: no spinning entry
    with pytest.raises(RuntimeError, match="does not have configuration"):
        infer_engine.OrtInferSession._init_sess_opts({}).get_session_config_entry(SPINNING)
