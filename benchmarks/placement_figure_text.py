"""Figure text (OCR of the crop) through the user's path, on every source with images (issue 39, second
round): does reading the text inside the figure crops help placement, beside the baseline, OCR on and off?

Every pmc pair (both halves, grouped by the publisher its JATS names: BMC, Hindawi, MDPI, PLOS, other),
the app's own PDF paragraphs of the pmc TEST half (mentions removed, gold carried over from the JATS), the
``papers/`` PDFs (``_ftii_split``: gold = the paragraph first citing a visual) and the multilingual PDFs
(``corpus/multilingual/*.pdf``: the app's reading of the PDF for the pool, the JATS paragraphs and their
first citations as gold; the own paragraphs too). eLife has no images (JATS only): not measurable here.

Each paper's paragraphs go to ``app.place`` exactly as ``mmdocsum place`` receives them
(``bench.suites.pairs.user_forms``: Markdown with headings typed from the section titles, and a plain JSON
list), four ways in the same run: the shipped model with figure text off and on (on: ``app.place`` scores
with the OCR profile and its ``global`` assignment), and the baseline (``--strategy baseline``) off and on.
With figure text on, both thresholds in use were tuned without it (the baseline's by LOSO on captions, the
OCR profile's 0.05 by an older fit), so each is swept as well and chosen on the pmc DEV half for Acc_ni
floors 0.95 and 0.97 (``selection``); the held-out sources are then read at the chosen value.
The shipped weights were fitted on the pmc DEV half (and dev eLife): the pmc dev rows are fitted papers;
pmc test, own PDF paragraphs, ``papers/`` and the multilingual PDFs are held out.

``--phase prepare`` reads the multilingual PDFs (under ``--work``/docs) and fills the content cache with
the figure text of every crop of every pool (``app.prepare_figure_text``, RapidOCR, keyed by the crop's
bytes); ``--phase cost`` measures, on the pmc TEST papers, CPU seconds of ``extract`` (``Session.read`` +
``export_document``) against ``place`` with figure text on in a fresh session with an empty cache (cold:
models loaded, every crop read, every text embedded), the same ``place`` again (warm: the document open,
its crop text cached) and a fresh session on the filled cache (reopened), filling the shared cache as it
goes; ``--phase measure`` scores. Caches live under ``--work`` (``appcache/content-cache.sqlite``, the
pmc readings under ``docs/``: a copy of ``/tmp/p39``).

    nice -n 10 .venv/bin/python benchmarks/placement_figure_text.py --work /tmp/39A1/work --phase cost
    nice -n 10 .venv/bin/python benchmarks/placement_figure_text.py --work /tmp/39A1/work --phase prepare
    nice -n 10 .venv/bin/python benchmarks/placement_figure_text.py --work /tmp/39A1/work --phase measure

Writes ``benchmarks/results/placement_figure_text.json`` (measure) and
``benchmarks/results/placement_figure_text_cost.json`` (cost).
"""

# ruff: noqa: E402
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from _corpus import CORPUS, write_result
from placement_lopo import paper_items, publisher_group

import tools.fit_placement as fp
from mmdocsum_desktop.app.placement import place, prepare_figure_text
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.metrics import pairs as m
from mmdocsum_desktop.bench.pairs_split import pairs_in
from mmdocsum_desktop.bench.suites.pairs import user_forms
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.schemas.settings import PlacementSettings, Settings

ML = CORPUS / "multilingual"
ARMS: dict[str, tuple[str, bool, float | None]] = {  # name → (strategy, figure text on, threshold; None: shipped)
    "shipped": ("sequence", False, None),
    "shipped+ocr": ("sequence", True, None),
    "baseline": ("baseline", False, None),
    "baseline+ocr": ("baseline", True, None),
}
# The thresholds with figure text on are the ones shipped for captions (the baseline's, tuned by LOSO
# without figure text) or an older fit (the OCR profile's 0.05): each is swept too, the value chosen on the
# pmc DEV half (the shipped model's fit papers) and read on the held-out sources (``selection``).
OCR_THRESHOLDS = (0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
BASELINE_OCR_THRESHOLDS = (0.45, 0.5, 0.525, 0.55, 0.575, 0.6, 0.625, 0.65)
ARMS.update({f"shipped+ocr @ {t}": ("sequence", True, t) for t in OCR_THRESHOLDS})
ARMS.update({f"baseline+ocr @ {t}": ("baseline", True, t) for t in BASELINE_OCR_THRESHOLDS})
SELECT_ON = "pmc dev: every family"
FLOORS = (0.95, 0.97)
KEEP = ("acc_b", "acc_i", "acc_ni", "within_one", "n_slots", "n_image_slots")
OCR_NAMESPACE = "rapidocr%"


def use_cache(folder: Path) -> None:
    """Point the app's content cache (embeddings, OCR) at ``folder``: read by every new Session's models."""
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["MMDOCSUM_CACHE_DIR"] = str(folder)


def number(label: str | None) -> str | None:
    found = re.search(r"\d+", label or "")
    return found.group(0) if found else None


def multilingual_items() -> list[fp.Item]:
    """The multilingual PDFs, read by the app under ``--work``/docs/ml-NAME: JATS paragraphs and gold, the
    app's figure pool. SciELO's JATS often has no figure label ("Figura 1" only in the caption): a JATS
    figure is matched to the app's by its number, else by order when both have as many figures."""
    from mmdocsum_desktop.bench.pairs_gold import read_gold

    out = []
    for pdf in sorted(ML.glob("*.pdf")):
        xml = pdf.with_suffix(".xml")
        name = f"ml-{pdf.stem}"
        folder = fp.doc_dir(name)
        if not (folder / "document.json").is_file():
            export_document(read_document(pdf), folder)
        item = fp.jats_item(xml, name, "multilingual-pdf", "test", use_app=True)
        if item is None or item.pool != "app" or not item.candidates:
            continue
        gold = read_gold(xml)
        jats_keys = [(v.label or v.id).lower() for v in gold.figures]
        mapping: dict[str, str] = {}
        for k, figure in enumerate(gold.figures):
            by_number = [key for c, key in zip(item.candidates, item.keys)
                         if number(c.label) and number(c.label) == number(figure.label or figure.caption[:20])]
            if by_number:
                mapping[jats_keys[k]] = by_number[0]
            elif len(gold.figures) == len(item.candidates):
                mapping[jats_keys[k]] = item.keys[k]
        item.gold = [mapping.get(g) if g else None for g in item.gold]
        item.own_gold = [mapping.get(g) if g else None for g in item.own_gold]
        out.append(item)
    return out


def load_sets(limit: int | None) -> dict[str, list[tuple[fp.Item, bool]]]:
    """set name → (item, own paragraphs?) per paper; only papers with a crop in the pool and a gold image."""
    sets: dict[str, list[tuple[fp.Item, bool]]] = {}
    for split in ("test", "dev"):
        for pair in pairs_in(fp.PMC, split)[: limit or None]:
            item = fp.jats_item(pair.xml, pair.name, publisher_group(pair.xml), split, use_app=True)
            if item is None or item.pool != "app" or not any(c.image for c in item.candidates):
                continue
            if any(item.gold):
                sets.setdefault(f"pmc {split}: {item.source}", []).append((item, False))
            if split == "test" and item.own_paragraphs and any(item.own_gold):
                sets.setdefault("own PDF paragraphs (pmc test)", []).append((item, True))
    sets["papers/ PDFs"] = [(item, False) for item in paper_items()[: limit or None]
                            if any(c.image for c in item.candidates)]
    for item in multilingual_items():
        if any(item.gold):
            sets.setdefault("multilingual PDFs, JATS paragraphs", []).append((item, False))
        if item.own_paragraphs and any(item.own_gold):
            sets.setdefault("multilingual PDFs, own paragraphs", []).append((item, True))
    return sets


def paragraphs_of(item: fp.Item, own: bool):
    if own:
        return item.own_paragraphs, [(s,) if s else None for s in item.own_sections], item.own_gold
    return item.paragraphs, item.sections, item.gold


def cpu_wall(function, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return result, time.process_time() - cpu, time.perf_counter() - wall


def merge_ocr(source: Path, target: Path) -> int:
    """Copy the OCR rows of one content cache into another (the cold runs' reading kept for later)."""
    db = sqlite3.connect(target, timeout=60)
    try:
        db.execute("ATTACH DATABASE ? AS cold", (str(source),))
        before = db.total_changes
        db.execute("INSERT OR IGNORE INTO entries SELECT * FROM cold.entries WHERE namespace LIKE ?", (OCR_NAMESPACE,))
        db.commit()
        return db.total_changes - before
    finally:
        db.close()


def phase_cost(args, sets) -> None:
    """Extract vs cold / warm / reopened ``place`` with figure text on, per pmc TEST paper."""
    work_cache = args.work / "appcache"
    scratch = Path(tempfile.mkdtemp(prefix="figure-text-cost-", dir=args.work))
    papers = [item for name, chosen in sets.items() if name.startswith("pmc test") for item, _ in chosen]
    papers = sorted(papers, key=lambda i: i.name)[: args.cost_papers or None]
    by_name = {pair.name: pair for pair in pairs_in(fp.PMC, "test")}
    rows = []
    started, cpu = time.perf_counter(), time.process_time()
    settings = PlacementSettings(ocr=True)
    for item in papers:
        pair = by_name[item.name]
        cold_cache = scratch / f"cache-{item.name}"
        use_cache(cold_cache)
        text = user_forms(item.paragraphs, item.sections)[0][1].text
        with Session(Settings()) as session:
            document, extract_cpu, extract_wall = cpu_wall(session.read, pair.pdf)
            _, export_cpu, export_wall = cpu_wall(export_document, document, scratch / f"doc-{item.name}")
            pool = [c.model_copy() for c in item.candidates]
            cold, cold_cpu, cold_wall = cpu_wall(place, session, text, pool, placement=settings)
            pool = [c.model_copy() for c in item.candidates]
            _, warm_cpu, warm_wall = cpu_wall(place, session, text, pool, placement=settings)
        with Session(Settings()) as session:
            pool = [c.model_copy() for c in item.candidates]
            _, reopen_cpu, reopen_wall = cpu_wall(place, session, text, pool, placement=settings)
        added = merge_ocr(cold_cache / "content-cache.sqlite", work_cache / "content-cache.sqlite")
        shutil.rmtree(cold_cache, ignore_errors=True)
        use_cache(cold_cache)  # empty again: the same cold place with figure text off, for comparison
        with Session(Settings()) as session:
            pool = [c.model_copy() for c in item.candidates]
            _, plain_cpu, plain_wall = cpu_wall(place, session, text, pool, placement=PlacementSettings(ocr=False))
        shutil.rmtree(cold_cache, ignore_errors=True)
        shutil.rmtree(scratch / f"doc-{item.name}", ignore_errors=True)
        row = {"paper": item.name, "crops": sum(bool(c.image) for c in item.candidates), "ocr_rows_kept": added,
               "extract_cpu": round(extract_cpu + export_cpu, 2), "extract_wall": round(extract_wall + export_wall, 2),
               "cold_place_cpu": round(cold_cpu, 2), "cold_place_wall": round(cold_wall, 2),
               "cold_ocr_s": round(cold.timings.get("ocr_s", 0.0), 2),
               "cold_place_no_ocr_cpu": round(plain_cpu, 2), "cold_place_no_ocr_wall": round(plain_wall, 2),
               "warm_place_cpu": round(warm_cpu, 3), "warm_place_wall": round(warm_wall, 3),
               "reopened_place_cpu": round(reopen_cpu, 2), "reopened_place_wall": round(reopen_wall, 2)}
        row["cold_over_extract_cpu"] = round(row["cold_place_cpu"] / max(row["extract_cpu"], 1e-6), 2)
        row["cold_no_ocr_over_extract_cpu"] = round(plain_cpu / max(row["extract_cpu"], 1e-6), 2)
        rows.append(row)
        print(row, file=sys.stderr)
    use_cache(work_cache)
    shutil.rmtree(scratch, ignore_errors=True)
    medians = {key: round(statistics.median(r[key] for r in rows), 3) for key in rows[0]
               if key not in ("paper",)} if rows else {}
    payload = {
        "benchmark": "figure text on: extract CPU vs place CPU cold (fresh session, empty content cache), warm "
                     "(same session again) and reopened (fresh session, crop text and embeddings cached), pmc TEST",
        "definitions": {
            "extract": "Session.read(pdf) + export_document (crops rendered), in a fresh session, no imports counted",
            "cold": "app.place, Markdown with headings, figure text on, just after extract in that session: "
                    "models loaded on first need, every crop OCR'd, every text embedded (empty cache)",
            "warm": "the same place again in the same session (the open document: crop text and embeddings cached)",
            "reopened": "a new session on the filled cache (models loaded again)",
            "cold_no_ocr": "the cold place with figure text off (another empty cache): what the default costs",
        },
        "papers": len(rows),
        "goals": {"cold_over_extract_cpu": "<= 3", "warm_place_wall": "<= 1 s"},
        "medians": medians,
        "rows": rows,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
    }
    print(f"written {write_result(args.name + '_cost', payload)}", file=sys.stderr)
    print(medians)


def phase_prepare(args, sets) -> None:
    """The figure text of every crop of every pool into the content cache, test sets first."""
    use_cache(args.work / "appcache")
    seen: set[str] = set()
    started, cpu = time.perf_counter(), time.process_time()
    order = sorted(sets, key=lambda s: ("dev" in s, s))
    with Session(Settings()) as session:
        for set_name in order:
            for item, _ in sets[set_name]:
                pool = [c for c in item.candidates if c.image and c.image not in seen]
                seen.update(c.image for c in pool)
                if not pool:
                    continue
                done, used, wall = cpu_wall(prepare_figure_text, session, pool)
                print(f"{set_name} {item.name}: {done.images} crops, {done.cached} cached, {done.read} read, "
                      f"{len(done.failed)} failed, {used:.1f} CPU-s, {wall:.1f} s "
                      f"(total {time.perf_counter() - started:.0f} s, {time.process_time() - cpu:.0f} CPU-s)",
                      file=sys.stderr)


def select_thresholds(results: dict) -> dict:
    """Per strategy with figure text on and per Acc_ni floor: the swept threshold (the shipped one
    included) with the best mean Acc_i of both forms on the pmc DEV half among those keeping Acc_ni >= the
    floor in both forms (none: the highest Acc_ni)."""
    dev = results.get(SELECT_ON)
    if dev is None:
        return {}
    chosen: dict = {}
    for family in ("shipped+ocr", "baseline+ocr"):
        arms = [arm for arm in ARMS if arm == family or arm.startswith(family + " @ ")]
        for floor in FLOORS:
            def key(arm: str, floor: float = floor) -> tuple:
                forms = [dev[arm][form] for form in ("markdown", "list")]
                ok = all((f["acc_ni"] or 0) >= floor for f in forms)
                return (ok, sum((f["acc_i"] or 0) for f in forms) if ok else min(f["acc_ni"] or 0 for f in forms))
            chosen[f"{family}, Acc_ni >= {floor}"] = max(arms, key=key)
    return {"chosen_on": SELECT_ON, "arms": chosen,
            "rule": "best mean Acc_i (Markdown + list) with Acc_ni >= floor in both forms, on the pmc dev half"}


def weights_provenance() -> dict:
    """Which weights.json placed (another refit may land between runs): its hash and recorded provenance."""
    path = REPO_ROOT / "mmdocsum_desktop" / "placement" / "weights.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return {"sha256": hashlib.sha256(path.read_bytes()).hexdigest()[:16], "provenance": data.get("provenance")}


def phase_measure(args, sets) -> None:
    use_cache(args.work / "appcache")
    started, cpu = time.perf_counter(), time.process_time()
    results: dict = {}
    arm_seconds: dict[str, list[float]] = {arm: [0.0, 0.0] for arm in ARMS}
    pooled: dict[str, dict] = {}  # the pmc families pooled per half: rows, papers, crops
    with Session(Settings()) as session:
        for set_name, chosen in sets.items():
            rows: dict[str, dict[str, list]] = {arm: {"markdown": [], "list": []} for arm in ARMS}
            empty_ocr = 0
            for item, own in chosen:
                paragraphs, sections, gold = paragraphs_of(item, own)
                for arm, (strategy, ocr, threshold) in ARMS.items():
                    settings = PlacementSettings(ocr=ocr)
                    for variant, given in user_forms(paragraphs, sections):
                        pool = [c.model_copy() for c in item.candidates]
                        mark, mark_cpu = time.perf_counter(), time.process_time()
                        run = place(session, given.text, pool, placement=settings, strategy=strategy,
                                    threshold=threshold, headings=variant == "markdown")
                        arm_seconds[arm][0] += time.perf_counter() - mark
                        arm_seconds[arm][1] += time.process_time() - mark_cpu
                        if arm == "shipped+ocr" and variant == "list":
                            empty_ocr += sum(1 for c in pool if c.image and not (c.ocr_text or "").strip())
                        picked = given.per_paragraph([p.candidate for p in run.placements], len(paragraphs))
                        rows[arm][variant].append(m.flow_scores(
                            gold, [item.keys[c] if c is not None else None for c in picked]))
            entry: dict = {"papers": len(chosen),
                           "crops": sum(sum(bool(c.image) for c in item.candidates) for item, _ in chosen),
                           "crops_without_text": empty_ocr,
                           "fitted_on": set_name.startswith("pmc dev")}
            for arm in ARMS:
                entry[arm] = {form: {k: (round(v, 4) if isinstance(v, float) else v)
                                     for k, v in m.pool_flow_scores(r).to_dict().items() if k in KEEP}
                              for form, r in rows[arm].items() if r}
            results[set_name] = entry
            if set_name.startswith("pmc "):
                whole = pooled.setdefault(set_name.split(":")[0] + ": every family",
                                          {"rows": {arm: {"markdown": [], "list": []} for arm in ARMS},
                                           "papers": 0, "crops": 0, "crops_without_text": 0,
                                           "fitted_on": entry["fitted_on"]})
                for arm in ARMS:
                    for form in ("markdown", "list"):
                        whole["rows"][arm][form].extend(rows[arm][form])
                for key in ("papers", "crops", "crops_without_text"):
                    whole[key] += entry[key]
            print(set_name, len(chosen), {arm: (entry[arm]["markdown"]["acc_i"], entry[arm]["list"]["acc_i"])
                                          for arm in list(ARMS)[:4]}, f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    for name, whole in pooled.items():
        rows = whole.pop("rows")
        results[name] = {**whole, **{arm: {form: {k: (round(v, 4) if isinstance(v, float) else v)
                                                 for k, v in m.pool_flow_scores(r).to_dict().items() if k in KEEP}
                                          for form, r in rows[arm].items() if r} for arm in ARMS}}
    payload = {
        "benchmark": "figure text (OCR) on vs off through app.place (Markdown with headings, plain JSON list), "
                     "the shipped model and the baseline, every source with images",
        "arms": {arm: {"strategy": s, "ocr": o, "threshold": t} for arm, (s, o, t) in ARMS.items()},
        "selection": select_thresholds(results),
        "held_out": [s for s in results if not results[s]["fitted_on"]],
        "fitted_on": [s for s in results if results[s]["fitted_on"]],
        "not_measurable": {"eLife": "JATS only, no figure images"},
        "weights": weights_provenance(),
        "results": results,
        "arm_seconds": {arm: {"wall": round(w, 1), "cpu": round(c, 1)} for arm, (w, c) in arm_seconds.items()},
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
    }
    print(f"written {write_result(args.name, payload)}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/p39"))
    parser.add_argument("--phase", choices=("prepare", "cost", "measure"), required=True)
    parser.add_argument("--limit", type=int, default=None, help="pmc papers per half and papers/ PDFs (a quick check)")
    parser.add_argument("--cost-papers", type=int, default=None, help="pmc test papers timed (default all)")
    parser.add_argument("--name", default="placement_figure_text")
    args = parser.parse_args()
    fp.WORK = args.work
    use_cache(args.work / "appcache")
    sets = load_sets(args.limit)
    print({name: len(chosen) for name, chosen in sets.items()}, file=sys.stderr)
    {"prepare": phase_prepare, "cost": phase_cost, "measure": phase_measure}[args.phase](args, sets)


if __name__ == "__main__":
    main()
