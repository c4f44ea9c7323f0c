"""The llama engine on real GGUF files: SmolLM2-135M for text, a tiny random Qwen2-VL-style model with
its mmproj for the vision path (llama-cpp-python's MTMD handler), and bad files of every kind."""

from __future__ import annotations

import json
import shutil

import pytest

from mmdocsum_desktop.engines.base import GenerationOptions, ImagePart, Message
from mmdocsum_desktop.engines.gguf_check import check_chat_model, read_gguf_info
from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine, gpu_offload_supported
from mmdocsum_desktop.errors import ModelFormatError, SummaryCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.models.devices import plan_gpu_layers
from mmdocsum_desktop.summarize.prompt import answer_schema
from tests.engines.conftest import THREADS, require_llama

# runs a real language model (SmolLM2 or a tiny random GGUF): left out of `pytest -m "not slow"`
pytestmark = pytest.mark.slow

QUESTION = [Message("system", "You answer briefly."), Message("user", "Name three rivers of Europe.")]


def test_streams_text_with_token_counts(smollm_engine):
    pieces: list[str] = []
    result = smollm_engine.generate(QUESTION, GenerationOptions(max_tokens=24, temperature=0.0), on_text=pieces.append)
    assert len(pieces) > 3 and "".join(pieces) == result.text
    assert result.completion_tokens == len(smollm_engine.llm.tokenize(result.text.encode(), add_bos=False, special=True)) or \
        abs(result.completion_tokens - len(pieces)) <= 2
    assert result.prompt_tokens > smollm_engine.count_tokens("Name three rivers of Europe.")
    assert result.finish_reason in ("stop", "length") and result.counted == "engine"
    assert result.generation_tokens_per_s and result.generation_tokens_per_s > 1
    record = result.record("answer")
    assert (record.stage, record.prompt_tokens, record.completion_tokens) == ("answer", result.prompt_tokens,
                                                                              result.completion_tokens)
    assert record.generation_tokens_per_s == round(result.generation_tokens_per_s, 2)


def test_same_prompt_same_counts(smollm_engine):
    options = GenerationOptions(max_tokens=8, temperature=0.0)
    first = smollm_engine.generate(QUESTION, options)
    second = smollm_engine.generate(QUESTION, options)
    assert first.text == second.text and first.prompt_tokens == second.prompt_tokens  # no hidden prefix reuse


def test_json_schema_constrains_the_answer(smollm_engine):
    prompt = [Message("user", "Summarise in four paragraphs with an image each: forests reduce river flows.")]
    result = smollm_engine.generate(prompt, GenerationOptions(max_tokens=600, json_schema=answer_schema(2)))
    if result.finish_reason == "stop":
        answer = json.loads(result.text)
        assert len(answer) == 4
        assert all(item["image"]["imageRef"] in ("None", "1", "2") for item in answer)
    else:  # cut by the token limit: still JSON up to there
        assert result.text.lstrip().startswith("[")


def test_cancellation_mid_generation_keeps_the_text(smollm_engine):
    control = JobControl()
    seen: list[str] = []
    stream = smollm_engine.stream(
        [Message("user", "Tell a long story about a river.")], GenerationOptions(max_tokens=200), control=control
    )
    with pytest.raises(SummaryCancelled) as caught:
        for piece in stream:
            seen.append(piece)
            if len(seen) == 5:
                control.cancel()
    assert caught.value.partial["text"] == "".join(seen) and len(seen) == 5
    # the engine is usable after a cancellation
    assert smollm_engine.generate(QUESTION, GenerationOptions(max_tokens=4)).completion_tokens >= 1


def test_a_stopped_stream_ends_like_a_stop_sequence(smollm_engine):
    stream = smollm_engine.stream([Message("user", "Tell a long story about a river.")],
                                  GenerationOptions(max_tokens=200, temperature=0.0))
    seen: list[str] = []
    for piece in stream:
        seen.append(piece)
        if len(seen) == 6:
            stream.stop()
    assert len(seen) == 6 and stream.result is not None and stream.result.text == "".join(seen)
    assert stream.result.finish_reason == "stop" and 5 <= stream.result.completion_tokens < 20
    # the engine is usable after a stop
    assert smollm_engine.generate(QUESTION, GenerationOptions(max_tokens=4)).completion_tokens >= 1


def test_describes_device_and_gpu_offload(smollm_engine):
    info = smollm_engine.describe()
    assert info.device in ("cpu", "gpu") and isinstance(info.gpu_offload_supported, bool)
    assert info.n_ctx == 2048 and info.architecture == "llama"


def test_engine_info_records_the_automatic_gpu_layer_choice(smollm_engine, smollm, monkeypatch):
    monkeypatch.delenv("MMDOCSUM_DEVICE", raising=False)
    info = smollm_engine.describe()
    assert info.gpu_layers_requested == "auto"
    # the same figures give the same choice, whichever way it is asked for
    expected = plan_gpu_layers(smollm, requested="auto", n_ctx=info.n_ctx)
    assert (info.n_gpu_layers, info.device) == (expected.n_gpu_layers, expected.device)
    assert info.gpu_layers_reason and info.gpu_layers_reason.split(" (")[0] == expected.reason.split(" (")[0]
    if not info.gpu_offload_supported:
        # a CPU-only build is the normal case, not a fallback: no note in the summary
        assert not any("GPU" in w for w in smollm_engine.warnings)


def test_gpu_layers_on_a_cpu_build_warn_and_run(smollm):
    require_llama()
    engine = LlamaEngine(LlamaConfig(model=smollm, n_ctx=512, n_threads=THREADS, n_gpu_layers=99))
    try:
        if gpu_offload_supported():
            assert engine.device == "gpu"
        else:
            assert engine.device == "cpu" and any("cannot offload" in w for w in engine.warnings)
    finally:
        engine.close()


# ------------------------------------------------------------------------------------------- vision


@pytest.fixture(scope="module")
def vision_engine(tiny_vlm_files):
    require_llama()
    model, mmproj = tiny_vlm_files
    engine = LlamaEngine(LlamaConfig(model=model, mmproj=mmproj, n_ctx=1024, n_threads=THREADS))
    yield engine
    engine.close()


def test_vision_model_sees_the_image(vision_engine, png):
    assert vision_engine.supports_images
    assert type(vision_engine._chat_handler).__name__ == "MTMDChatHandler"
    with_image = vision_engine.generate(
        [Message("user", ["Describe ", ImagePart(png), " briefly."])], GenerationOptions(max_tokens=4)
    )
    text_only = vision_engine.generate([Message("user", "Describe  briefly.")], GenerationOptions(max_tokens=4))
    # the image went through the projector into the context: it costs tokens the text does not
    assert with_image.prompt_tokens >= text_only.prompt_tokens + 4
    assert with_image.completion_tokens >= 1


def test_vision_messages_carry_base64_images(vision_engine, png):
    converted = vision_engine.chat_messages([Message("user", ["Look: ", ImagePart(png)])])
    parts = converted[0]["content"]
    assert parts[0] == {"type": "text", "text": "Look: "}
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")


# ---------------------------------------------------------------------------------------- bad files


def _engine(model, mmproj=None):
    require_llama()
    return LlamaEngine(LlamaConfig(model=model, mmproj=mmproj, n_ctx=512, n_threads=THREADS))


def test_missing_empty_and_non_gguf_files(tmp_path):
    with pytest.raises(ModelFormatError, match="not found"):
        read_gguf_info(tmp_path / "nothing.gguf")
    (tmp_path / "empty.gguf").write_bytes(b"")
    with pytest.raises(ModelFormatError, match="empty"):
        read_gguf_info(tmp_path / "empty.gguf")
    (tmp_path / "page.gguf").write_text("<!DOCTYPE html><html>Not found</html>")
    with pytest.raises(ModelFormatError, match="HTML page"):
        read_gguf_info(tmp_path / "page.gguf")
    (tmp_path / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{}")
    with pytest.raises(ModelFormatError, match="safetensors"):
        read_gguf_info(tmp_path / "model.safetensors")


def test_truncated_gguf(smollm, tmp_path):
    cut = tmp_path / "cut.gguf"
    with smollm.open("rb") as source, cut.open("wb") as target:
        target.write(source.read(3_000_000))
    with pytest.raises(ModelFormatError, match="truncated"):
        _engine(cut)
    header_only = tmp_path / "header.gguf"
    header_only.write_bytes(smollm.read_bytes()[:5000])
    with pytest.raises(ModelFormatError, match="truncated"):
        read_gguf_info(header_only)


def test_projector_given_as_the_model(tiny_vlm_files):
    _, mmproj = tiny_vlm_files
    with pytest.raises(ModelFormatError, match="vision projector"):
        _engine(mmproj)


def test_mmproj_with_a_model_it_does_not_belong_to(smollm, tiny_vlm_files):
    _, mmproj = tiny_vlm_files
    with pytest.raises(ModelFormatError, match="does not belong"):
        _engine(smollm, mmproj)


def test_text_model_given_as_mmproj(smollm, tiny_vlm_files):
    model, _ = tiny_vlm_files
    with pytest.raises(ModelFormatError, match="not a vision projector"):
        _engine(model, smollm)


def test_wrong_architecture(tmp_path, smollm):
    import gguf
    import numpy as np

    unknown = tmp_path / "unknown.gguf"
    writer = gguf.GGUFWriter(str(unknown), "not-a-real-arch")
    writer.add_tensor("token_embd.weight", np.zeros((4, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ModelFormatError, match="not-a-real-arch"):
        _engine(unknown)
    bert = tmp_path / "bert.gguf"
    writer = gguf.GGUFWriter(str(bert), "bert")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    with pytest.raises(ModelFormatError, match="embedding"):
        check_chat_model(read_gguf_info(bert))


def test_vision_text_half_without_mmproj_warns(tiny_vlm_files, tmp_path):
    model, _ = tiny_vlm_files
    engine = _engine(model)
    try:
        assert not engine.supports_images
        assert any("without its --mmproj" in w for w in engine.warnings)
    finally:
        engine.close()


def test_renamed_copy_keeps_working(smollm, tmp_path):
    copy = tmp_path / "model.bin"
    shutil.copyfile(smollm, copy)  # an odd suffix is fine: the header decides
    engine = _engine(copy)
    try:
        assert engine.model_name and engine.context_length > 0
        assert engine.count_tokens("a figure caption") > 0  # the copy is really loaded and usable
    finally:
        engine.close()
