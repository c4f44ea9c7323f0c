"""Summaries a reader can trust, measured on the PDF + JATS pairs of ../shared/corpus/pmc (fixed split of
bench/pairs_split.py: tune on dev, report test).

For the extractive engine and for the grounded writer (SmolLM2-135M, Qwen2.5-Coder-1.5B or any GGUF),
each paper is summarised with the abstract left out (``include_abstract=False``) and scored against its
JATS, with the pairs suite's own metric functions (bench/metrics/pairs.py, bench/metrics/rouge.py):

- where each summary sentence comes from: body, abstract, back matter, caption, table, front, nowhere
  (junk = back + caption + table + front; a written sentence that paraphrases is often "nowhere", so for
  the writer the provenance of the evidence it cites is given too);
- broken characters (U+FFFD, private use, soft hyphens, ligatures, split words); dangling openers (a
  paragraph that opens with "However,"/"This", or an extracted "This …" whose predecessor is not before it);
- ROUGE-1/2/Lsum against the abstract (and the eLife digest when there is one);
- the writer's support share (written sentences supported by their evidence) and dropped sentences;
- figure grounding: a paragraph's figure is grounded when the JATS cites it in a top-level section that
  the paragraph's cited passages come from; and the share of paragraphs that show a figure;
- seconds per summary (median), prompt and generation tokens per paper.

    .venv/bin/python benchmarks/bench_summary_grounded.py --engine extractive --split test
    .venv/bin/python benchmarks/bench_summary_grounded.py --engine grounded --model smollm2-135m --split test
    .venv/bin/python benchmarks/bench_summary_grounded.py --engine grounded --model ~/.cache/mmdocsum/qwen.gguf \
        --split test --limit 8 --threads 2

Writes benchmarks/results/summary_grounded_<engine>[_<model>]_<split>.json (per paper and pooled).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mmdocsum_desktop.bench.metrics import pairs as m  # noqa: E402
from mmdocsum_desktop.bench.metrics.rouge import rouge  # noqa: E402
from mmdocsum_desktop.bench.pairs_gold import read_gold  # noqa: E402
from mmdocsum_desktop.bench.pairs_split import pairs_in  # noqa: E402
from mmdocsum_desktop.jobs import JobControl  # noqa: E402
from mmdocsum_desktop.schemas.document import Document  # noqa: E402
from mmdocsum_desktop.summarize.extractive import opener  # noqa: E402
from mmdocsum_desktop.text.sentences import split_sentences  # noqa: E402

PAIRS = Path(os.environ.get("MMDOCSUM_CORPUS") or ROOT.parent / "shared" / "corpus") / "pmc"
RESULTS = ROOT / "benchmarks" / "results"
JUNK_PARTS = ("back", "caption", "table", "front")
_DIGITS = re.compile(r"^\d+$")


def _content_words(text: str) -> list[str]:
    return [w for w in m.words(text) if not _DIGITS.match(w)]


def adjacent_pairs(gold) -> set[tuple[str, ...]]:
    """Word 6-grams across the body (reference numbers left out): two sentences that follow each other in
    the paper share one across their boundary."""
    grams: set[tuple[str, ...]] = set()
    for paragraph in gold.paragraphs:
        tokens = _content_words(paragraph.text)
        grams.update(tuple(tokens[i : i + 6]) for i in range(len(tokens) - 5))
    return grams


def dangling(sentences: list[str], extracted: bool, adjacency: set[tuple[str, ...]]) -> int:
    count = 0
    for k, sentence in enumerate(sentences):
        if opener(sentence) is None:
            continue
        if k == 0:
            count += 1
        elif extracted:
            joint = _content_words(sentences[k - 1])[-3:] + _content_words(sentence)[:3]
            if len(joint) == 6 and tuple(joint) not in adjacency:
                count += 1
    return count


def load_document(pair, documents: Path | None) -> Document:
    if documents is not None and (documents / f"{pair.name}.json").is_file():
        return Document.model_validate_json((documents / f"{pair.name}.json").read_text(encoding="utf-8"))
    from mmdocsum_desktop.document.reader import read_document

    return read_document(pair.pdf)


def make_engine(args):
    from mmdocsum_desktop.models.embed import TextEmbedder

    embedder = TextEmbedder()
    if args.engine == "extractive":
        return None, embedder  # the extractive summary needs no text engine
    from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine, resolve_model_path

    engine = LlamaEngine(LlamaConfig(model=resolve_model_path(args.model), n_ctx=args.n_ctx, n_threads=args.threads))
    return engine, embedder


def score_paper(pair, document, summary, gold, adjacency, extracted: bool) -> dict:
    index = m.gold_parts(gold)
    gold_texts = [p.text for p in gold.paragraphs]
    top = [p.section_path[0] if p.section_path else None for p in gold.paragraphs]
    label_of = {v.id: (v.label or v.id).lower() for v in gold.visuals}
    citing: dict[str, set[str]] = {}
    for paragraph, section in zip(gold.paragraphs, top):
        for rid in paragraph.cites:
            if rid in label_of and section:
                citing.setdefault(label_of[rid], set()).add(section)
    blocks = {b.id: b.text for b in document.blocks}
    parts: dict[str, int] = {}
    evidence_parts: dict[str, int] = {}
    broken = dict.fromkeys(m.broken_characters(""), 0)
    grounded: list[bool | None] = []
    dangling_count = 0
    examples: list[dict] = []
    for paragraph in summary.paragraphs:
        sentences = [s.text for s in paragraph.sentences] or split_sentences(paragraph.text)
        matches = m.match_paragraphs(sentences, gold_texts, min_share=0.5)
        for sentence, match in zip(sentences, matches):
            part = "body" if match is not None else m.provenance(sentence, index)
            parts[part] = parts.get(part, 0) + 1
            if part in (*JUNK_PARTS, "nowhere") and len(examples) < 6:
                examples.append({"part": part, "text": sentence[:200]})
        cited_blocks = list(dict.fromkeys(b for s in paragraph.sentences for b in s.blocks if b in blocks))
        cited_texts = [blocks[b] for b in cited_blocks]
        for text in cited_texts:
            part = m.provenance(text, index)
            evidence_parts[part] = evidence_parts.get(part, 0) + 1
        block_matches = m.match_paragraphs(cited_texts, gold_texts, min_share=0.4)
        sections = [top[x] for x in [*matches, *block_matches] if x is not None]
        figure = paragraph.figure.label.lower() if paragraph.figure is not None and paragraph.figure.label else None
        grounded.append(m.grounded(figure, sections, citing) if paragraph.figure is not None else None)
        for kind, count in m.broken_characters(paragraph.text).items():
            broken[kind] += count
        dangling_count += dangling(sentences, extracted, adjacency)
    text = "\n".join(p.text for p in summary.paragraphs if p.text.strip())
    writer = summary.model_dump().get("grounding") or {}
    generations = summary.generations or []
    row = {
        "id": pair.name,
        "split": pair.split,
        "sentences": parts,
        "evidence_sources": evidence_parts,
        "junk_examples": examples,
        "broken": broken,
        "dangling": dangling_count,
        "grounded": grounded,
        "figures": [p.figure.label if p.figure is not None else None for p in summary.paragraphs],
        "words": sum(p.words for p in summary.paragraphs),
        "seconds": round(summary.timings.get("total_s", 0.0), 3),
        "cpu_seconds": round(summary.timings.get("cpu_s", 0.0), 3),
        "prompt_tokens": sum(g.get("prompt_tokens", 0) for g in generations),
        "completion_tokens": sum(g.get("completion_tokens", 0) for g in generations),
        "written": writer.get("written"),
        "supported": writer.get("supported"),
        "dropped": writer.get("dropped"),
        "replaced": writer.get("replaced"),
        "model_calls": sum(g.get("calls", 1) for g in generations),
        "fallbacks": [r.get("kind") for r in summary.repairs],
    }
    if gold.abstract:
        row["rouge_abstract"] = {k: round(v, 4) for k, v in rouge(text, gold.abstract).items() if k in ("rouge1", "rouge2", "rougeL")}
    if gold.digest:
        row["rouge_digest"] = {k: round(v, 4) for k, v in rouge(text, gold.digest).items() if k in ("rouge1", "rouge2", "rougeL")}
    return row


def pooled(rows: list[dict]) -> dict:
    sources: dict[str, int] = {}
    for r in rows:
        for k, v in r["sentences"].items():
            sources[k] = sources.get(k, 0) + v
    total = sum(sources.values()) or 1
    evidence: dict[str, int] = {}
    for r in rows:
        for k, v in r["evidence_sources"].items():
            evidence[k] = evidence.get(k, 0) + v
    evidence_total = sum(evidence.values()) or 1
    shown = [g for r in rows for g in r["grounded"] if g is not None]
    paragraphs = sum(len(r["grounded"]) for r in rows) or 1
    written = sum(r["written"] or 0 for r in rows)
    supported = sum(r["supported"] or 0 for r in rows)

    def mean_of(key: str, name: str) -> float | None:
        values = [r[key][name] for r in rows if key in r]
        return round(statistics.fmean(values), 4) if values else None

    return {
        "papers": len(rows),
        "sentences": total,
        "sentence_sources": {k: round(v / total, 4) for k, v in sorted(sources.items())},
        "junk_share": round(sum(sources.get(p, 0) for p in JUNK_PARTS) / total, 4),
        "junk_or_nowhere_share": round(sum(sources.get(p, 0) for p in (*JUNK_PARTS, "nowhere")) / total, 4),
        "evidence_sources": {k: round(v / evidence_total, 4) for k, v in sorted(evidence.items())},
        "evidence_junk_share": round(sum(evidence.get(p, 0) for p in (*JUNK_PARTS, "nowhere")) / evidence_total, 4),
        "broken_chars": sum(sum(r["broken"].values()) for r in rows),
        "dangling_openers": sum(r["dangling"] for r in rows),
        "rouge1": mean_of("rouge_abstract", "rouge1"),
        "rouge2": mean_of("rouge_abstract", "rouge2"),
        "rougeLsum": mean_of("rouge_abstract", "rougeL"),
        "digest_rouge1": mean_of("rouge_digest", "rouge1"),
        "support_share": round(supported / written, 4) if written else None,
        "written_sentences": written or None,
        "dropped_sentences": sum(r["dropped"] or 0 for r in rows) if written else None,
        "replaced_by_evidence": sum(r.get("replaced") or 0 for r in rows) if written else None,
        "paragraphs_from_evidence": sum(r["fallbacks"].count("paragraph from evidence") for r in rows),
        "figure_grounding": round(sum(shown) / len(shown), 4) if shown else None,
        "figures_shown": len(shown),
        "paragraphs_with_figure": round(len(shown) / paragraphs, 4),
        "median_seconds": round(statistics.median(r["seconds"] for r in rows), 3) if rows else None,
        "median_cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in rows), 3) if rows else None,
        "median_prompt_tokens": statistics.median(r["prompt_tokens"] for r in rows) if rows else None,
        "median_completion_tokens": statistics.median(r["completion_tokens"] for r in rows) if rows else None,
        "median_words": statistics.median(r["words"] for r in rows) if rows else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("extractive", "grounded", "full"), default="extractive")
    parser.add_argument("--model", help="GGUF path or registered name (grounded, full)")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test")
    parser.add_argument("--limit", type=int, help="first N papers of the split (by name)")
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--documents", type=Path, help="folder of Document JSON already read (NAME.json)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--time-limit", type=float, help="seconds for all model calls of one summary")
    parser.add_argument("-o", "--output", type=Path)
    args = parser.parse_args(argv)
    if args.engine != "extractive" and not args.model:
        parser.error("--model is needed for the grounded and full engines")

    from mmdocsum_desktop.document.limits import DEFAULT_LIMITS
    from mmdocsum_desktop.document.pdf import render_visuals
    from mmdocsum_desktop.schemas.summary import SummaryOptions
    from mmdocsum_desktop.summarize.pipeline import summarize_document

    pairs = [p for p in pairs_in(args.pairs, args.split) if p.pdf is not None]
    if args.limit:
        pairs = pairs[: args.limit]
    engine, embedder = make_engine(args)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for pair in pairs:
            gold = read_gold(pair.xml)
            document = load_document(pair, args.documents)
            assets = Path(scratch) / pair.name
            (assets / "figures").mkdir(parents=True, exist_ok=True)
            render_visuals(document, assets / "figures", dpi=72, password=None, limits=DEFAULT_LIMITS, control=JobControl())
            options = SummaryOptions(include_abstract=False, llm_mode="full" if args.engine == "full" else "grounded",
                                     time_limit_s=args.time_limit)
            load = os.getloadavg()[0]
            started, cpu = time.perf_counter(), time.process_time()
            summary = summarize_document(document, assets, engine=engine, embedder=embedder, options=options)
            summary.timings["total_s"] = time.perf_counter() - started
            summary.timings["cpu_s"] = time.process_time() - cpu
            row = score_paper(pair, document, summary, gold, adjacent_pairs(gold), extracted=args.engine == "extractive")
            row["summary"] = [{"text": p.text, "figure": p.figure.label if p.figure else None,
                               "caption": p.image_caption} for p in summary.paragraphs]
            row["repairs"] = [r.model_dump(mode="json") for r in summary.repairs]
            row["load_average_1min"] = round(load, 2)
            rows.append(row)
            write_result(args, rows)  # after every paper: a run stopped early still leaves its numbers
            print(f"{pair.name} {pair.split} R1={row.get('rouge_abstract', {}).get('rouge1')} "
                  f"junk={ {k: v for k, v in row['sentences'].items() if k != 'body'} } "
                  f"dangling={row['dangling']} figs={row['figures']} grounded={row['grounded']} "
                  f"{row['seconds']:.1f}s written={row['written']} supported={row['supported']}", flush=True)
    if engine is not None:
        engine.close()
    result, output = write_result(args, rows)
    print(json.dumps(result["pooled"], indent=1))
    print(f"written {output}")
    return 0


def write_result(args, rows: list[dict]) -> tuple[dict, Path]:
    from mmdocsum_desktop.fileio import write_json_atomic

    result = {
        "benchmark": "summary_grounded",
        "engine": args.engine,
        "model": args.model,
        "split": args.split,
        "limit": args.limit,
        "threads": args.threads,
        "include_abstract": False,
        "machine": "2-core development machine shared with other jobs (each paper's 1-minute load average "
                   "is in its row); cpu_seconds is the process's CPU time (all its threads)",
        "pooled": pooled(rows),
        "papers": rows,
    }
    name = args.engine if args.engine == "extractive" else f"{args.engine}_{Path(str(args.model)).stem.lower()}"
    output = args.output or RESULTS / f"summary_grounded_{name}_{args.split}{f'_{args.limit}' if args.limit else ''}.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(output, result)
    return result, output


if __name__ == "__main__":
    raise SystemExit(main())
