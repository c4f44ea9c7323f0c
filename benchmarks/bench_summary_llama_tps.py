"""Prompt and generation tokens/s of the llama engine against raw llama-cpp-python on the same prompt.

The prompt is the pipeline's own summary prompt for a paper (default: the 2-page AMT handbook sample,
whose prompt fits SmolLM2's context). Both sides load the same GGUF with the same n_ctx, n_threads and
n_batch, stream with temperature 0 and the same seed (so they write the same tokens), and are timed the
same way: prompt tokens / time to the first streamed piece, and (generated tokens - 1) / the rest.
Token counts come from llama.cpp's performance counters on both sides. Runs alternate between the two
so that load on the machine hits both alike; medians are reported, unconstrained and with the JSON
grammar of the answer (the engine's default).

    python benchmarks/bench_summary_llama_tps.py --model PATH_OR_NAME [--paper NAME] [--runs 3] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from _corpus import PAPERS, write_result


def raw_run(llm, llama_cpp, messages, max_tokens, schema):
    llm.reset()
    llama_cpp.llama_perf_context_reset(llm.ctx)
    kwargs = {"messages": messages, "max_tokens": max_tokens, "temperature": 0.0, "seed": 0, "stream": True}
    if schema is not None:
        kwargs["response_format"] = {"type": "json_object", "schema": schema}
    started = time.perf_counter()
    first = None
    for chunk in llm.create_chat_completion(**kwargs):
        if chunk["choices"][0].get("delta", {}).get("content") and first is None:
            first = time.perf_counter()
    ended = time.perf_counter()
    perf = llama_cpp.llama_perf_context(llm.ctx)
    first = first or ended
    prompt_tokens, completion = perf.n_p_eval, perf.n_eval + 1
    return prompt_tokens / (first - started), (completion - 1) / max(ended - first, 1e-9), prompt_tokens, completion


def engine_run(engine, messages, max_tokens, schema):
    from mmdocsum_desktop.engines.base import GenerationOptions

    result = engine.generate(messages, GenerationOptions(max_tokens=max_tokens, temperature=0.0, seed=0, json_schema=schema))
    return result.prompt_tokens_per_s, result.generation_tokens_per_s, result.prompt_tokens, result.completion_tokens


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--paper", default="docling_amt_handbook_sample.pdf")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--max-tokens", type=int, default=256)
    args = parser.parse_args()

    import llama_cpp

    from mmdocsum_desktop.document.reader import export_document, read_document
    from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine, resolve_model_path
    from mmdocsum_desktop.placement.candidates import candidates_from_document
    from mmdocsum_desktop.summarize import prompt as prompts
    from mmdocsum_desktop.summarize.strategies.full_document import build_engine_messages_preview

    model = resolve_model_path(args.model)
    document = read_document(PAPERS / args.paper)
    with tempfile.TemporaryDirectory() as tmp:
        export_document(document, tmp, dpi=72)
        slots = prompts.make_slots(candidates_from_document(document, tmp))
    messages = build_engine_messages_preview(document, slots, vision=False, with_ocr=False)
    schema = prompts.answer_schema(len(slots))

    engine = LlamaEngine(LlamaConfig(model=model, n_ctx=args.n_ctx, n_threads=args.threads, n_batch=512))
    raw = llama_cpp.Llama(model_path=str(model), n_ctx=engine.context_length, n_threads=args.threads,
                          n_threads_batch=args.threads, n_batch=512, n_gpu_layers=engine.n_gpu_layers, seed=0, verbose=False)
    raw_messages = engine.chat_messages(messages)
    results = {}
    for label, grammar in (("unconstrained", None), ("json_grammar", schema)):
        ours, theirs = [], []
        for _ in range(args.runs):
            theirs.append(raw_run(raw, llama_cpp, raw_messages, args.max_tokens, grammar))
            ours.append(engine_run(engine, messages, args.max_tokens, grammar))
        row = {}
        for name, values in (("engine", ours), ("raw", theirs)):
            row[name] = {
                "prompt_tokens": values[0][2],
                "completion_tokens": values[0][3],
                "prompt_tokens_per_s": round(statistics.median(v[0] for v in values), 2),
                "generation_tokens_per_s": round(statistics.median(v[1] for v in values), 2),
            }
        row["prompt_ratio"] = round(row["engine"]["prompt_tokens_per_s"] / row["raw"]["prompt_tokens_per_s"], 3)
        row["generation_ratio"] = round(row["engine"]["generation_tokens_per_s"] / row["raw"]["generation_tokens_per_s"], 3)
        results[label] = row
        print(f"{label:>14}: prompt {row['engine']['prompt_tokens_per_s']:.1f} vs raw {row['raw']['prompt_tokens_per_s']:.1f} tok/s"
              f" ({row['prompt_ratio']:.1%});  generation {row['engine']['generation_tokens_per_s']:.1f} vs raw "
              f"{row['raw']['generation_tokens_per_s']:.1f} tok/s ({row['generation_ratio']:.1%});  "
              f"{row['engine']['prompt_tokens']} prompt / {row['engine']['completion_tokens']} generated tokens", flush=True)
    engine.close()
    raw.close()
    target = write_result(f"summary_llama_tps_{Path(model).stem}", {
        "model": str(Path(model).name),
        "paper": args.paper,
        "threads": args.threads,
        "runs": args.runs,
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "goal": "engine >= 95% of raw llama-cpp-python",
        "results": results,
    })
    print(f"written {target}")


if __name__ == "__main__":
    main()
