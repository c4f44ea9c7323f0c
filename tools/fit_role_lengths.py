"""Choose the extractive summary's length per role (issue 45 point 4) on the dev halves only.

Each paragraph of the extractive summary (research background, method, results, conclusion) stops at the
length nearest its target in words (``summarize/extractive.SUMMARY_ROLE_TARGETS``, read from
``summarize/role_lengths.json``). This script measures, on the fitting papers, ROUGE-1 F of the summary
written with the abstract left out (``--no-abstract``) against the JATS abstract, for targets around
today's, and keeps the targets with the best mean over the sources (each source weighing the same).

Data (never a test-half item: ``bench/pairs_split.split_of`` is checked for each): ``pmc/`` dev half (the
PDFs, read as ``mmdocsum summarize`` reads them) and ``elife/`` dev half (JATS; ``--elife-limit`` of them,
every k-th by name, the same ones ``tools/fit_salience.py`` fits on). Each paper is prepared once
(``Extractor.prepare``: candidates, embeddings, role scores, salience features with the shipped weights)
and each set of targets chooses from it (``Extractor.choose``).

Search: coordinate ascent from today's targets, one role at a time over ``GRID`` (two passes, a change
kept only when it raises the mean by more than ``--min-gain``). The report (``tools/role_lengths_fit.json``)
has the provenance, today's and the chosen targets' ROUGE-1/2 per source, and every evaluation;
``--ship`` also writes the chosen targets to ``mmdocsum_desktop/summarize/role_lengths.json``, which the
summary loads.

    nice -n 15 .venv/bin/python tools/fit_role_lengths.py --work /tmp/lengths [--elife-limit 48] [--ship]
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import pickle
import sys
import time
from pathlib import Path
from statistics import mean

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(1, str(REPO_ROOT / "benchmarks"))
sys.path.insert(2, str(REPO_ROOT / "tools"))

from benchmarks._corpus import CORPUS  # noqa: E402
from mmdocsum_desktop.bench.metrics.rouge import rouge  # noqa: E402
from mmdocsum_desktop.bench.pairs_split import pairs_in, split_of  # noqa: E402
from mmdocsum_desktop.schemas.summary import ROLES  # noqa: E402
from mmdocsum_desktop.summarize import extractive  # noqa: E402
from mmdocsum_desktop.summarize.extractive import ROLE_LENGTHS_FILE, ExtractiveResult, Extractor  # noqa: E402

TOOLS = Path(__file__).resolve().parent
FIT_FILE = TOOLS / "role_lengths_fit.json"
# the shortest target: one sentence of a method is no Method a reader can use, and each paragraph has at
# least 30 words where the paper has the part (tests/summarize/test_extractive_clean.py); a paragraph stops
# at the length nearest its target, up to half a sentence short of it, so the target is 40
FLOOR = 40
GRID = {"background": (30, 40, 50, 60, 70, 80, 90), "method": (20, 30, 40, 50, 60, 70),
        "results": (40, 50, 60, 70, 80, 90, 100, 110), "conclusion": (30, 40, 55, 70, 85, 100)}


def fitting_items(corpus: Path, elife_limit: int) -> list[dict]:
    """pmc dev PDFs and every k-th eLife dev article; a test-half item stops the run."""
    items = [{"name": p.name, "path": p.pdf, "xml": p.xml, "source": "pmc"}
             for p in pairs_in(corpus / "pmc", "dev") if p.pdf is not None]
    dev = pairs_in(corpus / "elife", "dev")
    step = max(1, len(dev) // elife_limit) if elife_limit else 1
    items += [{"name": p.name, "path": p.xml, "xml": p.xml, "source": "elife"} for p in dev[::step][:elife_limit]]
    for item in items:
        if split_of(item["name"]) != "dev":
            raise SystemExit(f"fit_role_lengths: {item['name']} is in the test half; nothing is fitted on it")
    return items


def _code_fingerprint() -> str:
    """The code a prepared paper depends on: the reader, the text helpers and the summary's choosing of
    candidates (extractive.py, roles, sentences)."""
    import mmdocsum_desktop.document as reader_package
    import mmdocsum_desktop.text as text_package

    digest = hashlib.sha256()
    files = [*sorted(Path(reader_package.__file__).parent.glob("*.py")),
             *sorted(Path(text_package.__file__).parent.glob("*.py")),
             *sorted(Path(extractive.__file__).parent.glob("*.py")),
             Path(extractive.__file__).with_name("salience_weights.json")]
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def load_papers(items: list[dict], work: Path) -> tuple[list[dict], list[dict]]:
    from bench_summary_rouge import read_cached, reference_of

    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.embed import TextEmbedder

    folder = work / "prepared" / _code_fingerprint()
    folder.mkdir(parents=True, exist_ok=True)
    papers, skipped = [], []
    embedder = TextEmbedder(cache=ContentCache(work / "embeddings.sqlite"))
    with Session() as session:
        for item in items:
            started = time.perf_counter()
            try:
                document = read_cached(session, item, work)
            except Exception as error:  # noqa: BLE001 — a paper the reader refuses is reported, not fatal
                skipped.append({"paper": item["name"], "why": f"unreadable: {str(error)[:120]}"})
                continue
            reference, _ = reference_of(item, document)
            if not reference or len(reference.split()) < 30:
                skipped.append({"paper": item["name"], "why": "no abstract of 30 words"})
                continue
            cached = folder / f"{item['source']}__{item['name']}.pkl"
            if cached.exists():
                prepared = pickle.loads(cached.read_bytes())
            else:
                prepared = Extractor(embedder).prepare(document, include_abstract=False)
                cached.write_bytes(pickle.dumps(prepared))
            if isinstance(prepared, ExtractiveResult):
                skipped.append({"paper": item["name"], "why": "no body prose"})
                continue
            papers.append({"name": item["name"], "source": item["source"], "reference": reference,
                           "prepared": prepared})
            print(f"  {item['source']:<6} {item['name']:<40} {len(prepared.pool):>4} candidates "
                  f"({time.perf_counter() - started:.1f} s)", flush=True)
    embedder.close()
    return papers, skipped


def evaluate(papers: list[dict], targets: dict[str, int], extractor: Extractor) -> dict:
    """Mean ROUGE-1/2 F and words per source of the summaries at ``targets``; "score": the mean of the
    sources' ROUGE-1."""
    extractor.role_targets = dict(targets)
    per: dict[str, list[tuple[float, float, int]]] = {}
    for paper in papers:
        drafted = extractor.choose(paper["prepared"])
        text = "\n".join(p.text for p in drafted.paragraphs if p.sentences)
        found = rouge(text, paper["reference"], None)
        per.setdefault(paper["source"], []).append((found["rouge1"], found["rouge2"], len(text.split())))
    sources = {name: {"papers": len(rows), "rouge1": round(mean(r[0] for r in rows), 4),
                      "rouge2": round(mean(r[1] for r in rows), 4), "words": round(mean(r[2] for r in rows), 1)}
               for name, rows in sorted(per.items())}
    return {"targets": dict(targets), "score": round(mean(s["rouge1"] for s in sources.values()), 4),
            "sources": sources}


def allowed(targets: dict[str, int], floor: int = FLOOR) -> bool:
    return all(value >= floor for value in targets.values())


def rechoose(table: list[dict], floor: int = FLOOR) -> dict:
    """The best evaluated targets with every role at least ``floor`` words."""
    return max((row for row in table if allowed(row["targets"], floor)), key=lambda row: row["score"])


def search(papers: list[dict], start: dict[str, int], passes: int, min_gain: float) -> tuple[dict, list[dict]]:
    extractor = Extractor(embedder=None)  # type: ignore[arg-type] — choose never embeds
    seen: dict[tuple, dict] = {}

    def run(targets: dict[str, int]) -> dict:
        key = tuple(targets[r] for r in ROLES)
        if key not in seen:
            seen[key] = evaluate(papers, targets, extractor)
            print(f"  {key} -> {seen[key]['score']:.4f} {json.dumps(seen[key]['sources'])}", flush=True)
        return seen[key]

    best = run(start)
    for _ in range(passes):
        changed = False
        for role in ROLES:
            for value in GRID[role]:
                if value < FLOOR:
                    continue
                trial = run({**best["targets"], role: value})
                if trial["score"] > best["score"] + min_gain:
                    best, changed = trial, True
        if not changed:
            break
    return best, list(seen.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/lengths"))
    parser.add_argument("--elife-limit", type=int, default=48)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--min-gain", type=float, default=0.0005)
    parser.add_argument("--out", type=Path, default=FIT_FILE)
    parser.add_argument("--ship", action="store_true", help="also write summarize/role_lengths.json")
    parser.add_argument("--rechoose", action="store_true",
                        help="choose again from the report's evaluations (every role at least FLOOR words), "
                             "without reading the papers; with --ship, ship that choice")
    args = parser.parse_args()
    if args.rechoose:
        report = json.loads(args.out.read_text(encoding="utf-8"))
        best = rechoose(report["evaluations"])
        provenance = report["provenance"] | {
            "chosen": best, "floor": f"every role at least {FLOOR} words (chosen again with --rechoose)",
            "command": report["provenance"]["command"] + " && python tools/fit_role_lengths.py --rechoose --ship"}
        args.out.write_text(json.dumps({"provenance": provenance, "role_targets": best["targets"],
                                        "evaluations": report["evaluations"]}, indent=1) + "\n", encoding="utf-8")
        print(f"chosen again {best['score']:.4f} {best['targets']} -> {args.out}")
        if args.ship:
            ship(provenance, best)
        return
    wall, cpu = time.perf_counter(), time.process_time()
    items = fitting_items(CORPUS, args.elife_limit)
    papers, skipped = load_papers(items, args.work)
    today = dict(extractive.SUMMARY_ROLE_TARGETS)
    best, table = search(papers, today, args.passes, args.min_gain)
    today_row = next(r for r in table if r["targets"] == today)
    provenance = {
        "fitted_by": "tools/fit_role_lengths.py", "date": dt.date.today().isoformat(),
        "command": "python tools/fit_role_lengths.py " + " ".join(sys.argv[1:]),
        "data": {"papers": {s: sum(p["source"] == s for p in papers) for s in ("pmc", "elife")},
                 "pmc": "dev half (bench/pairs_split.py), PDFs as Session.read reads them",
                 "elife": f"dev half, every k-th article by name, at most {args.elife_limit}", "left_out": skipped},
        "metric": "ROUGE-1 F (rouge-score, Porter stemmer) of the summary written with the abstract left out, "
                  "against the JATS abstract; mean over papers, then over the two sources",
        "search": f"coordinate ascent from today's targets over {GRID}, {args.passes} passes, min gain {args.min_gain}",
        "floor": f"every role at least {FLOOR} words",
        "today": today_row, "chosen": best,
        "seconds": {"wall": round(time.perf_counter() - wall, 1), "cpu": round(time.process_time() - cpu, 1)},
    }
    args.out.write_text(json.dumps({"provenance": provenance, "role_targets": best["targets"],
                                    "evaluations": table}, indent=1) + "\n", encoding="utf-8")
    print(f"today {today_row['score']:.4f} {today}  chosen {best['score']:.4f} {best['targets']}  -> {args.out}")
    if args.ship:
        ship(provenance, best)


def ship(provenance: dict, best: dict) -> None:
    keys = ("fitted_by", "date", "command", "metric", "search", "floor")
    shipped = {"provenance": {k: provenance[k] for k in keys if k in provenance}
               | {"report": "tools/role_lengths_fit.json", "today": provenance["today"], "chosen": best},
               "role_targets": best["targets"]}
    ROLE_LENGTHS_FILE.write_text(json.dumps(shipped, indent=1) + "\n", encoding="utf-8")
    print(f"shipped -> {ROLE_LENGTHS_FILE}")


if __name__ == "__main__":
    main()
