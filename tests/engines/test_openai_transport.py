"""Where the openai engine sends a secret (issue 38, item 5): an API key or a URL password goes over https
or to this computer only; plain http to another host is refused before any connection unless
``allow_insecure_key`` allows it (with a warning); URLs in messages never show ``user:password@``.

The "other host" is 0.0.0.0: not a loopback address by name, yet on Linux a connection to it reaches this
computer, so the allowed case talks to a real server on 127.0.0.1 and nothing leaves the machine."""

from __future__ import annotations

import socket
import sys
import uuid

import pytest

from mmdocsum_desktop import secrets
from mmdocsum_desktop.engines.base import GenerationOptions, Message
from mmdocsum_desktop.engines.openai import OpenAIConfig, OpenAIEngine, is_loopback_host, public_url
from mmdocsum_desktop.errors import EndpointError
from tests.security.conftest import KeyServer

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="0.0.0.0 reaches this computer on Linux")


@pytest.fixture()
def key():
    secrets.clear()
    yield f"sk-transport-{uuid.uuid4().hex}"
    secrets.clear()


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_key_over_plain_http_to_another_host_is_refused_before_any_request(key):
    with KeyServer(key) as server:
        url = f"http://0.0.0.0:{_port(server.url)}/v1"
        with pytest.raises(EndpointError) as caught:
            OpenAIEngine(OpenAIConfig(base_url=url, api_key=key, model="canned"))
        assert server.requests == []  # nothing was sent, the key least of all
    message = str(caught.value)
    assert "refusing to send the API key over plain http to 0.0.0.0" in message
    assert "--allow-insecure-key" in message and "\n" not in message


def test_the_explicit_option_sends_it_with_a_warning(key, recwarn):
    with KeyServer(key) as server:
        url = f"http://0.0.0.0:{_port(server.url)}/v1"
        engine = OpenAIEngine(OpenAIConfig(base_url=url, api_key=key, allow_insecure_key=True))
        assert engine.model_name == "canned"  # the models were listed with the key
        assert server.authorized == [("GET", "/v1/models")]
    assert any("sent over plain http to 0.0.0.0" in w for w in engine.warnings)
    assert any("sent over plain http" in str(w.message) for w in recwarn)


def test_loopback_and_https_need_no_option(key):
    with KeyServer(key) as server:
        engine = OpenAIEngine(OpenAIConfig(base_url=server.url.replace("127.0.0.1", "localhost"), api_key=key))
        assert engine.model_name == "canned" and engine.warnings == []
    assert [is_loopback_host(h) for h in ("127.0.0.1", "127.8.9.1", "::1", "[::1]", "LOCALHOST", "api.localhost")] == [True] * 6
    assert [is_loopback_host(h) for h in ("192.0.2.2", "0.0.0.0", "localhost.example.com", "10.0.0.1")] == [False] * 4
    # no key: plain http anywhere is the user's business (a local model server on the LAN)
    OpenAIEngine(OpenAIConfig(base_url="http://192.0.2.2:9/v1", model="canned"))


def test_a_password_in_the_url_is_never_printed_and_goes_as_basic_auth(key):
    password = f"pw-{uuid.uuid4().hex}"
    port = _closed_port()
    with pytest.raises(EndpointError) as caught:
        OpenAIEngine(OpenAIConfig(base_url=f"http://alice:{password}@127.0.0.1:{port}/v1", retries=0))
    assert password not in str(caught.value) and "alice" not in str(caught.value)
    assert f"127.0.0.1:{port}/v1" in str(caught.value)
    assert password not in secrets.scrub(f"echoed {password}")  # registered with the scrubber

    with KeyServer(key) as server:
        url = server.url.replace("http://", f"http://alice:{password}@")
        engine = OpenAIEngine(OpenAIConfig(base_url=url, model="canned"))
        assert engine.base_url == server.url and engine.describe().base_url == server.url
        with pytest.raises(EndpointError) as rejected:  # the key server wants a Bearer key: a 401
            engine.generate([Message("user", "hi")], GenerationOptions(max_tokens=8))
        assert password not in str(rejected.value)
        assert server.requests and server.requests[0][2].startswith("Basic ")

    # and to another host over plain http it is refused like a key
    with pytest.raises(EndpointError, match="the password in the URL over plain http to 192.0.2.2"):
        OpenAIEngine(OpenAIConfig(base_url=f"http://alice:{password}@192.0.2.2:9/v1", model="canned"))


def test_bad_urls_are_one_line_without_credentials():
    with pytest.raises(EndpointError, match="not a valid URL") as caught:
        OpenAIEngine(OpenAIConfig(base_url="http://bob:hunter2secret@127.0.0.1:99999/v1"))
    assert "hunter2secret" not in str(caught.value)
    assert public_url("https://u:p@example.org:8443/v1?x=1") == "https://example.org:8443/v1?x=1"
    assert public_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"
