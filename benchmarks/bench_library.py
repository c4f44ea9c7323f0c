"""The library (issue 36): index N corpus papers, add them again, ask across them.

A folder of links to N corpus papers — every pmc PDF that a question of ``ask_questions_SPLIT.jsonl``
is about first, then more pmc PDFs, then eLife JATS articles (``--elife``) — is added the way
``mmdocsum library add FOLDER`` adds it (``app.library.add_paths``, a fresh library and a fresh
embedding cache, so every passage is embedded: the cold cost a user pays). Measured:

* indexing: wall and CPU seconds, PDF pages per CPU-second (JATS articles have no pages: their papers
  per CPU-second apart), peak resident memory of the process (``ru_maxrss``, models included);
* adding the same folder again (nothing changed): seconds;
* library-wide ask (``app.library.ask_library``, cross-encoder on): warm seconds per question (one
  question asked first to load the models), CPU beside wall; the question's paper among the top 3,
  and its gold figure or table the first visual of the top paper (counted over all questions).

Goals (issue 36): ≥ 1 page per CPU-second, ≤ 1.5 GB, re-add ≤ 5 s, ask ≤ 2 s warm over 1,000 papers,
top-3 paper ≥ 0.9, visual first ≥ 0.6. The script extrapolates to 1,000 papers only where the cost is
linear (indexing) and says so; ask's lexical and dense stages grow with the passages, reported apart.

    nice -n 10 .venv/bin/python benchmarks/bench_library.py --pmc 40 --elife 20
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _corpus import CORPUS, REPO_ROOT, write_result

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.schemas.library import AddPathsRequest, LibraryAskRequest
from mmdocsum_desktop.schemas.settings import Settings


def load_questions(split: str) -> list[dict[str, str]]:
    path = REPO_ROOT / "benchmarks" / f"ask_questions_{split}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def choose(questions: list[dict[str, str]], pmc: int, elife: int) -> list[Path]:
    asked = list(dict.fromkeys(q["paper"] for q in questions))
    pdfs = sorted((CORPUS / "pmc").glob("*.pdf"))
    by_name = {p.stem: p for p in pdfs}
    chosen = [by_name[name] for name in asked if name in by_name][:pmc]
    chosen += [p for p in pdfs if p not in chosen][: max(0, pmc - len(chosen))]
    chosen += sorted((CORPUS / "elife").glob("*.xml"))[:elife]
    return chosen


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: kilobytes


def replicate(library_dir: Path, copies: int) -> None:
    """Each paper and its content ``copies`` more times (new hashes and paths), straight in SQL: the
    passages, their vectors and FTS rows are copied, not recomputed."""
    conn = sqlite3.connect(library_dir / "library.sqlite")
    columns = [r[1] for r in conn.execute("PRAGMA table_info(passages)") if r[1] not in ("id", "content_hash")]
    listed = ", ".join(columns)
    for k in range(1, copies + 1):
        conn.execute("INSERT INTO contents SELECT hash || ?, title, language, pages, figures, tables, doi, passages, "
                     "indexed_at, read_seconds FROM contents WHERE hash NOT LIKE '%#%'", (f"#{k}",))
        conn.execute(f"INSERT INTO passages(content_hash, {listed}) SELECT content_hash || ?, {listed} FROM passages "
                     "WHERE content_hash NOT LIKE '%#%'", (f"#{k}",))
        conn.execute("INSERT INTO visuals SELECT content_hash || ?, position, label, kind, page, caption FROM visuals "
                     "WHERE content_hash NOT LIKE '%#%'", (f"#{k}",))
        paper_columns = [r[1] for r in conn.execute("PRAGMA table_info(papers)")
                         if r[1] not in ("id", "source_path", "content_hash")]
        plain = ", ".join(paper_columns)
        conn.execute(f"INSERT INTO papers(source_path, content_hash, {plain}) SELECT source_path || ?, "
                     f"content_hash || ?, {plain} FROM papers WHERE content_hash NOT LIKE '%#%'", (f"#{k}", f"#{k}"))
    conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
    conn.commit()
    conn.close()


def scaled_latency(work: Path, asked: list[dict[str, str]], target: int) -> dict[str, object]:
    scaled = work / "scaled"
    if scaled.exists():
        shutil.rmtree(scaled)
    scaled.mkdir()
    with use.Library(work / "library") as library:  # a consistent copy of the WAL library
        library.store.backup(scaled / "library.sqlite")
        n = len(library.papers())
    replicate(scaled, max(0, round(target / n) - 1))
    settings = Settings.model_validate({"engines": {"engine": "extractive"}})
    walls, cpus, stages = [], [], []
    with Session(settings) as session, use.Library(scaled) as library:
        papers = len(library.papers())
        started = time.perf_counter()
        use.ask_library(session, library, LibraryAskRequest(question="What was measured in the first table?"))
        first = time.perf_counter() - started
        for question in asked:
            started, cpu = time.perf_counter(), time.process_time()
            answer = use.ask_library(session, library, LibraryAskRequest(question=question["question"]))
            walls.append(time.perf_counter() - started)
            cpus.append(time.process_time() - cpu)
            stages.append(answer.timings)
    return {
        "papers": papers, "first_question_s": round(first, 2), "peak_rss_mb": round(peak_rss_mb(), 1),
        "ask_wall_median_s": round(statistics.median(walls), 3), "ask_cpu_median_s": round(statistics.median(cpus), 3),
        "ask_stage_median_s": {stage: round(statistics.median(t.get(stage, 0.0) for t in stages), 4)
                               for stage in ("load_s", "embed_s", "dense_s", "fts_s", "rerank_s", "papers_s")},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pmc", type=int, default=40, help="pmc PDFs (the asked ones first)")
    parser.add_argument("--elife", type=int, default=20, help="eLife JATS articles")
    parser.add_argument("--split", choices=("dev", "test"), default="test")
    parser.add_argument("--work", type=Path, default=None, help="folder for the library (default: a temporary one)")
    parser.add_argument("--scale-to", type=int, default=1000, metavar="N",
                        help="then time the questions over a copy of the library whose papers are replicated "
                             "to about N (latency only: the copies make accuracy meaningless); 0: skip")
    args = parser.parse_args()
    if not (CORPUS / "pmc").is_dir():
        print(f"bench_library: no corpus at {CORPUS} (set MMDOCSUM_CORPUS)", file=sys.stderr)
        return 2
    questions = load_questions(args.split)
    papers = choose(questions, args.pmc, args.elife)
    work = args.work or Path(tempfile.mkdtemp(prefix="mmdocsum-bench-library-"))
    folder = work / "papers"
    folder.mkdir(parents=True, exist_ok=True)
    for paper in papers:
        link = folder / paper.name
        if not link.exists():
            link.symlink_to(paper)
    # a fresh embedding cache: the passages are embedded, as on a user's first add
    os.environ["MMDOCSUM_CACHE_DIR"] = str(work / "cache")

    settings = Settings.model_validate({"engines": {"engine": "extractive"}})
    with Session(settings) as session, use.Library(work / "library") as library:
        started, cpu = time.perf_counter(), time.process_time()
        added = use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        index_wall, index_cpu = time.perf_counter() - started, time.process_time() - cpu
        index_rss = peak_rss_mb()
        assert added.index is not None
        listed = library.papers()
        pdf_pages = sum(p.pages or 0 for p in listed if p.source_path.endswith(".pdf"))
        per_kind_cpu: dict[str, float] = {}
        # what each kind of paper cost to read (the store keeps each content's read seconds)
        passages = 0
        for path, seconds, count in library.store.read_costs():
            kind = "pdf" if path.endswith(".pdf") else "jats"
            per_kind_cpu[kind] = per_kind_cpu.get(kind, 0.0) + seconds
            passages += count

        started = time.perf_counter()
        again = use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        readd_s = time.perf_counter() - started

        present = {Path(p.source_path).stem for p in listed if p.status == "indexed"}
        asked = [q for q in questions if q["paper"] in present]
        use.ask_library(session, library, LibraryAskRequest(question="What was measured in the first table?"))
        rows = []
        for question in asked:
            started, cpu = time.perf_counter(), time.process_time()
            answer = use.ask_library(session, library, LibraryAskRequest(question=question["question"]))
            wall, cpu_s = time.perf_counter() - started, time.process_time() - cpu
            top = [Path(hit.source_path).stem for hit in answer.papers[:3]]
            first = answer.papers[0] if answer.papers else None
            rows.append({
                "paper": question["paper"], "gold": question["gold"], "kind": question["kind"],
                "top3": question["paper"] in top, "top1": bool(top) and top[0] == question["paper"],
                "visual_first": first is not None and Path(first.source_path).stem == question["paper"]
                and first.visual == question["gold"],
                "visual": first.visual if first else None, "papers": top,
                "seconds": round(wall, 3), "cpu_seconds": round(cpu_s, 3), "timings": answer.timings,
            })
        ask_rss = peak_rss_mb()

    index = added.index
    n = len(listed)
    result = {
        "papers": n, "pdfs": sum(p.source_path.endswith(".pdf") for p in listed),
        "jats": sum(not p.source_path.endswith(".pdf") for p in listed),
        "indexed": index.indexed, "failed": index.failed, "passages": passages,
        "index_wall_s": round(index_wall, 1), "index_cpu_s": round(index_cpu, 1),
        "pdf_pages": pdf_pages, "read_wall_seconds_by_kind": {k: round(v, 1) for k, v in per_kind_cpu.items()},
        "pages_per_cpu_s_overall": round(pdf_pages / index_cpu, 3) if index_cpu else None,
        "peak_rss_mb_indexing": round(index_rss, 1), "peak_rss_mb_after_ask": round(ask_rss, 1),
        "readd_s": round(readd_s, 2), "readd_unchanged": again.sources[0].unchanged,
        "questions": len(rows),
        "top3_paper": round(sum(r["top3"] for r in rows) / len(rows), 3) if rows else None,
        "top1_paper": round(sum(r["top1"] for r in rows) / len(rows), 3) if rows else None,
        "visual_first": round(sum(r["visual_first"] for r in rows) / len(rows), 3) if rows else None,
        "ask_wall_median_s": round(statistics.median(r["seconds"] for r in rows), 3) if rows else None,
        "ask_cpu_median_s": round(statistics.median(r["cpu_seconds"] for r in rows), 3) if rows else None,
        "ask_stage_median_s": {stage: round(statistics.median(r["timings"].get(stage, 0.0) for r in rows), 4)
                               for stage in ("load_s", "embed_s", "dense_s", "fts_s", "rerank_s", "papers_s")} if rows else {},
        "per_paper_cpu_s": round(index_cpu / max(1, index.indexed), 2),
        "extrapolated_1000_papers_index_cpu_h": round(index_cpu / max(1, index.indexed) * 1000 / 3600, 2),
        "load_average": os.getloadavg(),
        "rows": rows,
    }
    if args.scale_to > n and rows:
        result["scaled"] = scaled_latency(work, asked, args.scale_to)
    target = write_result(f"bench_library_{n}", result)
    for key, value in result.items():
        if key != "rows":
            print(f"{key}: {value}")
    print(f"written {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
