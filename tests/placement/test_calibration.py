"""Calibration: column softmax with a "nowhere" option, features, and the conditional-logit fit."""

from __future__ import annotations

import numpy as np

from mmdocsum_desktop.placement import calibration as cal
from mmdocsum_desktop.placement.weights import shipped_weights

PROFILES = shipped_weights().profiles


def test_column_probabilities_sum_to_at_most_one_and_skip_invalid_rows():
    z = np.array([[2.0, 0.0], [0.0, 0.0], [5.0, -1.0]])
    probs = cal.column_probabilities(z, nowhere=1.0, valid=np.array([True, True, False]))
    assert np.isnan(probs[2]).all()
    sums = np.nansum(probs, axis=0)
    assert np.all(sums < 1.0)
    expected = np.exp(2.0) / (np.exp(2.0) + np.exp(0.0) + np.exp(1.0))
    assert abs(probs[0, 0] - expected) < 1e-12
    window = cal.window_probabilities(z[0], z[1:2], nowhere=1.0)
    assert np.allclose(window, probs[0])


def test_derive_gives_value_row_and_column_margins():
    sims = {"caption": np.array([[0.9, 0.2], [0.5, np.nan]])}
    features = cal.derive(sims)
    assert features["caption_raw"].tolist() == [[0.9, 0.2], [0.5, 0.0]]
    assert np.allclose(features["caption_row"], [[0.7, -0.7], [0.0, 0.0]])
    assert np.allclose(features["caption_col"], [[0.4, 0.0], [-0.4, 0.0]])


def test_shipped_profiles_cover_every_signal_set():
    assert PROFILES, "run tools/fit_placement.py --write-weights"
    for profile in PROFILES.values():
        assert 0.0 < profile.threshold < 1.0 and profile.order_penalty >= 0.0
        assert set(profile.weights) <= set(cal.feature_names(profile.signals))
    assert cal.choose_profile({"caption", "caption_sent", "caption_lex", "clip"}, PROFILES).signals == (
        "caption",
        "caption_lex",
        "caption_sent",
    )
    # with the word evidence too, caption and OCR text: the profile reading both sources wins over the
    # caption profile with word extras (more primary signals)
    both = {"caption", "caption_sent", "caption_lex", "ocr", "ocr_sent", "ocr_lex", *cal.EXTRA_SIGNALS}
    assert {"ocr", "ocr_lex", "ocr_sent"} <= set(cal.choose_profile(both, PROFILES).signals)
    # a set with no profile of its own falls back to the largest one it covers
    assert cal.choose_profile({"caption_lex", "unknown"}, PROFILES).signals == ("caption_lex",)
    assert cal.choose_profile(set(), PROFILES) is None
