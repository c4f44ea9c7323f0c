"""Suites end to end with real engines: the extractive engine (no model file), and the openai engine
against a small OpenAI-compatible server on 127.0.0.1 that this test runs (concurrency, a judge, a
judge that answers garbage). Cancel keeps finished documents; the same call continues."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from mmdocsum_desktop.bench.glue import EngineSpec
from mmdocsum_desktop.bench.suites.mcite import run_mcite
from mmdocsum_desktop.bench.suites.mdocsum import MDocSumOptions, run_mdocsum
from mmdocsum_desktop.errors import JobCancelled
from mmdocsum_desktop.jobs import JobControl


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("MMDOCSUM_CONFIG_DIR", str(tmp_path / "config"))


def test_cancel_keeps_finished_documents_and_the_same_call_continues(tmp_path):
    out = tmp_path / "run"
    finished = []

    def on_progress(done, total, what):
        finished.append(done)
        if done >= 2:
            control.cancel()  # the user cancels once two documents are done

    control = JobControl(on_progress=on_progress)
    with pytest.raises(JobCancelled):
        run_mdocsum("demo", out, engine_spec=EngineSpec(engine="extractive"), control=control)
    kept = sorted(p.stem for p in (out / "predictions").glob("*.json"))
    assert len(kept) == 2
    partial = json.loads((out / "metrics.json").read_text())
    assert partial["cancelled"] is True and partial["n_docs"] == 2
    assert "cancelled" in (out / "report.md").read_text()

    metrics = run_mdocsum("demo", out, engine_spec=EngineSpec(engine="extractive"))
    assert metrics["timings"]["resumed"] == 2 and metrics["timings"]["processed"] == 3
    assert metrics["n_docs"] == 5 and not metrics["cancelled"]
    assert metrics["if"] == 1.0  # the app's own answers always follow the format
    assert 0.5 < metrics["omatch"] <= 1.0
    assert metrics["ts"] is None and metrics["rouge"]["rougeL"] > 0.2


class _FakeServer:
    """An OpenAI-compatible chat endpoint with a delay, counting requests in flight."""

    def __init__(self, judge_answers: str = "good", delay: float = 0.15) -> None:
        self.in_flight = 0
        self.peak = 0
        self.requests = 0
        self.lock = threading.Lock()
        self.judge_answers = judge_answers
        self.delay = delay
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # /v1/models
                self._send({"data": [{"id": "fake-model"}]})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                with owner.lock:
                    owner.in_flight += 1
                    owner.requests += 1
                    owner.peak = max(owner.peak, owner.in_flight)
                try:
                    time.sleep(owner.delay)
                    text = owner.answer(body["messages"])
                finally:
                    with owner.lock:
                        owner.in_flight -= 1
                self._send({
                    "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20},
                })

            def _send(self, payload):
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, messages) -> str:
        prompt = "\n".join(m["content"] if isinstance(m["content"], str) else
                           " ".join(p.get("text", "") for p in m["content"] if isinstance(p, dict)) for m in messages)
        count = re.search(r"exactly (\d+) numbers", prompt)
        if count or '"rating"' in prompt:
            if self.judge_answers == "garbage":
                return "This summary reads well overall, I would say."
            return json.dumps([1] * int(count.group(1))) if count else '{"rating": 2}'
        paragraphs = [
            {"summary": f"The study reports finding number {k}. It is explained briefly.",
             "image": {"imageRef": "1" if k == 3 else "None", "imageCaption": "the main chart"}}
            for k in range(1, 5)
        ]
        return "```json\n" + json.dumps(paragraphs) + "\n```"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _spec(url: str) -> EngineSpec:
    # The full-document prompt: the model's own M-DocSum answer is what these tests score.
    return EngineSpec(engine="openai", base_url=url, api_model="fake-model", ocr=False, llm_mode="full")


def test_server_engine_with_concurrency_and_a_judge(tmp_path):
    with _FakeServer() as server:
        metrics = run_mdocsum(
            "demo",
            tmp_path / "run",
            engine_spec=_spec(server.url),
            judge_spec=_spec(server.url),
            options=MDocSumOptions(concurrency=3),
        )
        assert server.peak >= 2  # documents really ran side by side
    assert metrics["n_docs"] == 5 and metrics["notes"] == []
    # the judge says every key point is covered and every sentence right: Com = Acc = TS = 1
    assert metrics["com"] == 1.0 and metrics["acc"] == 1.0 and metrics["ts"] == 1.0
    assert metrics["total"] == pytest.approx(0.1 * metrics["if"] + 0.45 + 0.45 * metrics["is"])
    # the model's own answer is scored too: fenced JSON with image 1 in paragraph 3 everywhere
    assert metrics["model_answer"]["if"] == 1.0
    assert metrics["model_answer"]["per_paragraph"][2]["omatch"] == pytest.approx(1 / 5)  # only bread's gold is 1
    assert metrics["settings"]["engine"]["engine"] == "openai"


def test_a_judge_that_answers_garbage_is_reported_per_document(tmp_path):
    with _FakeServer(judge_answers="garbage", delay=0.0) as server:
        metrics = run_mdocsum("demo", tmp_path / "run", engine_spec=_spec(server.url), judge_spec=_spec(server.url))
    assert metrics["com"] is None and metrics["acc"] is None and metrics["ts"] is None and metrics["total"] is None
    failures = metrics["judge"]["failures"]
    assert len(failures) == 5 and all(f["reasons"] for f in failures)
    assert "could not read them" in failures[0]["reasons"][0]
    raw = json.loads(next((tmp_path / "run" / "judge").glob("*.json")).read_text())["raw"]
    assert raw[0]["answer"] == "This summary reads well overall, I would say."
    assert "Judge answers that could not be used" in (tmp_path / "run" / "report.md").read_text()


def test_mcite_with_a_server_engine_and_judge(tmp_path):
    with _FakeServer(delay=0.0) as server:
        metrics = run_mcite("demo", tmp_path / "run", engine_spec=_spec(server.url), judge_spec=_spec(server.url))
    # The answers go through the app's answering path (as `mmdocsum ask`): the fake's summary-like text
    # cites nothing and is not supported by the sources, so its sentences are dropped and the best
    # evidence is quoted instead, citing the record's own source ids.
    answers = {p.stem: json.loads(p.read_text()) for p in (tmp_path / "run" / "responses").glob("*.json")}
    assert metrics["n_records"] == 2 and set(answers) == {"demo-q1", "demo-q2"}
    for answer in answers.values():
        repairs = [r["kind"] for r in answer["answer"]["repairs"]]
        if answer["answer"]["not_in_document"]:
            assert answer["sentence_citation_list"] == [] and answer["response"] == "The document does not say."
            continue
        assert "model-answer-replaced" in repairs and "unsupported-sentence-dropped" in repairs
        assert answer["sentence_citation_list"] and all(pair["Citation"] for pair in answer["sentence_citation_list"])
    cited = {r["id"]: r for r in metrics["records"]}
    assert all(not row["unknown_citations"] for row in cited.values())
    assert metrics["n_uncited"] == sum(a["answer"]["not_in_document"] for a in answers.values()) < 2
    # MCiteBench's own output form is written beside the metrics
    lines = [json.loads(line) for line in (tmp_path / "run" / "responses.jsonl").read_text().splitlines()]
    assert {line["question_id"] for line in lines} == {"demo-q1", "demo-q2"}
    assert all({"response", "sentence_citation_list"} <= set(line) for line in lines)
    assert metrics["answer_accuracy"] == 1.0  # the judge rated both answers 2 of 2
