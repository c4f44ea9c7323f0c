"""Nothing hangs, nothing leaks (issue 28), against real misbehaving OpenAI-compatible servers on
127.0.0.1 (tests/security/hostile_server.py): a server that never answers, drips one byte every 2 s,
sends keep-alives only, or streams forever is cut off at the one deadline of the call (the time limit,
else the engine's total deadline), retries included; a server that echoes the API key — in its reply,
split across streamed pieces, and in a 401 — gets it into no output, log, or line on stderr."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from mmdocsum_desktop.engines.base import GenerationOptions, Message
from mmdocsum_desktop.engines.openai import OpenAIConfig, OpenAIEngine
from mmdocsum_desktop.errors import EndpointError
from tests.security.conftest import FILE_KEYRING, AppHome, find_secret, tiny_document
from tests.security.hostile_server import HostileServer

STALLING = ["stall", "drip", "keepalive", "forever"]
SLACK_S = 1.5  # the watchdog polls every 0.1 s; the rest is thread scheduling on a loaded machine


def _ask(engine: OpenAIEngine, time_limit_s: float | None):
    return engine.generate([Message("user", "Summarise the paper.")],
                           GenerationOptions(max_tokens=100_000, time_limit_s=time_limit_s))


@pytest.mark.parametrize("mode", STALLING)
def test_the_deadline_cuts_a_stalling_server(mode):
    """With a time limit of 1.5 s, and with none (the engine's total deadline, 2.5 s here): the call
    ends by its deadline; what a streaming server wrote by then is kept, a silent one is an error."""
    with HostileServer(mode, interval_s=2.0, max_s=15) as server:
        engine = OpenAIEngine(OpenAIConfig(base_url=server.url, model="canned", total_timeout_s=2.5, retries=2))
        for limit, deadline in ((1.5, 1.5), (None, 2.5)):
            started = time.monotonic()
            try:
                generation = _ask(engine, limit)
            except EndpointError as error:
                assert mode != "forever", error
                assert f"did not finish within {deadline:g} s" in str(error)
            else:
                assert mode == "forever"
                assert generation.finish_reason == "timeout" and generation.text.startswith("Dough rose")
            assert time.monotonic() - started < deadline + SLACK_S, (mode, limit)


def test_retries_stay_inside_the_deadline():
    """A server that stalls every attempt: with ten retries allowed the call still ends at its limit."""
    with HostileServer("stall", max_s=15) as server:
        engine = OpenAIEngine(OpenAIConfig(base_url=server.url, model="canned", timeout_s=0.5, retries=10,
                                           backoff_s=0.2, total_timeout_s=60))
        started = time.monotonic()
        with pytest.raises(EndpointError):
            _ask(engine, 2.0)
        assert time.monotonic() - started < 2.0 + SLACK_S
        assert server.chat_requests >= 2  # it did retry, within the deadline


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["stall", "drip"])
def test_summarize_with_a_time_limit_ends_at_it(tmp_path, mode):
    """The real command, --time-limit 20: the limit is the command's one deadline (deadline.py, issue 38),
    counted from its start — reading and loading the embedder come out of it — then one line and exit 2
    (the issue's server was still running at 150 s with --time-limit 20)."""
    app = AppHome.make(tmp_path / "app")
    document = tiny_document(app.cwd / "docs")
    with HostileServer(mode, interval_s=2.0, max_s=90) as server:
        started = time.monotonic()
        result = app.run("summarize", str(document), "-o", "out/summary.json", "--quiet", "--engine", "openai",
                         "--base-url", server.url, "--api-model", "canned", "--time-limit", "20", timeout=120)
        ended = time.monotonic()
    assert result.returncode == 2, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.strip() and "warning" not in line]
    assert len(lines) == 1 and "did not finish within" in lines[0], result.stderr
    assert server.chat_started, "the command never reached the server"
    # the start-up before the deadline begins (Python, imports) is a few seconds; the rest is the limit
    assert ended - started < 20 + 10, "the command went on after its time limit"


def _planted(tmp_path):
    key = f"sk-planted-{uuid.uuid4().hex}"
    vault = tmp_path / "vault"  # the "system keyring": outside every folder searched
    vault.mkdir()
    (vault / "keyring.json").write_text(json.dumps({"mmdocsum-desktop\0planted": key}))
    app = AppHome.make(tmp_path / "app", PYTHON_KEYRING_BACKEND=FILE_KEYRING,
                       MMDOCSUM_TEST_KEYRING=str(vault / "keyring.json"),
                       MMDOCSUM_TEST_LOG_DIR=str(tmp_path / "app" / "home" / "log"))
    return key, app


def _secret_forms_in(text: str, key: str) -> list[str]:
    from tests.security.hostile_server import key_forms

    return [form for form in key_forms(key) if form in text]


@pytest.mark.slow
def test_an_echoing_server_puts_the_key_nowhere(tmp_path):
    """The reply quotes the key (as is, base64, upper case, its first 20 characters, each split over
    two streamed pieces); every file written — the summary in .json and .md, the debug log — and what
    the command prints hold none of its forms."""
    key, app = _planted(tmp_path)
    document = tiny_document(app.cwd / "docs")
    with HostileServer("echo", key=key) as server:
        results = app.run_many({
            fmt: ["cli", "summarize", str(document), "-o", f"out/summary.{fmt}", "--quiet", "--engine", "openai",
                  "--base-url", server.url, "--api-model", "canned", "--api-key-name", "planted"]
            for fmt in ("json", "md")
        }, module="tests.security.run_logged", timeout=180)
    for fmt, result in results.items():
        assert server.chat_requests, "the command never reached the server"
        assert not _secret_forms_in(result.stdout + result.stderr, key), (fmt, result.stderr[-1500:])
    written = app.files()
    assert any(p.suffix == ".json" and p.parent.name == "out" for p in written), [str(p) for p in written]
    assert find_secret(written, key) == []
    summary = (app.cwd / "out" / "summary.json").read_text()
    assert "[API key]" in summary  # the echo reached the summary, with the key masked


@pytest.mark.slow
def test_a_401_that_echoes_the_key_prints_none_of_it(tmp_path):
    key, app = _planted(tmp_path)
    document = tiny_document(app.cwd / "docs")
    with HostileServer("echo401", key=key) as server:
        result = app.run_module("tests.security.run_logged", "cli", "--debug", "summarize", str(document), "-o",
                                "out/summary.json", "--quiet", "--engine", "openai", "--base-url", server.url,
                                "--api-model", "canned", "--api-key-name", "planted", timeout=120)
    assert result.returncode == 2, result.stderr[-2000:]
    assert "HTTP 401" in result.stderr and "[API key]" in result.stderr
    assert not _secret_forms_in(result.stdout + result.stderr, key), result.stderr
    assert find_secret(app.files(), key) == []
