"""The OpenAI-compatible engine against llama-cpp-python's own server (``python -m llama_cpp.server``),
started here on 127.0.0.1 with the SmolLM2 GGUF and an API key that the engine reads from a keyring;
plus small local HTTP servers that misbehave (down, garbage, errors, too slow)."""

from __future__ import annotations

import http.server
import json
import threading
import time

import pytest

from mmdocsum_desktop.engines.base import GenerationOptions, ImagePart, Message
from mmdocsum_desktop.engines.factory import build_engine
from mmdocsum_desktop.engines.openai import OpenAIConfig, OpenAIEngine
from mmdocsum_desktop.errors import EndpointError, SecretError, SummaryCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.settings import EngineChoice, EngineSettings, set_api_key
from mmdocsum_desktop.summarize.prompt import answer_schema
from tests.conftest import free_port, llama_server
from tests.engines.conftest import THREADS, require_llama

API_KEY = "test-key-7f3a"
QUESTION = [Message("user", "Name two rivers.")]


@pytest.fixture(scope="module")
def server(smollm, tmp_path_factory):
    require_llama()
    import uvicorn  # noqa: F401  (llama-cpp-python[server], a test dependency: a missing one must fail)
    log = tmp_path_factory.mktemp("server") / "server.log"
    with llama_server(smollm, api_key=API_KEY, log=log, threads=THREADS) as url:
        yield url


@pytest.fixture
def memory_keyring():
    """A real keyring backend that keeps secrets in memory (the test machine has no Secret Service)."""
    import keyring
    from keyring.backend import KeyringBackend

    class MemoryKeyring(KeyringBackend):
        priority = 1

        def __init__(self):
            super().__init__()
            self.secrets: dict[tuple[str, str], str] = {}

        def get_password(self, service, username):
            return self.secrets.get((service, username))

        def set_password(self, service, username, password):
            self.secrets[(service, username)] = password

        def delete_password(self, service, username):
            self.secrets.pop((service, username), None)

    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def _engine_from_settings(url: str, key_name: str | None):
    settings = EngineSettings.model_validate({"openai": {"base_url": url, "key_name": key_name, "retries": 0}})
    return build_engine(EngineChoice(engine="auto"), settings, embedder=None)


def test_streams_from_llama_cpp_server_with_key_from_keyring(server, memory_keyring):
    set_api_key("local-llama", API_KEY)
    engine = _engine_from_settings(server, "local-llama")
    assert engine.name == "openai" and engine.model_name == "smollm2"  # from GET /models
    pieces: list[str] = []
    result = engine.generate(QUESTION, GenerationOptions(max_tokens=16, temperature=0.0), on_text=pieces.append)
    assert len(pieces) >= 2 and "".join(pieces) == result.text and result.text.strip()
    assert result.completion_tokens >= 1 and result.prompt_tokens >= 5
    assert result.finish_reason in ("stop", "length")


def test_json_mode_through_the_server(server):
    engine = OpenAIEngine(OpenAIConfig(base_url=server, api_key=API_KEY, retries=0))
    prompt = [Message("user", "Four paragraphs about rivers as JSON.")]
    result = engine.generate(prompt, GenerationOptions(max_tokens=400, json_schema=answer_schema(1)))
    assert result.text.lstrip().startswith("[")


def test_cancel_mid_stream(server):
    engine = OpenAIEngine(OpenAIConfig(base_url=server, api_key=API_KEY, retries=0))
    control = JobControl()
    seen: list[str] = []
    with pytest.raises(SummaryCancelled) as caught:
        for piece in engine.stream([Message("user", "Tell a long story.")], GenerationOptions(max_tokens=200), control=control):
            seen.append(piece)
            if len(seen) == 3:
                control.cancel()
    assert caught.value.partial["text"] == "".join(seen)


def test_wrong_key_is_refused(server):
    engine_config = OpenAIConfig(base_url=server, model="smollm2", api_key="wrong", retries=0)
    engine = OpenAIEngine(engine_config)
    with pytest.raises(EndpointError, match="401"):
        engine.generate(QUESTION, GenerationOptions(max_tokens=4))


def test_key_missing_from_keyring(server, memory_keyring):
    with pytest.raises(SecretError, match="no API key named 'absent'.*keyring set mmdocsum-desktop absent"):
        _engine_from_settings(server, "absent")


def test_keyring_without_backend(server):
    import keyring
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        with pytest.raises(SecretError, match="no system keyring"):
            _engine_from_settings(server, "any")
    finally:
        keyring.set_keyring(previous)


def test_server_down():
    url = f"http://127.0.0.1:{free_port()}/v1"
    started = time.monotonic()
    with pytest.raises(EndpointError, match="connection refused.*running"):
        OpenAIEngine(OpenAIConfig(base_url=url, model="m", retries=1, backoff_s=0.05)).generate(
            QUESTION, GenerationOptions(max_tokens=4))
    assert time.monotonic() - started < 5


# ------------------------------------------------------------------------------ misbehaving servers


class _Scripted(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script: list = []
    bodies: list = []

    def log_message(self, *args):
        pass

    def _reply(self):
        length = int(self.headers.get("Content-Length") or 0)
        type(self).bodies.append(self.rfile.read(length) if length else b"")
        status, content_type, body, delay = type(self).script.pop(0) if len(type(self).script) > 1 else type(self).script[0]
        if delay:
            time.sleep(delay)
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_GET = do_POST = _reply


@pytest.fixture
def scripted():
    class Handler(_Scripted):
        script: list = []
        bodies: list = []

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", Handler
    httpd.shutdown()
    httpd.server_close()


def test_garbage_answers(scripted):
    url, handler = scripted
    handler.script = [(200, "text/html", "<html><body>Welcome to nginx!</body></html>", 0)]
    engine = OpenAIEngine(OpenAIConfig(base_url=url, model="m", retries=0))
    with pytest.raises(EndpointError, match="not an OpenAI-compatible.*nginx"):
        engine.generate(QUESTION, GenerationOptions(max_tokens=4))
    handler.script = [(200, "text/event-stream", "data: {not json}\n\n", 0)]
    with pytest.raises(EndpointError, match="not an OpenAI-compatible"):
        engine.generate(QUESTION, GenerationOptions(max_tokens=4))
    handler.script = [(200, "application/json", json.dumps({"data": []}), 0)]
    with pytest.raises(EndpointError, match="did not list any model"):
        OpenAIEngine(OpenAIConfig(base_url=url, retries=0))


def _sse(*events: str) -> str:
    return "".join(f"data: {event}\n\n" for event in events) + "data: [DONE]\n\n"


@pytest.mark.parametrize(("content_type", "body"), [
    ("application/json", '{"choices": [{"message": {"content": NaN}, "finish_reason": "stop"}]}'),
    ("application/json", '{"choices": [{"message": {"content": "Rhine."}}], "usage": {"prompt_tokens": Infinity}}'),
    ("application/json", '{"choices": [{"message": {"content": 42}}]}'),
    ("application/json", '{"choices": {"0": {"message": {"content": "Rhine."}}}}'),
    ("application/json", '{"choices": [{"message": ["Rhine."]}]}'),
    ("application/json", '{"choices": ' + "[" * 50_000 + "]" * 50_000 + "}"),
    ("text/event-stream", _sse('{"choices": [{"delta": ["Rhine"]}]}')),
    ("text/event-stream", _sse('{"choices": [{"delta": {"content": {"text": "Rhine"}}}]}')),
    ("text/event-stream", _sse('{"choices": [{"delta": {"content": "Rhine"}, "finish_reason": 7}]}')),
    ("text/event-stream", _sse("[1, 2, 3]")),
    ("text/event-stream", _sse('{"choices": [{"delta": {"content": "Rhine"}}]}', '{"x": ' + "[" * 50_000 + "]" * 50_000 + "}")),
])
def test_an_answer_of_the_wrong_shape_is_one_clear_error(scripted, content_type, body):
    """Every part of a server's answer the engine uses is checked before use: NaN and Infinity, values of
    the wrong type and deep nesting are an EndpointError of one line, never a traceback."""
    url, handler = scripted
    handler.script = [(200, content_type, body, 0)]
    engine = OpenAIEngine(OpenAIConfig(base_url=url, model="m", retries=0))
    with pytest.raises(EndpointError, match="not an OpenAI-compatible") as caught:
        engine.generate(QUESTION, GenerationOptions(max_tokens=4))
    assert "\n" not in str(caught.value)


def test_token_counts_of_the_wrong_type_are_estimated(scripted):
    url, handler = scripted
    engine = OpenAIEngine(OpenAIConfig(base_url=url, model="m", retries=0))
    for content_type, body in [
        ("application/json", '{"choices": [{"message": {"content": "Rhine."}}], "usage": {"prompt_tokens": "many", '
                             '"completion_tokens": [2]}}'),
        ("text/event-stream", _sse('{"choices": [{"delta": {"content": "Rhine."}}]}',
                                   '{"choices": [], "usage": {"prompt_tokens": 1e400, "completion_tokens": true}}'))]:
        handler.script = [(200, content_type, body, 0)]
        result = engine.generate(QUESTION, GenerationOptions(max_tokens=4))
        assert result.text == "Rhine." and result.counted == "estimate"


def test_retries_server_errors_then_succeeds(scripted):
    url, handler = scripted
    ok = json.dumps({"choices": [{"message": {"content": "Rhine."}, "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": 7, "completion_tokens": 2}})
    handler.script = [(503, "application/json", '{"error": {"message": "loading"}}', 0), (200, "application/json", ok, 0)]
    engine = OpenAIEngine(OpenAIConfig(base_url=url, model="m", retries=2, backoff_s=0.01))
    result = engine.generate(QUESTION, GenerationOptions(max_tokens=4))
    assert result.text == "Rhine." and result.prompt_tokens == 7 and result.counted == "engine"
    assert len(handler.bodies) == 2
    handler.script = [(400, "application/json", '{"error": {"message": "bad request"}}', 0)]
    handler.bodies.clear()
    with pytest.raises(EndpointError, match="400.*bad request"):
        engine.generate(QUESTION, GenerationOptions(max_tokens=4))
    assert len(handler.bodies) == 1  # a client error is not retried


def test_timeout(scripted):
    url, handler = scripted
    handler.script = [(200, "application/json", "{}", 2.0)]
    engine = OpenAIEngine(OpenAIConfig(base_url=url, model="m", retries=0, timeout_s=0.3))
    with pytest.raises(EndpointError, match="did not answer within 0.3 s"):
        engine.generate(QUESTION, GenerationOptions(max_tokens=4))


def test_images_go_as_base64_parts(scripted, png):
    url, handler = scripted
    ok = json.dumps({"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]})
    handler.script = [(200, "application/json", ok, 0)]
    engine = OpenAIEngine(OpenAIConfig(base_url=url, model="m", api_key="k", vision=True, image_max_side=64, retries=0))
    result = engine.generate([Message("user", ["See ", ImagePart(png)])], GenerationOptions(max_tokens=4))
    assert result.counted == "estimate"  # no usage in the answer: our estimate, and said so
    sent = json.loads(handler.bodies[-1])
    parts = sent["messages"][0]["content"]
    assert parts[0] == {"type": "text", "text": "See "}
    assert parts[1]["type"] == "image_url" and parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    import base64
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(base64.b64decode(parts[1]["image_url"]["url"].split(",", 1)[1])))
    assert max(image.size) == 64


def test_bad_urls():
    with pytest.raises(EndpointError, match="not an http"):
        OpenAIEngine(OpenAIConfig(base_url="ftp://example.org/v1", model="m"))
    with pytest.raises(EndpointError, match="cannot resolve"):
        OpenAIEngine(OpenAIConfig(base_url="http://no-such-host.invalid/v1", model="m", retries=0)).generate(
            QUESTION, GenerationOptions(max_tokens=2))


def test_describes_itself_without_the_key(scripted):
    url, _ = scripted
    engine = OpenAIEngine(OpenAIConfig(base_url=url, model="m", api_key="secret-key-1", retries=3, timeout_s=45.0))
    info = engine.describe()
    assert (info.engine, info.model, info.retries, info.timeout_s) == ("openai", "m", 3, 45.0)
    assert info.api_key == "from keyring" and info.n_threads is None
    assert "secret-key-1" not in info.model_dump_json()
    assert set(info.model_dump()) == {"engine", "model", "base_url", "api_key", "context_length", "vision",
                                      "timeout_s", "retries"}
