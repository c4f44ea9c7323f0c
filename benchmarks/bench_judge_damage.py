"""Does the reference-free judge measure anything? Judge the extractive summary of each corpus paper
and three damaged copies of it (figures shuffled across paragraphs; one paragraph replaced by the
same-role paragraph of another paper's summary; every number changed), and count how often the judge
ranks the original above each damaged copy.

    .venv/bin/python benchmarks/bench_judge_damage.py --judge-model PATH.gguf [--papers A.pdf ...]
        [--threads 2] [-o benchmarks/results/judge_damage_NAME.json] [--resume]

All versions of one paper are judged against the same source excerpts (chosen from the sentences of
all of them), so only the damage differs between them. "Ranked above" compares the overall score (the
mean of the aspects the judge answered); ties are reported apart from wins. The aspect each damage
should hurt most is compared on its own too. Writes JSON after every paper; --resume skips papers done.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _damage import DAMAGES, damaged_versions  # noqa: E402

from mmdocsum_desktop.bench.glue import BenchEngine, EngineSpec  # noqa: E402
from mmdocsum_desktop.document.reader import read_document  # noqa: E402
from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine  # noqa: E402
from mmdocsum_desktop.fileio import write_json_atomic  # noqa: E402
from mmdocsum_desktop.judge.summary import SummaryJudge  # noqa: E402
from mmdocsum_desktop.models.hashing import sha256_file  # noqa: E402

PAPERS = Path(os.environ.get("MMDOCSUM_CORPUS") or REPO.parent / "shared" / "corpus") / "papers"
# the aspect each damage should lower most
TARGET_ASPECT = {
    "shuffled_figures": "text_image_coherence",
    "foreign_paragraph": "faithfulness",
    "changed_numbers": "faithfulness",
}


def extractive_summaries(papers: list[Path], work: Path) -> dict[str, tuple[dict, Path]]:
    """The extractive summary record of every paper (kept in ``work`` between runs)."""
    engine = None
    records = {}
    try:
        for paper in papers:
            cached = work / f"{paper.stem}.json"
            if cached.is_file():
                records[paper.stem] = (json.loads(cached.read_text(encoding="utf-8")), work)
                continue
            engine = engine or BenchEngine.build(EngineSpec(engine="extractive"))
            record = engine.summary_record(paper, work / f"{paper.stem}_files")
            write_json_atomic(cached, record)
            records[paper.stem] = (record, work)
    finally:
        if engine is not None:
            engine.close()
    return records


def compare(original: float | None, damaged: float | None) -> str | None:
    if original is None or damaged is None:
        return None
    return "win" if original > damaged else "tie" if original == damaged else "loss"


def tally(papers: list[dict]) -> dict:
    result = {}
    for damage in DAMAGES:
        overall = [p["comparisons"][damage]["overall"] for p in papers if p["comparisons"].get(damage)]
        target = [p["comparisons"][damage]["target"] for p in papers if p["comparisons"].get(damage)]
        row = {}
        for name, outcomes in (("overall", overall), ("target_aspect", target)):
            decided = [o for o in outcomes if o is not None]
            row[name] = {
                "n": len(decided),
                "wins": decided.count("win"),
                "ties": decided.count("tie"),
                "losses": decided.count("loss"),
                "win_fraction": round(decided.count("win") / len(decided), 3) if decided else None,
            }
        row["target_aspect"]["aspect"] = TARGET_ASPECT[damage]
        result[damage] = row
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge-model", type=Path, required=True, help="GGUF of the judge")
    parser.add_argument("--papers", nargs="*", type=Path, default=None, help="default: every corpus paper")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--max-source-chars", type=int, default=3000)
    parser.add_argument("--max-tokens", type=int, default=64, help="of each judge answer (score first)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=Path("/tmp/mmdocsum-judge-damage"),
                        help="where the extractive summaries and figure crops are kept between runs")
    parser.add_argument("-o", "--output", type=Path, default=None)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()

    papers = args.papers or sorted(PAPERS.glob("*.pdf"))
    name = args.judge_model.name.removesuffix(".gguf").lower()
    out = args.output or REPO / "benchmarks" / "results" / f"judge_damage_{name}.json"
    args.work.mkdir(parents=True, exist_ok=True)
    summaries = extractive_summaries(papers, args.work)

    engine = LlamaEngine(LlamaConfig(model=args.judge_model, n_ctx=args.n_ctx, n_threads=args.threads))
    judge = SummaryJudge(engine, max_source_chars=args.max_source_chars, max_tokens=args.max_tokens)
    done: dict[str, dict] = {}
    if args.resume and out.is_file():
        done = {p["paper"]: p for p in json.loads(out.read_text(encoding="utf-8")).get("papers", [])}

    results = []
    stems = [p.stem for p in papers]
    for k, paper in enumerate(papers):
        if paper.stem in done:
            results.append(done[paper.stem])
            continue
        record, base = summaries[paper.stem]
        donor = summaries[stems[(k + 1) % len(stems)]][0] if len(stems) > 1 else None
        versions = {"original": record, **damaged_versions(record, donor, args.seed)}
        present = {v: r for v, r in versions.items() if r is not None}
        document = read_document(paper)
        started = time.perf_counter()
        judged = {}
        for version, summary in present.items():
            judgement = judge.judge(document, summary, base_dir=base, evidence_from=list(present.values()))
            judged[version] = judgement.to_json()
            print(f"{paper.stem:40s} {version:18s} overall {judgement.overall!s:6.6s} "
                  f"{judgement.seconds:6.1f} s  missing {judgement.missing}", flush=True)
        seconds = time.perf_counter() - started
        original = judged["original"]
        comparisons = {}
        for damage in DAMAGES:
            if damage not in judged:
                comparisons[damage] = None
                continue
            aspect = TARGET_ASPECT[damage]
            comparisons[damage] = {
                "overall": compare(original["overall"], judged[damage]["overall"]),
                "target": compare(original["aspects"][aspect]["score"], judged[damage]["aspects"][aspect]["score"]),
                "original_overall": original["overall"],
                "damaged_overall": judged[damage]["overall"],
            }
        results.append(
            {
                "paper": paper.stem,
                "versions": {v: {"overall": j["overall"], "aspects": {a: s["score"] for a, s in j["aspects"].items()},
                                 "missing": j["missing"], "seconds": j["seconds"], "calls": j["calls"],
                                 "prompt_tokens": j["prompt_tokens"], "completion_tokens": j["completion_tokens"]}
                             for v, j in judged.items()},
                "explanations": {v: {a: s["explanation"] for a, s in j["aspects"].items()} for v, j in judged.items()},
                "damage": {v: present[v].get("damage") for v in present if v != "original"},
                "comparisons": comparisons,
                "seconds": round(seconds, 2),
            }
        )
        write_json_atomic(out, report(results, args, engine))
    final = report(results, args, engine)
    write_json_atomic(out, final)
    print(json.dumps({k: final[k] for k in ("judge", "ranking", "seconds_per_document")}, indent=2))
    engine.close()
    return 0


def report(results: list[dict], args: argparse.Namespace, engine: LlamaEngine) -> dict:
    per_document = [p["seconds"] for p in results]
    per_version = [v["seconds"] for p in results for v in p["versions"].values()]
    missing = sum(len(v["missing"]) for p in results for v in p["versions"].values())
    answers = sum(len(v["aspects"]) for p in results for v in p["versions"].values())
    return {
        "judge": {
            "model": args.judge_model.name,
            "sha256": sha256_file(args.judge_model),
            "n_ctx": engine.context_length,
            "threads": args.threads,
            "max_source_chars": args.max_source_chars,
            "max_tokens": args.max_tokens,
        },
        "ranking": tally(results),
        "seconds_per_document": {
            "median": round(statistics.median(per_document), 2) if per_document else None,
            "what": "all versions (original + damaged) of one paper, five aspects each",
        },
        "seconds_per_summary": round(statistics.median(per_version), 2) if per_version else None,
        "missing_answers": missing,
        "aspect_answers": answers,
        "papers": results,
    }


if __name__ == "__main__":
    raise SystemExit(main())
