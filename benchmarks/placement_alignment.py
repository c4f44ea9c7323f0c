"""Placement on held-out papers through the user's path, every strategy beside the strong baseline in the
same run (issue 43).

Each document goes to ``app.place`` exactly as ``mmdocsum place`` receives it, in both forms (a Markdown text
with headings, a plain JSON list; ``bench.suites.pairs.user_forms``), once per strategy: ``baseline``
(TF-IDF, every figure once in order: nothing fitted), ``align`` (the shipped alignment) and ``sequence``
(issue 39's model). Sets, none fitted on:

* ``pmc_test``: the pmc TEST half, JATS paragraphs with the figure citations removed, the app's figure pool
  read from each PDF (``--work``/docs, from ``tools/fit_placement.py --work DIR --read-pdfs test``), also
  per publisher family;
* ``own_pdf``: the same papers' paragraphs as the app reads them from the PDF (gold carried over from the
  JATS by n-gram matching);
* ``elife_test``: the first ``--elife-test`` articles of the eLife TEST half (captions from the JATS);
* ``drafts``: the drafts the developers wrote about pmc TEST papers in their own words
  (``benchmarks/placement_drafts/``: headings of their own, no figure numbers), the app's pool of the PDF.

Metrics per set and form: Acc_i (the figure placed after the paragraph that first discusses it), citing
precision (a placed figure follows a paragraph that cites it; on drafts: the paragraph written about it),
Acc_ni, within one paragraph, Acc_b, figures placed.

    nice -n 10 .venv/bin/python benchmarks/placement_alignment.py --work /tmp/p43

Writes ``benchmarks/results/placement_alignment.json`` (copy to docs/results when it documents a decision).
"""

# ruff: noqa: E402
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

DRAFTS = REPO_ROOT / "benchmarks" / "placement_drafts"


def _key(label: str | None) -> str | None:
    """"Fig. 3" and "Figure 3" alike (the JATS label and the one printed in the PDF may differ)."""
    from mmdocsum_desktop.bench.pairs_gold import canonical_label

    found = canonical_label(label)
    return found[1].lower() if found else ((label or "").lower().rstrip(".") or None)


def draft_items(work: Path):
    """(name, markdown blocks, per-block gold, per-block cites, the app's pool) of each draft."""
    import tools.fit_placement as fp
    from mmdocsum_desktop.placement.candidates import candidates_from_document

    fp.WORK = work
    out = []
    for path in sorted(DRAFTS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        document = fp.app_document(data["paper"])
        if document is None:
            print(f"  draft {path.name}: no app reading of {data['paper']}", file=sys.stderr)
            continue
        pool = candidates_from_document(document, fp.doc_dir(data["paper"]), include_tables=False,
                                        require_image=False)
        for c in pool:
            c.context = []
        keys = [_key(c.label) or f"#{c.order}" for c in pool]
        blocks, gold, headings = [], [], []
        for block in data["blocks"]:
            if "heading" in block:
                blocks.append("## " + " ".join(block["heading"].split()))
                gold.append(None)
                headings.append(True)
            else:
                blocks.append(" ".join(block["text"].split()))
                figure = _key(block.get("figure"))
                gold.append(figure)
                headings.append(False)
        missing = sorted({g for g in gold if g and g not in keys})
        if missing:
            print(f"  draft {path.name}: gold {missing} not in the app's pool {keys}", file=sys.stderr)
        out.append((data["paper"], blocks, gold, headings, pool, keys))
    return out


def run_form(session, strategy, text, pool, headings):
    from mmdocsum_desktop.app.placement import place

    run = place(session, text, [c.model_copy() for c in pool], strategy=strategy, headings=headings)
    return [p.candidate for p in run.placements]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/p43"))
    parser.add_argument("--elife-test", type=int, default=40)
    parser.add_argument("--strategies", default="baseline,align,sequence")
    parser.add_argument("--sets", default="pmc_test,own_pdf,elife_test,drafts")
    parser.add_argument("--name", default="placement_alignment")
    args = parser.parse_args()
    cache = args.work / "appcache"
    cache.mkdir(parents=True, exist_ok=True)
    os.environ["MMDOCSUM_CACHE_DIR"] = str(cache)

    from _corpus import write_result

    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.bench.metrics import pairs as m
    from mmdocsum_desktop.bench.suites.pairs import user_forms
    from mmdocsum_desktop.schemas.settings import Settings
    from tools.fit_alignment import load_items

    wanted = set(args.sets.split(","))
    items = load_items(args.work, args.elife_test, splits=("test",))
    drafts = draft_items(args.work) if "drafts" in wanted else []
    started, cpu = time.perf_counter(), time.process_time()
    rows: dict = {}  # (strategy, set, form) -> list of (FlowScores, hits, placed)

    def add(strategy, set_name, form, gold, cites, keys, chosen):
        predicted = [keys[c] if c is not None else None for c in chosen]
        hits, placed = m.citing_hits(cites, predicted)
        rows.setdefault((strategy, set_name, form), []).append((m.flow_scores(gold, predicted), hits, placed))

    with Session(Settings()) as session:
        for strategy in args.strategies.split(","):
            mark = time.perf_counter()
            for item, source, cites in items:
                sets = []
                if item.source == "elife":
                    if "elife_test" in wanted:
                        sets.append(("elife_test", item.paragraphs, item.sections, item.gold, cites))
                else:
                    if "pmc_test" in wanted:
                        sets.append(("pmc_test", item.paragraphs, item.sections, item.gold, cites))
                    if "own_pdf" in wanted and item.own_paragraphs:
                        matches = m.match_paragraphs(item.own_paragraphs, item.paragraphs)
                        own_cites = [cites[k] if k is not None and k < len(cites) else [] for k in matches]
                        sets.append(("own_pdf", item.own_paragraphs, [(s,) if s else None for s in item.own_sections],
                                     item.own_gold, own_cites))
                for set_name, paragraphs, sections, gold, per_cites in sets:
                    if not any(gold):
                        continue
                    for form, given in user_forms(paragraphs, sections):
                        chosen = given.per_paragraph(
                            run_form(session, strategy, given.text, item.candidates, form == "markdown"), len(paragraphs))
                        add(strategy, set_name, form, gold, per_cites, item.keys, chosen)
                        if set_name == "pmc_test":
                            add(strategy, f"pmc_test:{source}", form, gold, per_cites, item.keys, chosen)
            for _name, blocks, gold, headings, pool, keys in drafts:
                cites = [[g] if g else [] for g in gold]
                text = "\n\n".join(blocks) + "\n"
                chosen = run_form(session, strategy, text, pool, True)
                add(strategy, "drafts", "markdown", gold, cites, keys, chosen)
                body = [k for k, h in enumerate(headings) if not h]
                listed = run_form(session, strategy, [blocks[k] for k in body], pool, False)
                add(strategy, "drafts", "list", [gold[k] for k in body], [cites[k] for k in body], keys, listed)
            print(f"{strategy}: {time.perf_counter() - mark:.0f} s", file=sys.stderr)
    results: dict = {}
    for (strategy, set_name, form), got in sorted(rows.items()):
        pooled = m.pool_flow_scores([g[0] for g in got]).to_dict()
        hits, placed = sum(g[1] for g in got), sum(g[2] for g in got)
        entry = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in pooled.items()
                 if k in ("acc_b", "acc_i", "acc_ni", "within_one", "n_slots", "n_image_slots")}
        entry["citing_precision"] = round(hits / placed, 4) if placed else None
        entry["placed"] = placed
        entry["papers"] = len(got)
        results.setdefault(set_name, {}).setdefault(form, {})[strategy] = entry
    for set_name, forms in results.items():
        for form, by in forms.items():
            line = "  ".join(f"{s} {e['acc_i']}/{e['citing_precision']}/{e['acc_ni']}" for s, e in by.items())
            print(f"{set_name:24s} {form:9s} {line}", file=sys.stderr)
    payload = {
        "benchmark": "placement through app.place in both forms `mmdocsum place` receives, held-out sets, every "
                     "strategy beside the strong baseline in the same run (issue 43)",
        "metrics": "acc_i / citing_precision / acc_ni / within_one / acc_b; placed = figures placed",
        "results": results,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
    }
    print(f"written {write_result(args.name, payload)}")


if __name__ == "__main__":
    main()
