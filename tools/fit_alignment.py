"""Fit the placement alignment the app ships (``mmdocsum_desktop/placement/alignment.json``, issue 43).

Every document is read the way ``mmdocsum place`` reads it (``app.placement.prepare_placement``: the text as
the user gives it — a Markdown text with the section titles typed as headings, and a plain JSON list — the
session's MiniLM and cross-encoder); ``engine.alignment_inputs`` gives the alignment's signals
(``placement/align.py``). Per configuration (which signals), a conditional logit per visual (softmax over the
paragraphs plus "nowhere") is fitted, then the placement bonus and the out-of-order bar are tuned for the
best Acc_i with Acc_ni >= 0.95 on the mean of the training sources.

Data (the corpus at ``$MMDOCSUM_CORPUS``, default ``../shared/corpus``; DEV halves only, nothing of a TEST
half is read here): the pmc DEV pairs grouped by publisher (BMC, Hindawi, MDPI, PLOS, other; the app's own
figure pool where ``--work``/docs holds its reading of the PDF, see ``tools/fit_placement.py --read-pdfs``),
the first ``--elife`` articles of the eLife DEV half, the multilingual JATS articles.

Selection: leave-one-source-out — each source in turn is held out, every configuration fitted and tuned
on the others and scored on it beside the strong baseline (``placement/align.py``: TF-IDF, every visual
placed once in order) in both forms. A configuration ships only if its Acc_i is above the baseline's on
every held-out source in both forms; among those the best mean Acc_i. The chosen one is refitted on every
source and written with its provenance (``--write``).

    nice -n 10 .venv/bin/python tools/fit_alignment.py --work /tmp/p43 [--elife 120] [--write]

Results: ``docs/results/placement_alignment_fit.json``.
"""

# ruff: noqa: E402
from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import pickle
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from mmdocsum_desktop.placement import align as al

ACC_NI_FLOOR = 0.95
REUSE = False  # --reuse-features
BONUSES = tuple(float(b) for b in np.arange(-2.0, 8.01, 1.0))
BARS = (None, 6.0)
L2 = 1.0
BASE = ("lex_z", "lex", "best_lex", "prior_gap", "later_gap", "pos_dev", "kind_table")
CONFIGS = {
    "lexical": BASE,
    "lexical+minilm": (*BASE, *al.EMBEDDED),
    "lexical+minilm+sections": (*BASE, *al.EMBEDDED, *al.SECTION_FEATURES),
    "lexical+minilm+ce": (*BASE, *al.EMBEDDED, *al.CROSS),
    "all": (*BASE, *al.EMBEDDED, *al.CROSS, *al.SECTION_FEATURES),
}
FORMS = ("markdown", "list")


@dataclass
class Doc:
    """One document in one form, as the alignment sees it."""

    name: str
    source: str
    form: str
    features: dict[str, np.ndarray]
    valid: np.ndarray
    ranks: list[int]
    first_mention: np.ndarray
    keys: list[str]  # per visual
    gold: list[str | None]  # per row (block) of the form
    cites: list[list[str]]  # per row: the keys its paragraph cites
    has_ce: bool
    baseline: list[int | None] = field(default_factory=list)


def publisher_group(xml: Path) -> str:
    from placement_lopo import publisher_group as group

    return group(xml)


def cites_of(xml: Path, keys: set[str]) -> list[list[str]]:
    """Per JATS paragraph, the figure keys (lower-cased labels) it cites."""
    from mmdocsum_desktop.bench.pairs_gold import read_gold

    gold = read_gold(xml)
    key_of = {v.id: (v.label or v.id).lower() for v in gold.visuals}
    return [[key_of[c] for c in p.cites if c in key_of and key_of[c] in keys] for p in gold.paragraphs]


def load_items(work: Path, elife: int, splits=("dev",), elife_skip: int = 0):
    """(item, its source, per-paragraph cites) of the DEV halves (or ``splits``)."""
    import tools.fit_placement as fp
    from mmdocsum_desktop.bench.pairs_split import pairs_in

    fp.WORK = work
    out = []
    for split in splits:
        for pair in pairs_in(fp.PMC, split):
            item = fp.jats_item(pair.xml, pair.name, publisher_group(pair.xml), split, use_app=True)
            if item is not None and any(item.gold):
                out.append((item, item.source, cites_of(pair.xml, set(item.keys))))
        taken = 0
        for index, pair in enumerate(pairs_in(fp.ELIFE, split)):
            if taken >= elife:
                break
            if index < elife_skip:
                continue
            item = fp.jats_item(pair.xml, pair.name, "elife", split, use_app=False)
            if item is not None and any(item.gold):
                out.append((item, "elife", cites_of(pair.xml, set(item.keys))))
                taken += 1
    if "dev" in splits:
        for xml in fp.multilingual_xmls():
            item = fp.multilingual_item(xml)
            if item is not None and any(item.gold):
                out.append((item, "multilingual", cites_of(xml, set(item.keys))))
    return out


def doc_of(session, item, source: str, cites: list[list[str]], form: str, own: bool = False) -> Doc | None:
    """The document in one user form, read through ``prepare_placement`` (the user's path)."""
    from mmdocsum_desktop.app.placement import prepare_placement
    from mmdocsum_desktop.bench.suites.pairs import user_forms

    paragraphs = item.own_paragraphs if own else item.paragraphs
    sections = [(s,) if s else None for s in item.own_sections] if own else item.sections
    gold = item.own_gold if own else item.gold
    if not paragraphs or not any(gold):
        return None
    given = dict(user_forms(paragraphs, sections))[form]
    pool = [c.model_copy() for c in item.candidates]
    prepared = prepare_placement(session, given.text, pool, headings=form == "markdown")
    problem = prepared.problem
    features = prepared.engine.alignment_inputs(problem)
    valid = ~problem._empty_rows()
    rows = given.rows
    gold_rows = [gold[r] if r is not None else None for r in rows]
    cite_rows = [cites[r] if (r is not None and r < len(cites)) else [] for r in rows]
    choices, _ = al.baseline_alignment(problem.paragraphs, problem.candidates, problem.ranks, valid,
                                       problem.first_mention)
    return Doc(item.name, source, form, features, valid, list(problem.ranks), np.asarray(problem.first_mention),
               list(item.keys), gold_rows, cite_rows, problem.ce is not None, choices)


def cached_doc(session, work: Path, item, source, cites, form, own=False) -> Doc | None:
    code = b"".join((REPO_ROOT / "mmdocsum_desktop" / "placement" / f"{n}.py").read_bytes()
                    for n in ("align", "scorer", "sequence", "text", "rescore"))
    payload = json.dumps([item.own_paragraphs if own else item.paragraphs, str(item.own_sections if own else item.sections),
                          [c.model_dump() for c in item.candidates], item.keys, item.own_gold if own else item.gold,
                          cites, form])
    key = hashlib.sha256(code + payload.encode()).hexdigest()[:20]
    path = work / "align" / f"{item.name}-{form}-{'own' if own else 'jats'}-{key}.pkl"
    if REUSE and not path.is_file():  # --reuse-features: the newest cached under other code
        found = sorted(path.parent.glob(f"{item.name}-{form}-{'own' if own else 'jats'}-*.pkl"),
                       key=lambda p: p.stat().st_mtime)
        path = found[-1] if found else path
    if path.is_file():
        doc = pickle.loads(path.read_bytes())
        if doc is not None:  # features cached before align.py cleaned NaN of text-less rows
            doc.features = {k: np.nan_to_num(v) for k, v in doc.features.items()}
        return doc
    doc = doc_of(session, item, source, cites, form, own)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(doc))
    return doc


# ------------------------------------------------------------------------------------------- fitting

def columns(docs: list[Doc], names) -> list[tuple[np.ndarray, int]]:
    out = []
    for d in docs:
        rows = np.flatnonzero(d.valid)
        if rows.size == 0:
            continue
        x = np.stack([d.features[n][rows] for n in names], axis=-1)  # rows × visuals × d
        where = {k: r for r, k in enumerate(d.gold) if k}
        for j, key in enumerate(d.keys):
            target = where.get(key)
            if target is not None and d.first_mention[target, j] > 0:
                continue  # cited by its label: decided by the mention, nothing to learn
            local = int(np.flatnonzero(rows == target)[0]) if target is not None and target in set(rows) else -1
            out.append((x[:, j, :], local))
    return out


def source_weights(docs: list[Doc]) -> np.ndarray:
    """Each column weighted so that every source weighs alike."""
    counts: dict[str, int] = {}
    for d in docs:
        counts[d.source] = counts.get(d.source, 0) + len(d.keys)
    per = {s: 1.0 / c for s, c in counts.items()}
    out = []
    for d in docs:
        if np.flatnonzero(d.valid).size:
            where = {k: r for r, k in enumerate(d.gold) if k}
            for j, key in enumerate(d.keys):
                target = where.get(key)
                if target is not None and d.first_mention[target, j] > 0:
                    continue
                out.append(per[d.source])
    w = np.asarray(out)
    return w * len(w) / max(w.sum(), 1e-12)


def fit(docs: list[Doc], names) -> tuple[dict[str, float], float]:
    from tools.fit_placement import fit_clogit

    cols = columns(docs, names)
    nowhere, w = fit_clogit(cols, L2, source_weights(docs))
    return {n: float(v) for n, v in zip(names, w)}, nowhere


def decide(doc: Doc, model: al.AlignmentModel) -> list[int | None]:
    utility = model.utility(doc.features, doc.valid)
    return al.solve(utility, doc.ranks, doc.first_mention, model.out_of_order)


def scores(docs: list[Doc], choices: list[list[int | None]]) -> dict:
    from mmdocsum_desktop.bench.metrics import pairs as m

    rows, hits, placed = [], 0, 0
    for d, c in zip(docs, choices):
        predicted = [d.keys[j] if j is not None else None for j in c]
        rows.append(m.flow_scores(d.gold, predicted))
        h, p = m.citing_hits(d.cites, predicted)
        hits += h
        placed += p
    pooled = m.pool_flow_scores(rows).to_dict()
    out = {k: pooled[k] for k in ("acc_b", "acc_i", "acc_ni", "within_one", "n_slots", "n_image_slots")}
    out["citing_precision"] = hits / placed if placed else None
    out["placed"] = placed
    return out


def by_source(docs: list[Doc], choices) -> dict[str, dict]:
    groups: dict[str, list[int]] = {}
    for k, d in enumerate(docs):
        groups.setdefault(d.source, []).append(k)
    return {s: scores([docs[k] for k in ks], [choices[k] for k in ks]) for s, ks in groups.items()}


def tune(docs: list[Doc], weights: dict[str, float], nowhere: float) -> al.AlignmentModel:
    """The bonus and the out-of-order bar: the best mean Acc_i over the sources with their mean Acc_ni at
    the floor (the highest Acc_ni when none reaches it)."""
    best_key, best = None, None
    for bar in BARS:
        for bonus in BONUSES:
            model = al.AlignmentModel(weights, nowhere, bonus, bar)
            per = by_source(docs, [decide(d, model) for d in docs])
            acc_i = float(np.mean([r["acc_i"] or 0.0 for r in per.values()]))
            acc_ni = float(np.mean([r["acc_ni"] if r["acc_ni"] is not None else 1.0 for r in per.values()]))
            key = (acc_ni >= ACC_NI_FLOOR, acc_i if acc_ni >= ACC_NI_FLOOR else acc_ni)
            if best_key is None or key > best_key:
                best_key, best = key, model
    assert best is not None
    return best


def fit_pair(docs: list[Doc], names) -> dict[str, al.AlignmentModel]:
    """The "ce" model (on the documents the cross-encoder read) and the "no_ce" one (its features left
    out, on every document)."""
    ce_docs = [d for d in docs if d.has_ce]
    weights, nowhere = fit(ce_docs or docs, names)
    plain_names = [n for n in names if n not in al.CROSS]
    plain_weights, plain_nowhere = fit(docs, plain_names)
    return {"ce": tune(ce_docs or docs, weights, nowhere), "no_ce": tune(docs, plain_weights, plain_nowhere)}


def decide_pair(doc: Doc, models: dict[str, al.AlignmentModel]) -> list[int | None]:
    return decide(doc, models["ce" if doc.has_ce else "no_ce"])


# ------------------------------------------------------------------------------------------------ main

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/p43"))
    parser.add_argument("--elife", type=int, default=120, help="eLife DEV articles (the first N by name)")
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--reuse-features", action="store_true",
                        help="take features cached by another version of the code (only after a change that "
                             "leaves them as they were, e.g. NaN cleaned on load)")
    parser.add_argument("--write", action="store_true", help="write mmdocsum_desktop/placement/alignment.json")
    parser.add_argument("--results", type=Path, default=REPO_ROOT / "docs" / "results")
    args = parser.parse_args()
    global REUSE
    REUSE = args.reuse_features
    cache = args.work / "appcache"
    cache.mkdir(parents=True, exist_ok=True)
    os.environ["MMDOCSUM_CACHE_DIR"] = str(cache)

    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.schemas.settings import Settings

    started, cpu = time.perf_counter(), time.process_time()
    items = load_items(args.work, args.elife)
    docs: list[Doc] = []
    with Session(Settings()) as session:
        for k, (item, source, cites) in enumerate(items):
            for form in FORMS:
                doc = cached_doc(session, args.work, item, source, cites, form)
                if doc is not None:
                    docs.append(doc)
            if k % 20 == 0:
                print(f"  read {k + 1}/{len(items)} {time.perf_counter() - started:.0f} s", file=sys.stderr)
    sources = sorted({d.source for d in docs})
    chosen = [c for c in args.configs.split(",") if c]
    folds: dict = {}
    for held in sources:
        train = [d for d in docs if d.source != held]
        test = [d for d in docs if d.source == held]
        fold = {}
        for form in FORMS:
            tested = [d for d in test if d.form == form]
            fold.setdefault("baseline", {})[form] = scores(tested, [d.baseline for d in tested])
        for name in chosen:
            models = fit_pair(train, CONFIGS[name])
            for form in FORMS:
                tested = [d for d in test if d.form == form]
                fold.setdefault(name, {})[form] = scores(tested, [decide_pair(d, models) for d in tested])
        folds[held] = fold
        print(held, {k: {f: round(v[f]["acc_i"] or 0, 3) for f in FORMS} for k, v in fold.items()}, file=sys.stderr)
    verdict = {}
    for name in chosen:
        beats = all((folds[s][name][f]["acc_i"] or 0) > (folds[s]["baseline"][f]["acc_i"] or 0)
                    for s in sources for f in FORMS)
        mean = float(np.mean([folds[s][name][f]["acc_i"] or 0 for s in sources for f in FORMS]))
        margin = float(min((folds[s][name][f]["acc_i"] or 0) - (folds[s]["baseline"][f]["acc_i"] or 0)
                           for s in sources for f in FORMS))
        verdict[name] = {"beats_baseline_everywhere": beats, "mean_acc_i": round(mean, 4),
                         "smallest_margin": round(margin, 4)}
    eligible = [n for n in chosen if verdict[n]["beats_baseline_everywhere"]] or chosen
    ship = max(eligible, key=lambda n: verdict[n]["mean_acc_i"])
    final = fit_pair(docs, CONFIGS[ship])
    payload = {
        "tool": "tools/fit_alignment.py",
        "date": dt.date.today().isoformat(),
        "data": {"sources": {s: sum(1 for d in docs if d.source == s and d.form == "list") for s in sources},
                 "elife_dev_articles": args.elife, "forms": list(FORMS)},
        "rule": "ships if Acc_i above the strong baseline on every held-out source in both forms; then best mean Acc_i",
        "folds": folds,
        "verdict": verdict,
        "shipped": ship,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
    }
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "placement_alignment_fit.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(verdict, indent=1), "shipped:", ship, file=sys.stderr)
    if args.write:
        provenance = {k: payload[k] for k in ("tool", "date", "data", "rule", "shipped")}
        provenance["config_features"] = list(CONFIGS[ship])
        provenance["command"] = "tools/fit_alignment.py " + " ".join(sys.argv[1:])
        provenance["results"] = "docs/results/placement_alignment_fit.json"
        body = al.alignment_payload(final, provenance)
        target = al.ALIGNMENT_FILE
        tmp = target.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, target)
        print(f"written {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
