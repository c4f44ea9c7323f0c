"""Placement through the user's path (issue 39): the held-out papers' paragraphs given to ``app.place``
exactly as `mmdocsum place` receives them — a Markdown text whose headings a writer typed from the JATS
section titles, and a plain JSON list — with the pairs suite's own code (``bench.suites.pairs.user_forms``
and ``default_placer``), per strategy.

Sets: the pmc TEST half (JATS paragraphs, the app's figure pool from its reading of each PDF, left under
``--work``/docs by ``tools/fit_placement.py --work DIR --read-pdfs test``; the app's own PDF paragraphs
too, mentions removed) and the first ``--elife-test`` articles of the eLife TEST half (captions from the
JATS). Nothing here was fitted on (the shipped model saw the dev halves only).

    nice -n 10 .venv/bin/python benchmarks/placement_user_path.py [--strategies sequence,baseline]

The session's caches go under ``--work``/appcache (the embeddings cached there by the LOSO run are
reused when ``--work``/embeddings.sqlite exists). Writes ``benchmarks/results/placement_user_path.json``.
"""

# ruff: noqa: E402
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/p39"))
    parser.add_argument("--elife-test", type=int, default=20)
    parser.add_argument("--limit", type=int, default=None, help="pmc test papers (a quick check)")
    parser.add_argument("--strategies", default="sequence,baseline")
    parser.add_argument("--ocr", action="store_true", help="placement reads figure text (the app pool's crops)")
    parser.add_argument("--name", default="placement_user_path")
    args = parser.parse_args()
    cache = args.work / "appcache"
    cache.mkdir(parents=True, exist_ok=True)
    if (args.work / "embeddings.sqlite").is_file() and not (cache / "content-cache.sqlite").is_file():
        shutil.copy(args.work / "embeddings.sqlite", cache / "content-cache.sqlite")
    os.environ["MMDOCSUM_CACHE_DIR"] = str(cache)

    from _corpus import write_result

    import tools.fit_placement as fp
    from mmdocsum_desktop.app.placement import place
    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.bench.metrics import pairs as m
    from mmdocsum_desktop.bench.pairs_split import pairs_in
    from mmdocsum_desktop.bench.suites.pairs import user_forms
    from mmdocsum_desktop.schemas.settings import PlacementSettings, Settings

    fp.WORK = args.work
    items = {"pmc_test": [], "elife_test": []}
    for pair in pairs_in(fp.PMC, "test")[: args.limit or None]:
        item = fp.jats_item(pair.xml, pair.name, "pmc", "test", use_app=True)
        if item is not None:
            items["pmc_test"].append(item)
    taken = 0
    for pair in pairs_in(fp.ELIFE, "test"):
        if taken >= args.elife_test:
            break
        item = fp.jats_item(pair.xml, pair.name, "elife", "test", use_app=False)
        if item is not None and any(item.gold):
            items["elife_test"].append(item)
            taken += 1
    started, cpu = time.perf_counter(), time.process_time()
    results: dict = {}
    with Session(Settings()) as session:
        settings = PlacementSettings(ocr=args.ocr)
        for strategy in args.strategies.split(","):
            for set_name, chosen in items.items():
                forms = {"markdown": [], "list": [], "own_list": [], "own_markdown": []}
                for item in chosen:
                    own = [("own_", item.own_paragraphs, [(s,) if s else None for s in item.own_sections], item.own_gold)]
                    for prefix, paragraphs, sections, gold in [("", item.paragraphs, item.sections, item.gold),
                                                               *(own if item.own_paragraphs else [])]:
                        for variant, given in user_forms(paragraphs, sections, None if prefix else None):
                            pool = [c.model_copy() for c in item.candidates]
                            run = place(session, given.text, pool, placement=settings, strategy=strategy,
                                        headings=isinstance(given.text, str) or variant == "markdown")
                            picked = given.per_paragraph([p.candidate for p in run.placements], len(paragraphs))
                            forms[prefix + variant].append(m.flow_scores(
                                gold, [item.keys[c] if c is not None else None for c in picked]))
                results.setdefault(strategy, {})[set_name] = {
                    form: {k: (round(v, 4) if isinstance(v, float) else v)
                           for k, v in m.pool_flow_scores(rows).to_dict().items()
                           if k in ("acc_b", "acc_i", "acc_ni", "within_one", "n_slots", "n_image_slots")}
                    for form, rows in forms.items() if rows}
                print(strategy, set_name, {f: (r["acc_i"], r["acc_ni"]) for f, r in results[strategy][set_name].items()},
                      f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    payload = {
        "benchmark": "placement through app.place in the forms `mmdocsum place` receives (Markdown with headings, "
                     "plain JSON list), held-out test halves",
        "papers": {k: len(v) for k, v in items.items()},
        "pmc_pool": {"app": sum(i.pool == "app" for i in items["pmc_test"]),
                     "jats": sum(i.pool == "jats" for i in items["pmc_test"])},
        "ocr": args.ocr,
        "results": results,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
    }
    print(f"written {write_result(args.name, payload)}")


if __name__ == "__main__":
    main()
