"""run_benchmark is what `mmdocsum bench` runs: the same files in the output folder, the same numbers."""

from __future__ import annotations

import json

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.run import run_benchmark
from mmdocsum_desktop.bench.splits import demo_ftii
from mmdocsum_desktop.cli import main
from mmdocsum_desktop.gui import bench_child
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.settings import EngineChoice


def _files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def _scores(folder):
    metrics = json.loads((folder / "metrics.json").read_text())
    return {k: v for k, v in metrics.items() if isinstance(v, int | float) and not isinstance(v, bool)}


def test_rouge_demo_as_the_command_line_runs_it(tmp_path):
    ours = run_benchmark(Session(), "rouge", "demo", tmp_path / "app", choice=EngineChoice(engine="extractive"))
    assert main(["bench", "rouge", "--split", "demo", "--engine", "extractive", "-o", str(tmp_path / "cli"),
                 "--quiet"]) == 0
    assert _files(tmp_path / "app") == _files(tmp_path / "cli")
    theirs = json.loads((tmp_path / "cli" / "metrics.json").read_text())
    assert ours["n_docs"] == theirs["n_docs"] == 5
    for name in ("rouge1", "rouge2", "rougeL", "rougeL_sentence"):
        assert ours[name] == theirs[name] and ours[name] > 0
    assert ours["settings"]["engine"] == theirs["settings"]["engine"]


def test_the_gui_runs_ftii_as_the_command_line_does(tmp_path):
    data, images_root, captions = demo_ftii()
    bench_child.benchmark_in_this_process("ftii", "demo", "extractive", str(tmp_path / "gui"), JobControl())
    assert main(["bench", "ftii", "--data", str(data), "--images-root", str(images_root), "--captions",
                 str(captions), "-o", str(tmp_path / "cli")]) == 0
    assert _files(tmp_path / "gui") == _files(tmp_path / "cli") == ["metrics.json", "predictions.json"]
    assert _scores(tmp_path / "gui") == _scores(tmp_path / "cli")
    assert json.loads((tmp_path / "gui" / "predictions.json").read_text()) == \
        json.loads((tmp_path / "cli" / "predictions.json").read_text())
