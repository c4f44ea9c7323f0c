"""The app makes no network request of its own: full summaries and benchmarks run in processes whose
every attempt to reach the network fails loudly and is recorded (``netguard/sitecustomize.py``), and a
hostile HTML page — remote images, scripts, style sheets, frames, objects, a refresh, a base URL, and
references to a private file outside its folder — is read, summarized, shown and exported while a real
HTTP server on 127.0.0.1 waits for the requests that must never come."""

from __future__ import annotations

import http.server
import json
import os
import threading
import uuid
from pathlib import Path

import pytest
from PIL import Image, PngImagePlugin

from tests.conftest import DATA, DATA_PAPERS, REPO_ROOT
from tests.security.conftest import NETGUARD, AppHome, find_secret

DEMO = REPO_ROOT / "mmdocsum_desktop" / "resources" / "demo"
DEMO_DOCS = DEMO / "docs"


class Recorder:
    """A real HTTP server on 127.0.0.1 that answers everything (a PNG) and records every request."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        recorder = self
        image = (DEMO_DOCS / "bread_rise.png").read_bytes()

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _reply(self):
                recorder.requests.append(f"{self.command} {self.path}")
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(image)))
                self.end_headers()
                self.wfile.write(image)

            do_GET = do_POST = do_HEAD = _reply

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def recorder():
    server = Recorder()
    yield server
    server.close()


def guarded(app: AppHome, log: Path, mode: str) -> AppHome:
    app.env.update(PYTHONPATH=f"{NETGUARD}{os.pathsep}{REPO_ROOT}", NETGUARD_LOG=str(log), NETGUARD_MODE=mode)
    return app


def attempts(log: Path) -> list[dict]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def test_the_guard_blocks_and_records_and_the_recorder_hears(tmp_path, recorder):
    """Without this, the tests below would prove nothing."""
    log = tmp_path / "netguard.jsonl"
    app = guarded(AppHome.make(tmp_path / "app"), log, "block")
    fetch = "import urllib.request; urllib.request.urlopen({!r}, timeout=5).read()"
    done = app.run_module("tests.security.run_python", fetch.format("http://example.com/"))
    assert done.returncode != 0 and "network blocked by the test" in done.stderr, done.stderr[-1500:]
    done = app.run_module("tests.security.run_python",
                          f"import socket; socket.socket().connect(('127.0.0.1', {recorder.base.rsplit(':', 1)[1]}))")
    assert done.returncode != 0 and "network blocked by the test" in done.stderr
    done = app.run_module("tests.security.run_python", "import socket; socket.getaddrinfo('example.com', 443)")
    assert done.returncode != 0 and "network blocked by the test" in done.stderr
    events = [a["event"] for a in attempts(log)]
    assert "urllib.Request" in events and "socket.getaddrinfo" in events
    assert "socket.connect" in events or "socket.socket.connect" in events
    assert recorder.requests == []  # blocked before anything left the process

    recording = guarded(AppHome.make(tmp_path / "app2"), tmp_path / "recorded.jsonl", "record")
    done = recording.run_module("tests.security.run_python", fetch.format(f"{recorder.base}/probe.png"))
    assert done.returncode == 0, done.stderr[-1500:]
    assert recorder.requests == ["GET /probe.png"]  # the recorder hears what gets through
    assert "socket.connect" in [a["event"] for a in attempts(tmp_path / "recorded.jsonl")]


def test_summaries_and_benchmarks_run_with_the_network_blocked(tmp_path):
    log = tmp_path / "netguard.jsonl"
    app = guarded(AppHome.make(tmp_path / "app"), log, "block")
    runs = {
        "pdf": ["summarize", str(DATA_PAPERS / "PMC2803133.pdf"), "-o", "out/paper.md", "--quiet"],
        "html": ["summarize", str(DATA / "articles" / "PMC4521097.html"), "-o", "out/article.html", "--quiet"],
        "mdocsum": ["bench", "mdocsum", "-o", "out/mdocsum", "--quiet"],
        "ftii": ["bench", "ftii", "--data", str(DEMO / "ftii" / "flow_insertion.json"), "--images-root", str(DEMO),
                 "--captions", str(DEMO / "ftii" / "captions.json"), "-o", "out/ftii", "--quiet"],
    }
    for name, done in app.run_many(runs).items():
        assert done.returncode == 0, f"{name}: {done.stderr[-2000:]}"
        assert "network blocked" not in done.stderr
    out = app.cwd / "out"
    assert (out / "paper.md").read_text().count("\n## ") == 4
    assert (out / "article.html").read_text().count("<h2") == 4
    assert json.loads((out / "mdocsum" / "metrics.json").read_text())["n_docs"] == 5
    assert (out / "ftii" / "metrics.json").is_file()
    network = [a for a in attempts(log) if not a["local_ipc"]]
    assert network == [], network


# ---------------------------------------------------------------------------------------- hostile HTML


def _secret_png(path: Path, marker: str) -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", marker)
    Image.new("RGB", (120, 80), (200, 30, 30)).save(path, pnginfo=info)


def hostile_page(folder: Path, private: Path, remote: str) -> tuple[Path, list[str]]:
    """An HTML page that tries every way a page can reach out, and two private files it points at."""
    folder.mkdir(parents=True)
    private.mkdir(parents=True)
    image_secret = f"IMAGE-SECRET-{uuid.uuid4().hex}"
    text_secret = f"TEXT-SECRET-{uuid.uuid4().hex}"
    _secret_png(private / "secret.png", image_secret)
    (private / "secret.txt").write_text(text_secret)
    (private / "secret.css").write_text(f"body::after {{ content: '{text_secret}'; }}")
    Image.open(DEMO_DOCS / "bread_rise.png").save(folder / "rise.png")  # a figure of its own, beside it
    png, txt, css = private / "secret.png", private / "secret.txt", private / "secret.css"
    relative = os.path.relpath(png, folder)
    page = f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "{remote}/doctype.dtd">
<html lang="en"><head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="0; url={remote}/refresh">
<base href="{remote}/base/">
<title>Sourdough rises faster in a warm kitchen</title>
<link rel="stylesheet" href="{remote}/style.css">
<link rel="stylesheet" href="file://{css}">
<link rel="preload" href="{remote}/preload.js" as="script">
<link rel="prefetch" href="{remote}/prefetch.html">
<link rel="dns-prefetch" href="//dns-prefetch.example.invalid">
<link rel="icon" href="{remote}/favicon.ico">
<style>@import url("{remote}/import.css"); body {{ background: url({remote}/background.png); }}</style>
<script src="{remote}/script.js"></script>
<script>document.write('<p>SCRIPT-RAN</p>'); fetch('{remote}/fetch'); new Image().src = '{remote}/beacon.png';</script>
</head><body onload="fetch('{remote}/onload')">
<h1>Sourdough rises faster in a warm kitchen</h1>
<h2>Abstract</h2>
<p>We baked twelve loaves at three kitchen temperatures and measured how fast the dough rose over a day.</p>
<h2>Introduction</h2>
<p style="background-image: url('{remote}/inline-style.png')">Home bakers notice that bread rises slowly in
winter. Kitchen temperature changes with the seasons, and sourdough starters respond to warmth. We asked how
much the temperature of the kitchen changes the rising time of sourdough bread.</p>
<iframe src="{remote}/frame.html"></iframe>
<iframe src="file://{txt}"></iframe>
<h2>Method</h2>
<p>Dough was kept at 18, 22 and 26 degrees in three rooms. We measured the height of each loaf every hour
with a ruler, and twelve tasters scored the bread without knowing how it was made.</p>
<figure><img src="rise.png" alt="rise"><figcaption>Figure 1: Dough height over time at three temperatures.</figcaption></figure>
<figure><img src="{remote}/remote-figure.png" srcset="{remote}/srcset-1x.png 1x, {remote}/srcset-2x.png 2x"
 alt="remote"><figcaption>Figure 2: A figure that lives on a server.</figcaption></figure>
<figure><img src="file://{png}" alt="private"><figcaption>Figure 3: A private image by file URL.</figcaption></figure>
<figure><img src="{png}" alt="private"><figcaption>Figure 4: A private image by absolute path.</figcaption></figure>
<figure><img src="{relative}" alt="private"><figcaption>Figure 5: A private image outside the folder.</figcaption></figure>
<figure><img src="file://{txt}" alt="text"><figcaption>Figure 6: A private text file as an image.</figcaption></figure>
<figure><picture><source srcset="{remote}/picture-source.webp"><img src="//127.0.0.1:{remote.rsplit(':', 1)[1]}/protocol-relative.png"
 alt="p"></picture><figcaption>Figure 7: A picture element.</figcaption></figure>
<figure><img data-src="{remote}/lazy.png" alt="lazy"><figcaption>Figure 8: A lazily loaded image.</figcaption></figure>
<figure><video poster="{remote}/poster.png" src="{remote}/video.mp4"></video><figcaption>Figure 9: A video.</figcaption></figure>
<figure><svg xmlns="http://www.w3.org/2000/svg"><image href="{remote}/svg-image.png"/></svg><figcaption>Figure 10: SVG.</figcaption></figure>
<object data="{remote}/object.pdf"></object><object data="file://{txt}"></object>
<embed src="{remote}/embed.swf"><embed src="file://{png}">
<audio src="{remote}/audio.mp3"></audio>
<input type="image" src="{remote}/input.png">
<form action="{remote}/form"><input name="q"></form>
<h2>Results</h2>
<p>Dough at 26 degrees doubled in four hours; at 18 degrees it took nine hours, as Figure 1 shows. The
tasters preferred bread from the two warmer rooms. See <a href="{remote}/link">the data</a>.</p>
<img src="relative-through-base.png" alt="base">
<h2>Conclusion</h2>
<p>A warm kitchen halves the rising time of sourdough, and a warm spot near an appliance is enough.</p>
</body></html>
"""
    path = folder / "hostile.html"
    path.write_text(page, encoding="utf-8")
    return path, [image_secret, text_secret]


def test_a_hostile_page_fetches_nothing_runs_nothing_and_reads_no_private_file(tmp_path, recorder):
    log = tmp_path / "netguard.jsonl"
    # record only: an attempt the hook missed (Qt's own network code, say) would reach the recorder
    app = guarded(AppHome.make(tmp_path / "app"), log, "record")
    page, secrets = hostile_page(app.cwd / "page", tmp_path / "private", recorder.base)

    done = app.run("summarize", str(page), "-o", "out/summary.html", "--quiet", name="summarize")
    assert done.returncode == 0, done.stderr[-2000:]
    done = app.run("extract", str(page), "-o", "out/extract", "--quiet", name="extract")
    assert done.returncode == 0, done.stderr[-2000:]
    shown = app.run_module("tests.security.gui_open", str(page), str(app.cwd / "out" / "gui"), name="gui", timeout=240)
    assert shown.returncode == 0, shown.stderr[-3000:]
    report = json.loads(shown.stdout.strip().splitlines()[-1])
    assert report["opened"] and report["summary"] == "succeeded", report
    assert report["saved"] and set(report["exports"].values()) == {"succeeded"}, report

    assert recorder.requests == [], recorder.requests
    network = [a for a in attempts(log) if not a["local_ipc"]]
    assert network == [], network
    # its own figure, beside it, is read; nothing outside its folder is
    document = json.loads((app.cwd / "out" / "extract" / "document.json").read_text())
    images = [v for v in document["figures"] + document.get("tables", []) if v.get("image")]
    assert len(images) == 1 and Path(images[0]["source_image"]).name == "rise.png", images
    assert len(report["figures"]) >= 10 and sum(1 for image in report["figures"] if image) == 1, report
    files = app.files()
    # the scan must cover everything the three runs wrote (a count would depend on what onnxruntime
    # and the temp folder leave behind on a given machine)
    written = {str(p.relative_to(app.root)) for p in files}
    expected = {
        "work/out/summary.html", "work/out/extract/document.json", "work/out/gui/project.mdsproj",
        "work/out/gui/export.html", "work/out/gui/export.md", "work/out/gui/export.json", "work/out/gui/export.pdf",
        "home/.cache/mmdocsum-desktop/content-cache.sqlite",
    }
    assert expected <= written, sorted(expected - written)
    for secret in secrets:
        assert not find_secret(files, secret), f"{secret[:12]}… leaked into {find_secret(files, secret)}"
    for path in files:
        if path.name == "hostile.html":
            continue
        data = path.read_bytes()
        assert b"SCRIPT-RAN" not in data, path  # the page's script never ran
        if path.suffix == ".html":  # no exported page makes the browser that opens it fetch the remote
            assert recorder.base.encode() not in data, path
