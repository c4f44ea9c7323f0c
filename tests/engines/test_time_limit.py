"""GenerationOptions.time_limit_s: a generation past its deadline stops with the text so far and
finish_reason "timeout"; the engine's own clean-up still runs and the engine stays usable."""

from __future__ import annotations

import http.server
import json
import threading
import time

import pytest

from mmdocsum_desktop.cli import main
from mmdocsum_desktop.engines.base import Generation, GenerationOptions, GenerationStream, Message, run_stream
from mmdocsum_desktop.engines.openai import OpenAIConfig, OpenAIEngine
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.summary import SummaryOptions
from mmdocsum_desktop.summarize.strategies.full_document import ModelRun

STORY = [Message("user", "Tell a long story about a river, with many details about each town on its banks.")]


def _slow_stream(pieces: int, seconds_each: float, time_limit_s: float | None, closed: list[bool]):
    def produce():
        try:
            for number in range(pieces):
                time.sleep(seconds_each)
                yield f"w{number} "
        finally:
            closed.append(True)

    def finish(text: str, prompt_s: float, gen_s: float, cancelled: bool) -> Generation:
        return Generation(text=text, prompt_tokens=1, completion_tokens=len(text.split()), finish_reason="stop")

    return GenerationStream(produce(), finish, None, time_limit_s=time_limit_s)


def test_stream_stops_at_its_deadline_and_closes_the_engine_iterator():
    closed: list[bool] = []
    started = time.perf_counter()
    result = run_stream(_slow_stream(pieces=200, seconds_each=0.02, time_limit_s=0.15, closed=closed))
    elapsed = time.perf_counter() - started
    assert result.finish_reason == "timeout"
    assert 1 <= result.completion_tokens < 200 and result.text.startswith("w0 w1 ")
    assert elapsed < 2.0
    assert closed == [True]


def test_no_time_limit_runs_to_the_end():
    closed: list[bool] = []
    result = run_stream(_slow_stream(pieces=5, seconds_each=0.0, time_limit_s=None, closed=closed))
    assert result.finish_reason == "stop" and result.completion_tokens == 5


def test_time_limit_defaults_to_none():
    assert GenerationOptions().time_limit_s is None


def test_llama_generation_past_its_time_limit_ends_with_timeout(smollm_engine):
    unlimited = smollm_engine.generate(STORY, GenerationOptions(max_tokens=120, temperature=0.0))
    assert unlimited.finish_reason == "length"  # the story is longer than 120 tokens

    # A reader that takes 0.2 s per piece makes the 120 pieces last 24 s whatever the machine's speed; the
    # limit falls well after the prompt has been read (on a busy machine that alone can take a second or
    # two) and well before the end.
    limit = 5 * unlimited.prompt_seconds + 1.0
    pieces: list[str] = []

    def slow_reader(piece: str) -> None:
        pieces.append(piece)
        time.sleep(0.2)

    limited = smollm_engine.generate(
        STORY, GenerationOptions(max_tokens=120, temperature=0.0, time_limit_s=limit), on_text=slow_reader
    )
    assert limited.finish_reason == "timeout"
    assert 1 <= len(pieces) <= limit / 0.2 + 1 and limited.text == "".join(pieces)
    assert unlimited.text.startswith(limited.text)
    assert limited.completion_tokens < unlimited.completion_tokens
    # the stopped generation released the model: the next call runs normally
    assert smollm_engine.generate(STORY, GenerationOptions(max_tokens=4)).finish_reason == "length"


@pytest.mark.parametrize("limit", [0.0, 0.01])
def test_llama_tiny_time_limit_still_returns_a_generation(smollm_engine, limit):
    pieces: list[str] = []
    result = smollm_engine.generate(STORY, GenerationOptions(max_tokens=60, time_limit_s=limit), on_text=pieces.append)
    assert result.finish_reason == "timeout" and result.text == "".join(pieces)
    assert len(result.text) < 40  # at most the first piece


def test_summary_time_limit_is_shared_by_all_model_calls_of_a_job(smollm_engine):
    run = ModelRun(smollm_engine, SummaryOptions(time_limit_s=0.5), JobControl())
    time.sleep(0.6)  # the job's time is spent before its first call
    text = run.generate(STORY, "summary", max_tokens=60)
    assert run.generations[0].finish_reason == "timeout"
    assert run.generations[0].completion_tokens <= 2 and len(text) < 40


def test_cli_refuses_a_time_limit_that_is_not_positive(tmp_path, capsys):
    code = main(["summarize", str(tmp_path / "missing.pdf"), "-o", str(tmp_path / "s.json"), "--time-limit", "0"])
    assert code == 2
    assert "option --time-limit: Input should be greater than 0" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists()


def test_openai_stream_past_its_time_limit_is_closed():
    """A server that keeps sending: the engine stops at the limit and hangs up, so the server stops too."""
    sent: list[int] = []

    class SlowStream(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 — the name http.server calls
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for number in range(400):
                    chunk = {"choices": [{"delta": {"content": f"w{number} "}, "finish_reason": None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    sent.append(number)
                    time.sleep(0.02)
            except (BrokenPipeError, ConnectionResetError):
                return

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowStream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        engine = OpenAIEngine(OpenAIConfig(base_url=f"http://127.0.0.1:{server.server_port}/v1", model="m",
                                           retries=0))
        result = engine.generate(STORY, GenerationOptions(max_tokens=400, time_limit_s=0.3))
        assert result.finish_reason == "timeout" and result.text.startswith("w0 w1 ")
        time.sleep(0.5)
        assert len(sent) < 200  # it stopped writing soon after the engine hung up
    finally:
        server.shutdown()
        server.server_close()
