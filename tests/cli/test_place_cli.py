"""`mmdocsum place` and `mmdocsum bench ftii` end to end: once in a subprocess as a user runs it, the
other cases through ``main()`` in this process (the same code, without paying the start-up each time)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mmdocsum_desktop.placement.text import strip_mentions
from tests.conftest import DATA_PAPERS, read_paper
from tests.placement.ftii_split import build_paper_split
from tests.placement.test_engine import CITED, first_citing


def run_cli(env, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mmdocsum_desktop", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


@pytest.fixture(scope="module")
def paragraphs_md(tmp_path_factory):
    document = read_paper("pymupdf_test_3780.pdf")
    citing = [first_citing(document, label) for label in CITED]  # Figures 1, 2 and 3, in that order
    text = "\n\n".join(
        ["# Notes on a planar ion crystal", *(strip_mentions(paragraph) for paragraph in citing), "A closing remark."]
    )
    path = tmp_path_factory.mktemp("paragraphs") / "notes.md"
    path.write_text(text + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def placed_from_pdf(tmp_path_factory, env, paragraphs_md):
    out = tmp_path_factory.mktemp("place-pdf") / "out"
    result = run_cli(
        env, "place", "--paragraphs", str(paragraphs_md), "--images", str(DATA_PAPERS / "pymupdf_test_3780.pdf"),
        "-o", str(out), "--no-ocr",
    )
    return result, out


def test_place_reads_a_pdf_and_writes_json_and_markdown(placed_from_pdf):
    result, out = placed_from_pdf
    assert result.returncode == 0, result.stderr
    rows = json.loads((out / "placement.json").read_text())
    assert [set(r) for r in rows] == [{"paragraph", "image", "figure", "score"}] * 5
    assert [r["figure"] for r in rows[1:4]] == ["Figure 1", "Figure 2", "Figure 3"]
    assert rows[0]["image"] is None and rows[0]["figure"] is None  # the heading gets nothing
    assert all((out / r["image"]).is_file() for r in rows if r["image"])
    assert all(not Path(r["image"]).is_absolute() for r in rows if r["image"])
    markdown = (out / "placement.md").read_text()
    assert markdown.count("![") == sum(1 for r in rows if r["image"])
    assert "](figures/fig1.png)" in markdown and markdown.startswith("# Notes on a planar ion crystal")
    assert (out / "document.json").is_file()
    assert "placed" in result.stdout


def test_place_with_an_extraction_folder_and_json_paragraphs(placed_from_pdf, cli, tmp_path):
    _, extracted = placed_from_pdf
    paragraphs = tmp_path / "p.json"
    paragraphs.write_text(json.dumps(["Figure 2 shows the laser beams.", "", "Nothing here."]))
    out = tmp_path / "out"
    code, stdout, stderr = cli("place", "--paragraphs", paragraphs, "--images", extracted, "-o", out,
                               "--no-ocr", "--strategy", "greedy", "--quiet")
    assert code == 0, stderr
    rows = json.loads((out / "placement.json").read_text())
    assert rows[0]["figure"] == "Figure 2" and rows[0]["image"].endswith("fig2.png")
    assert (out / rows[0]["image"]).resolve() == (extracted / "figures" / "fig2.png").resolve()
    assert rows[1]["image"] is None and stdout == ""


def test_place_with_a_folder_of_images_and_sidecar_captions(placed_from_pdf, cli, tmp_path):
    _, extracted = placed_from_pdf
    folder = tmp_path / "images"
    folder.mkdir()
    shutil.copy(extracted / "figures" / "fig2.png", folder / "gate.png")
    shutil.copy(extracted / "figures" / "fig3.png", folder / "fidelity.png")
    (folder / "broken.png").write_bytes(b"not a png")
    (folder / "captions.json").write_text(json.dumps({
        "gate.png": "Nearest neighbor quantum gate in a 2D planar crystal: two laser beams",
        "fidelity.png": "Gate infidelity and pulse shaping against detuning and gate time",
    }))
    paragraphs = tmp_path / "p.md"
    paragraphs.write_text("The infidelity of the gate falls as the pulse shaping improves.\n\n"
                          "Two laser beams drive a gate between neighbouring ions in the planar crystal.\n")
    code, stdout, stderr = cli("place", "--paragraphs", paragraphs, "--images", folder, "-o", tmp_path / "out",
                               "--no-ocr", "--clip", "no-such-clip")
    assert code == 0, stderr
    rows = json.loads((tmp_path / "out" / "placement.json").read_text())
    assert [Path(r["image"]).name for r in rows] == ["fidelity.png", "gate.png"]
    assert all(r["figure"] is None for r in rows)
    assert "warning" in stderr and "no-such-clip" in stderr  # a missing model is left out
    assert re.search(r"images\s+3 \(image folder\)", stdout)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--paragraphs", "missing.md", "--images", "."], "no such paragraphs file"),
        (["--paragraphs", "{bad}", "--images", "."], "not valid JSON"),
        (["--paragraphs", "{ok}", "--images", "nowhere"], "no such document or folder"),
        (["--paragraphs", "{ok}", "--images", ".", "--threshold", "3"], "threshold"),
    ],
)
def test_place_errors_are_one_line(cli, tmp_path, args, message):
    (tmp_path / "bad.json").write_text("[1, 2")
    (tmp_path / "ok.md").write_text("A paragraph.\n")
    args = [a.format(bad=tmp_path / "bad.json", ok=tmp_path / "ok.md") for a in args]
    args = [str(tmp_path / a) if a in ("missing.md", "nowhere") else a for a in args]
    code, _, stderr = cli("place", *args, "-o", tmp_path / "out")
    assert code == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mmdocsum: error:") and message in lines[0]


def test_bench_ftii_places_and_scores(cli, tmp_path):
    split = build_paper_split(tmp_path / "split")
    out = tmp_path / "run"
    code, stdout, stderr = cli("bench", "ftii", "--data", split["data"], "--images-root", split["root"],
                               "--captions", split["captions"], "--no-ocr", "-o", out, "--quiet")
    assert code == 0, stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert set(metrics) == {"acc_b", "acc_i", "acc_ni", "n_slots"}
    assert metrics["acc_i"] >= 2 / 3 and metrics["acc_b"] >= 0.85
    predictions = json.loads((out / "predictions.json").read_text())
    assert list(predictions) == ["pymupdf_test_3780"]
    assert re.search(r"Acc_b \d\.\d{3}  Acc_i \d\.\d{3}  Acc_ni \d\.\d{3}", stdout)

    # --predictions: score what another system predicted, without placing anything
    code, _, stderr = cli("bench", "ftii", "--data", split["data"], "--predictions", out / "predictions.json",
                          "-o", tmp_path / "scored")
    assert code == 0, stderr
    assert json.loads((tmp_path / "scored" / "metrics.json").read_text()) == metrics
    code, _, stderr = cli("bench", "ftii", "--data", split["data"], "-o", tmp_path / "x")
    assert code == 2 and "--images-root" in stderr
