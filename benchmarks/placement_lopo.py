"""Leave-one-source-out selection of placement (issue 39): every fitted or tuned choice against the
baseline, one whole source held out at a time.

Sources (the evaluation corpus, ``$MMDOCSUM_CORPUS``): ``elife`` (the first ``--elife-dev`` dev-half and
``--elife-test`` test-half articles, captions from the JATS), the ``pmc/`` pairs grouped by the publisher
their JATS names (``plos``, ``mdpi``, ``bmc``, ``hindawi``, ``pmc-other``; both halves; the app's figure
pool where ``tools/fit_placement.py --read-pdfs`` left its reading, else the JATS captions), and the
``multilingual`` JATS (Spanish, Portuguese, French; captions from the JATS). For each source: every
model is fitted and tuned on all the other sources and scored once on it. Two more held-out sets take no
part in any fit: ``own-pdf`` — the app's own paragraphs of the pmc TEST-half PDFs (mentions removed,
gold carried over from the JATS), with models fitted on everything but the pmc test half — and
``papers`` — the loose PDFs of ``papers/`` (``_ftii_split.paper_split``: gold = the paragraph that
first cites a figure, mentions removed).

Each source is scored twice, in the two forms ``mmdocsum place`` receives: with the section titles a
writer would type as Markdown headings ("headings"), and as a plain JSON list (section features zero).

Compared, in the same run, on every held-out source:

* **baseline** — ``placement/baseline.py``: cosine of the paragraph's MiniLM vector to the caption's
  (and the figure text's, with ``--ocr``), FTII's greedy matching; its one threshold tuned on the
  training sources (best Acc_i at Acc_ni >= 0.95);
* **fitted** configurations of ``tools/fit_placement.py`` (two-stage conditional logit + monotone
  alignment), each refitted per fold, threshold tuned on the training sources;
* the shipped ``weights.json`` as it is (not refitted: a reference; it was fitted on dev pmc + dev eLife).

A fitted configuration ships only if it beats the baseline on every held-out source; ``verdict`` says
which one does, or that the baseline should ship.

    nice -n 10 .venv/bin/python benchmarks/placement_lopo.py [--elife-dev 25 --elife-test 20] [--ocr]

Issue 39's second round ran it with ``--elife-dev 400`` (every dev-half eLife article with a cited
figure: 247) and ``--name placement_lopo_all``; the default stays 25 so that a run on a fresh ``--work``
does not embed 220 more articles unasked (about 3 s each, once).

Features and embeddings are cached under ``--work`` (``/tmp/p39`` by default; shared with
``tools/fit_placement.py --work``). Writes ``benchmarks/results/placement_lopo.json``.
"""

# ruff: noqa: E402
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import pickle
import re
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from _corpus import CORPUS, write_result
from _ftii_split import SPLIT_DIR, paper_split

import tools.fit_placement as fp
from mmdocsum_desktop.bench.metrics import pairs as m
from mmdocsum_desktop.bench.pairs_split import pairs_in
from mmdocsum_desktop.placement import calibration as cal
from mmdocsum_desktop.placement.baseline import baseline_assign
from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.placement.sequence import section_features
from mmdocsum_desktop.placement.text import caption_body
from mmdocsum_desktop.placement.weights import load_weights
from mmdocsum_desktop.schemas.placement import ImageCandidate

FLOOR = 0.95  # Acc_ni the tuning keeps (the goal's)
TAUS = tuple(round(float(t), 3) for t in np.arange(0.20, 0.801, 0.025))  # baseline cosine thresholds
# the fitted models' thresholds: a coarser grid than tools/fit_placement.py's (the machine is a loaded
# 2-core one and each fold tunes again)
FIT_THRESHOLDS = tuple(round(1.0 / (1.0 + np.exp(-x / 2.0)), 4) for x in range(-9, 10, 1))  # fit_placement's
CONFIGS = {  # name → index into tools/fit_placement.CONFIGS (few: the machine is a loaded 2-core one)
    "fitted: + word evidence + sections": 3,  # L2 1: the configuration shipped after issue 39's first round
    "fitted: + word evidence + sections, L2 3": 10,
    "fitted: + word evidence + sections, L2 10": 11,
    "fitted: + word evidence + sections, sources weighted equally": 15,
    "fitted: + word evidence + sections, sources weighted equally, L2 3": 16,
    "fitted: + word evidence + sections, sources weighted equally, fitted with and without sections": 17,
    "fitted: + word evidence + sections, sources weighted equally, L2 3, fitted with and without sections": 18,
    "fitted: + word evidence + sections + paragraph head": 4,  # L2 1
    "fitted: + word evidence + sections + paragraph head, L2 0.3 (issue 27's config)": 6,
}
TUNINGS = ("", " [tuned by source]")  # the threshold keeps the floor pooled, or on the mean of the source families
CONTENT_CONFIGS = {  # --content: experimental, the engine does not compute these signals
    "fitted: + word evidence + sections + caption parts": 13,
    "fitted: + word evidence + sections + caption parts, L2 3": 14,
}
FLOORS = (0.95, 0.96, 0.97)
RULE = ("ships only if, on every held-out source and in both forms, Acc_i > the baseline's, Acc_b >= the "
        "baseline's and Acc_ni >= 0.95; of those, the best mean Acc_i over sources (headings + list); "
        "none passing: the baseline")
PUBLISHERS = (
    ("plos", re.compile(r"public library of science", re.I)),
    ("mdpi", re.compile(r"\bmdpi\b", re.I)),
    ("bmc", re.compile(r"biomed central", re.I)),
    ("hindawi", re.compile(r"hindawi", re.I)),
)
RESULT_CODE = ("baseline", "scorer", "sequence", "text", "calibration", "engine")


def publisher_group(xml: Path) -> str:
    head = xml.read_text(encoding="utf-8", errors="replace")[:20000]
    found = re.search(r"<publisher-name>([^<]*)", head)
    name = found.group(1) if found else ""
    for group, pattern in PUBLISHERS:
        if pattern.search(name):
            return group
    return "pmc-other"


def load_items(args) -> list[fp.Item]:
    items: list[fp.Item] = []
    for split in ("dev", "test"):
        for pair in pairs_in(fp.PMC, split):
            item = fp.jats_item(pair.xml, pair.name, publisher_group(pair.xml), split, use_app=True)
            if item is not None and any(item.gold):
                items.append(item)
    for split, count in (("dev", args.elife_dev), ("test", args.elife_test)):
        taken = 0
        for pair in pairs_in(fp.ELIFE, split):
            if taken >= count:
                break
            item = fp.jats_item(pair.xml, pair.name, "elife", split, use_app=False)
            if item is not None and any(item.gold):
                items.append(item)
                taken += 1
    for xml in fp.multilingual_xmls():
        item = fp.multilingual_item(xml)
        if item is not None and any(item.gold):
            items.append(item)
    return items


def paper_items() -> list[fp.Item]:
    """The loose PDFs of papers/, as the app reads them (``_ftii_split``), with at least one gold figure."""
    out = []
    for pdf in sorted((CORPUS / "papers").glob("*.pdf")):
        split = paper_split(pdf, SPLIT_DIR / "docs")
        if not any(split.groundtruth):
            continue
        candidates = []
        for order, path in enumerate(split.pool):
            note = split.annotations.get(path, {})
            candidates.append(ImageCandidate(image=str(SPLIT_DIR / path), label=note.get("label"),
                                             kind=note.get("kind", "figure"), caption=note.get("caption") or "",
                                             order=order))
        out.append(fp.Item(split.id, "papers", "test", split.content, [None] * len(split.content), candidates,
                           list(split.pool), [g or None for g in split.groundtruth], "app"))
    return out


@dataclasses.dataclass
class Record:
    name: str
    source: str
    split: str
    arrays: fp.Arrays
    baseline: dict[float, list[int | None]]  # threshold → choice per paragraph


def record_of(engine: PlacementEngine, item: fp.Item, own: bool, ocr: bool) -> Record:
    paragraphs = item.own_paragraphs if own else item.paragraphs
    sections = item.own_sections if own else item.sections
    gold = item.own_gold if own else item.gold
    candidates = [c.model_copy() for c in item.candidates]
    problem = engine.prepare(paragraphs, candidates, sections=sections)
    valid = ~problem._empty_rows()
    base = cal.derive({k: v for k, v in problem.sims.items() if k in cal.BASE_SIGNALS})
    where = {key: i for i, key in enumerate(gold) if key}
    mm = len(candidates)
    arrays = fp.Arrays(
        name=item.name, source=item.source, base=base, valid=valid, ranks=list(problem.ranks),
        lengths=[len(p.split()) for p in paragraphs], labeled=[bool((c.label or "").strip()) for c in candidates],
        sections=section_features(problem.section_kinds, problem.section_first, mm) if mm else {},
        gold_rows=[where.get(key, -1) for key in item.keys], gold=list(gold), keys=list(item.keys),
        para_emb=problem.similarity.para_emb,
    )
    choices = {tau: baseline_assign(problem, tau) for tau in TAUS} if mm else {tau: [None] * len(gold) for tau in TAUS}
    return Record(item.name, "own-pdf" if own else item.source, item.split, arrays, choices)


def cached_record(engine: PlacementEngine, item: fp.Item, own: bool, ocr: bool) -> Record:
    package = REPO_ROOT / "mmdocsum_desktop" / "placement"
    code = b"".join((package / f"{name}.py").read_bytes() for name in RESULT_CODE)
    texts = json.dumps([item.own_paragraphs if own else item.paragraphs, str(item.own_sections if own else item.sections),
                        [c.model_dump() for c in item.candidates], item.keys, item.own_gold if own else item.gold,
                        ocr, TAUS])
    key = hashlib.sha256(code + texts.encode()).hexdigest()[:20]
    path = fp.WORK / "lopo" / f"{item.source}-{item.name}-{'own' if own else 'jats'}-{key}.pkl"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    record = record_of(engine, item, own, ocr)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(record))
    return record


def cached_content(embedder, item: fp.Item, own: bool) -> dict[str, np.ndarray]:
    """``fit_placement.content_matrices`` of one problem as derived stage-1 features, kept under --work."""
    paragraphs = item.own_paragraphs if own else item.paragraphs
    captions = [caption_body(c.caption) for c in item.candidates]  # what the scorer reads of a caption
    key = hashlib.sha256(json.dumps([paragraphs, captions, fp.CONTENT]).encode()).hexdigest()[:20]
    path = fp.WORK / "content" / f"{item.source}-{item.name}-{'own' if own else 'jats'}-{key}.pkl"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    derived = cal.derive(fp.content_matrices(embedder, paragraphs, captions)) if paragraphs and captions else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(derived))
    return derived


def plain(a: fp.Arrays) -> fp.Arrays:
    """The same paragraphs as a JSON list: no section features."""
    return dataclasses.replace(a, sections={k: np.zeros_like(v) for k, v in a.sections.items()})


def score(records: list[Record], choices: list[list[int | None]]) -> dict:
    rows = [m.flow_scores(r.arrays.gold, [r.arrays.keys[c] if c is not None else None for c in ch])
            for r, ch in zip(records, choices)]
    pooled = m.pool_flow_scores(rows).to_dict()
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in pooled.items()
            if k in ("acc_b", "acc_i", "acc_ni", "within_one", "n_slots", "n_image_slots")}


def tune_baseline(train: list[Record]) -> float:
    best = None
    for tau in TAUS:
        result = score(train, [r.baseline[tau] for r in train])
        ok = (result["acc_ni"] or 0) >= FLOOR
        key = (ok, result["acc_i"] if ok else result["acc_ni"], result["acc_b"])
        if best is None or key > best[0]:
            best = (key, tau)
    return best[1]


def fitted_choices(model: fp.Model, records: list[Record], strip_sections: bool) -> list[list[int | None]]:
    out = []
    for r in records:
        a = plain(r.arrays) if strip_sections else r.arrays
        if not a.keys or not a.valid.any():
            out.append([None] * len(a.gold))
            continue
        out.append(fp.decide(fp.utilities(model, a), a, model.threshold, model.out_of_order, model.prior))
    return out


def held_odds(model: fp.Model, records: list[Record], strip_sections: bool) -> list[np.ndarray | None]:
    """The model's log-odds of every held-out problem (they do not depend on the threshold)."""
    out: list[np.ndarray | None] = []
    for r in records:
        a = plain(r.arrays) if strip_sections else r.arrays
        out.append(fp.utilities(model, a) if a.keys and a.valid.any() else None)
    return out


def decided(model: fp.Model, records: list[Record], odds: list[np.ndarray | None],
            strip_sections: bool) -> list[list[int | None]]:
    """``fitted_choices`` from precomputed log-odds (the same decisions)."""
    out = []
    for r, o in zip(records, odds):
        a = plain(r.arrays) if strip_sections else r.arrays
        out.append([None] * len(a.gold) if o is None else fp.decide(o, a, model.threshold, model.out_of_order, model.prior))
    return out


def tune_floors(model: fp.Model, arrays: list[fp.Arrays], floors) -> dict[float, tuple]:
    """``fit_placement.tune`` for several Acc_ni floors at once (the same grid, the same choice at each
    floor: the best Acc_i among the settings that keep the floor, first of equals), scoring every setting once."""
    odds = [fp.utilities(model, a) for a in arrays]
    settings = []
    for prior in fp.PRIORS:
        for margin in fp.OUT_OF_ORDER:
            for threshold in fp.THRESHOLDS:
                choices = [fp.decide(o, a, threshold, margin, prior) for o, a in zip(odds, arrays)]
                settings.append(((threshold, margin, prior), fp.tuning_score(arrays, choices, False),
                                 fp.tuning_score(arrays, choices, True)))
    out = {}
    for floor in floors:
        for tuning in TUNINGS:
            k = 0 if not tuning else 1
            out[(floor, tuning)] = max(settings, key=lambda entry, f=floor, k=k: fp.tuning_key(entry[1 + k], f))[0]
    return out


def candidate_name(label: str, floor: float, tuning: str) -> str:
    return (label if floor == FLOOR else f"{label} @ floor {floor}") + tuning


def shipped_model() -> fp.Model:
    weights = load_weights()
    profile = weights.profiles[weights.sequence_profile]
    seq = weights.sequence["no_ce"]
    head = (np.array(weights.paragraph_head.weights), weights.paragraph_head.bias) if weights.paragraph_head else None
    config = fp.Config("shipped", tuple(profile.signals), tuple(seq.weights))
    return fp.Model(config, dict(profile.weights), profile.nowhere, dict(seq.weights), seq.nowhere, seq.threshold,
                    None if seq.out_of_order >= 1e6 else seq.out_of_order, seq.paragraph_prior, head=head)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/p39"))
    parser.add_argument("--elife-dev", type=int, default=25)
    parser.add_argument("--elife-test", type=int, default=20)
    parser.add_argument("--ocr", action="store_true", help="read the figure text of crops (PDF pools only)")
    parser.add_argument("--prepare-only", action="store_true", help="compute and cache every record, then stop")
    parser.add_argument("--no-papers", action="store_true", help="leave the papers/ PDFs out (time)")
    parser.add_argument("--name", default="placement_lopo")
    parser.add_argument("--configs", default="", help="only these CONFIGS names' indices into fit_placement.CONFIGS "
                        "(comma-separated; default: all of CONFIGS)")
    parser.add_argument("--folds", default="", help="hold out only these sources (comma-separated; a quick check)")
    parser.add_argument("--content", action="store_true",
                        help="add the experimental caption-part signals (tools/fit_placement.CONTENT) and the "
                             "configurations that read them")
    args = parser.parse_args()
    fp.WORK = args.work
    fp.THRESHOLDS = FIT_THRESHOLDS
    fp.OUT_OF_ORDER = (5.0,)
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.embed import TextEmbedder

    started, cpu = time.perf_counter(), time.process_time()
    embedder = TextEmbedder(cache=ContentCache(args.work / "embeddings.sqlite"), intra_op_threads=1)
    ocr_engine = None
    if args.ocr:
        from mmdocsum_desktop.models.ocr import OcrEngine
        ocr_engine = OcrEngine()
    engine = PlacementEngine(embedder, ocr_engine, None, use_ocr=args.ocr)
    items = load_items(args)
    extra = [] if args.no_papers else paper_items()
    print({s: sum(i.source == s for i in items) for s in sorted({i.source for i in items})}, "papers", len(extra),
          file=sys.stderr)
    records: list[Record] = []
    own: list[Record] = []
    for k, item in enumerate(items + extra):
        records.append(cached_record(engine, item, False, args.ocr))
        if item.own_paragraphs and item.split == "test" and item.pool == "app":  # pmc test: the app's reading
            own.append(cached_record(engine, item, True, args.ocr))
        if k % 20 == 0:
            print(f"  {k}/{len(items) + len(extra)} prepared ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if args.content:  # the caption-part signals, added to every record's stage-1 features (cached)
        for record, (item, own_form) in zip(records + own, [(i, False) for i in items + extra] +
                                            [(i, True) for i in items + extra
                                             if i.own_paragraphs and i.split == "test" and i.pool == "app"]):
            record.arrays.base.update(cached_content(embedder, item, own_form))
        print(f"  caption parts added ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
        CONFIGS.update(CONTENT_CONFIGS)
    if args.prepare_only:
        return
    jats = [r for r in records if r.source != "papers"]
    sources = sorted({r.source for r in jats}, key=lambda s: (s != "elife", s))
    held_sets: dict[str, tuple[list[Record], list[Record]]] = {}  # name → (held out, training)
    for source in sources:
        held_sets[source] = ([r for r in jats if r.source == source], [r for r in jats if r.source != source])
    pmc_test = {r.name for r in jats if r.split == "test" and r.name in {o.name for o in own}}
    not_pmc_test = [r for r in jats if r.name not in pmc_test]
    if own:
        held_sets["own-pdf"] = (own, not_pmc_test)
    papers = [r for r in records if r.source == "papers"]
    if papers:
        held_sets["papers"] = (papers, jats)
    if args.configs:
        wanted = {int(k) for k in args.configs.split(",")}
        for label in [k for k, v in CONFIGS.items() if v not in wanted]:
            del CONFIGS[label]
    if args.folds:
        held_sets = {k: v for k, v in held_sets.items() if k in args.folds.split(",")}
    shipped = shipped_model()
    rows: dict[str, dict] = {}
    for name, (held, train) in held_sets.items():
        mark = time.perf_counter()
        tau = tune_baseline(train)
        row: dict = {"papers": len(held), "train_papers": len(train),
                     "baseline": {"threshold": tau, "headings": score(held, [r.baseline[tau] for r in held])}}
        row["baseline"]["list"] = row["baseline"]["headings"]  # the baseline reads no sections
        # the test halves alone (the goals are stated on them)
        tests = [r for r in held if r.split == "test"]
        if tests and len(tests) < len(held):
            row["baseline"]["test_half"] = score(tests, [r.baseline[tau] for r in tests])
        train_arrays = [r.arrays for r in train]
        # each configuration fitted once per fold; its threshold tuned to every Acc_ni floor (the floor
        # is chosen by the same held-out sources)
        for label, index in CONFIGS.items():
            model = fp.fit(fp.CONFIGS[index], train_arrays)
            odds = {form: held_odds(model, held, form == "list") for form in ("headings", "list")}
            for (floor, tuning), (threshold, margin, prior) in tune_floors(model, train_arrays, FLOORS).items():
                model.threshold, model.out_of_order, model.prior = threshold, margin, prior
                choices = {form: decided(model, held, odds[form], form == "list") for form in odds}
                entry = {"threshold": model.threshold, **{form: score(held, choices[form]) for form in odds}}
                if tests and len(tests) < len(held):
                    keep = [k for k, r in enumerate(held) if r.split == "test"]
                    entry["test_half"] = score(tests, [choices["headings"][k] for k in keep])
                    entry["test_half_list"] = score(tests, [choices["list"][k] for k in keep])
                row[candidate_name(label, floor, tuning)] = entry
        row["shipped weights.json (not refitted; fitted on dev pmc + dev eLife)"] = {
            "headings": score(held, fitted_choices(shipped, held, False)),
            "list": score(held, fitted_choices(shipped, held, True))}
        rows[name] = row
        print(f"== {name}: {len(held)} papers ({time.perf_counter() - mark:.0f} s)", file=sys.stderr)
        for label, entry in row.items():
            if isinstance(entry, dict) and "headings" in entry:
                h, li = entry["headings"], entry["list"]
                print(f"   {label[:60]:60s} headings {h['acc_i']} / {h['acc_ni']}   list {li['acc_i']} / {li['acc_ni']}",
                      file=sys.stderr)
    # The rule, fixed before this run's numbers were seen (issue 39, second round; the first round
    # ranked Acc_ni >= 0.95 after the baseline test and wrote the rule after a first run):
    # a candidate may ship only if, on EVERY held-out source and in BOTH forms (headings, plain list),
    #   (1) its Acc_i is higher than the baseline's,
    #   (2) its Acc_b is no lower than the baseline's: Acc_b counts every slot, so a lower one means more
    #       paragraphs that now carry a wrong figure than figures newly put right — proposals a user
    #       would reject more often than accept, wherever the baseline stands;
    #   (3) its Acc_ni is >= 0.95 (the goal's floor; a hard condition now, not a tie-break).
    # Of the candidates that pass, the best mean Acc_i over the sources (both forms summed) ships; if
    # none passes, the verdict is "baseline".
    verdict: dict = {"rule": RULE}
    candidates = [candidate_name(label, floor, tuning) for label in CONFIGS for floor in FLOORS for tuning in TUNINGS]
    for label in candidates:
        beats = {name: all((row[label][form]["acc_i"] or 0) > (row["baseline"][form]["acc_i"] or 0)
                           and (row[label][form]["acc_b"] or 0) >= (row["baseline"][form]["acc_b"] or 0)
                           for form in ("headings", "list"))
                 for name, row in rows.items()}
        acc_ni = {name: all((row[label][form]["acc_ni"] or 0) >= FLOOR for form in ("headings", "list"))
                  for name, row in rows.items()}
        mean_i = {form: round(float(np.mean([row[label][form]["acc_i"] or 0 for row in rows.values()])), 4)
                  for form in ("headings", "list")}
        verdict[label] = {"beats_baseline_on_every_source": all(beats.values()), "per_source": beats,
                          "acc_ni_goal_met": acc_ni, "acc_ni_goal_met_everywhere": all(acc_ni.values()),
                          "passes": all(beats.values()) and all(acc_ni.values()),
                          "mean_acc_i_over_sources": mean_i}
    passing = [k for k in candidates if verdict[k]["passes"]]
    verdict["passing"] = passing
    verdict["ships"] = (max(passing, key=lambda k: sum(verdict[k]["mean_acc_i_over_sources"].values()))
                        if passing else "baseline")
    payload = {
        "floors": list(FLOORS),
        "benchmark": "leave-one-source-out: fitted placement configurations against the baseline, every source held out",
        "sources": {name: len(held) for name, (held, _) in held_sets.items()},
        "image_slots": {name: sum(bool(g) for r in held for g in r.arrays.gold) for name, (held, _) in held_sets.items()},
        "elife": {"dev_asked": args.elife_dev, "test_asked": args.elife_test,
                  "dev": sum(i.source == "elife" and i.split == "dev" for i in items),
                  "test": sum(i.source == "elife" and i.split == "test" for i in items)},
        "ocr": args.ocr,
        "pmc_pool": {"app": sum(1 for i in items if i.source not in ("elife", "multilingual") and i.pool == "app"),
                     "jats": sum(1 for i in items if i.source not in ("elife", "multilingual") and i.pool == "jats")},
        "acc_ni_floor": f"{FLOOR} (plain entries); the '@ floor F' entries tune to F",
        "rows": rows,
        "verdict": verdict,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
    }
    target = write_result(args.name, payload)
    print(json.dumps({k: (v if not isinstance(v, dict) else {x: v[x] for x in ("passes", "beats_baseline_on_every_source",
                                                                               "mean_acc_i_over_sources")})
                      for k, v in verdict.items()}, indent=1))
    print(f"written {target}")


if __name__ == "__main__":
    main()
