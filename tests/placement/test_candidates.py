"""Candidate pools from folders: natural name order, captions from a sidecar, labels and context."""

from __future__ import annotations

import json

from mmdocsum_desktop.placement.candidates import candidates_from_folder, read_captions_file
from mmdocsum_desktop.placement.engine import PlacementEngine
from tests.placement.conftest import png_header_only


def test_folder_pool_in_natural_order_with_sidecar_captions(tmp_path):
    for name in ("img10.png", "img2.jpg", "img1.PNG", "readme.md"):
        (tmp_path / name).write_bytes(png_header_only(4, 4))
    (tmp_path / "captions.json").write_text(
        json.dumps(
            {
                "img1.PNG": "Flow duration curves",
                "img2.jpg": {"caption": "Self-locking nut", "label": "Figure 7-26", "context": ["See Figure 7-26."]},
                "img10.png": None,
            }
        )
    )
    candidates = candidates_from_folder(tmp_path)
    assert [c.image.rsplit("/", 1)[-1] for c in candidates] == ["img1.PNG", "img2.jpg", "img10.png"]
    assert [c.caption for c in candidates] == ["Flow duration curves", "Self-locking nut", ""]
    assert candidates[1].label == "Figure 7-26" and candidates[1].context == ["See Figure 7-26."]
    assert [c.figure for c in candidates] == [None, None, None]
    # a label given in the sidecar makes explicit mentions work for folders too
    placements = PlacementEngine(use_ocr=False).place(["Figure 7-26 shows the nut."], candidates)
    assert placements[0].candidate == 1


def test_captions_argument_overrides_the_sidecar(tmp_path):
    (tmp_path / "a.png").write_bytes(png_header_only(4, 4))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"a.png": "from the argument"}))
    assert candidates_from_folder(tmp_path, other)[0].caption == "from the argument"
    assert candidates_from_folder(tmp_path, {"a.png": "from a dict"})[0].caption == "from a dict"
    assert read_captions_file(other) == {"a.png": {"caption": "from the argument"}}
