"""Files the app reads as configuration (issue 48, item 5), through the real command in a process of its
own: a settings.json that is a FIFO (opening it would block until a writer came), nested 100,000 deep
(json recurses per level) or holding NaN is one line and exit code 2, never a hang or a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT


def _summarize_with(settings_kind: str, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    settings = data / "settings.json"
    if settings_kind == "fifo":
        os.mkfifo(settings)
    elif settings_kind == "deep":
        settings.write_text('{"engines": ' + "[" * 100_000 + "]" * 100_000 + "}")
    else:
        settings.write_text('{"engines": {"openai": {"total_timeout_s": NaN}}}')
    paper = tmp_path / "paper.md"
    paper.write_text("# Dough\n\n## Results\n\nWarm dough rose in four hours.\n", encoding="utf-8")
    env = {**os.environ, "MMDOCSUM_DATA_DIR": str(data), "MMDOCSUM_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(REPO_ROOT)}
    # the timeout only bounds a failure: a command that hangs on the FIFO is the bug this test finds
    return subprocess.run([sys.executable, "-m", "mmdocsum_desktop", "summarize", str(paper), "-o",
                           str(tmp_path / "s.json"), "--engine", "extractive", "--quiet"],
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("kind", "message"), [("fifo", "named pipe"), ("deep", "nested 100001 levels deep"),
                                               ("nan", "NaN is not a JSON number")])
def test_a_settings_file_that_is_no_settings_file_is_one_line(tmp_path, kind, message):
    result = _summarize_with(kind, tmp_path)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-1500:]
    assert len(lines) == 1 and "settings" in lines[0] and message in lines[0], result.stderr
    assert not (tmp_path / "s.json").exists()
