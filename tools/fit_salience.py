"""Fit the extractive summary's salience weights (issue 45): which sentences read like the paper's abstract.

The summary's salience (``summarize/extractive.salience_features`` @ weights) is one term of a sentence's
relevance to its paragraph. This script learns the weights from the open corpora's fitting halves and
chooses how to learn them by leave-one-source-out, against the weights shipped today, on the number the
summary is judged by: ROUGE-1 of the summary written with the abstract left out (``--no-abstract``).

Data (never the test halves: ``bench/pairs_split.split_of`` is checked for every pmc/ and eLife item):
``pmc/`` dev half (the PDFs, read as ``mmdocsum summarize`` reads them), grouped by publisher family
(Hindawi, BMC, MDPI, other pmc journals); ``elife/`` dev half (JATS; ``--elife-limit`` of them, every
``k``-th by name, to keep a run within minutes on two cores); ``multilingual/`` (SciELO PDFs and JATS,
OpenEdition TEI, scored against the abstract in the document's language). Extra items: ``--item
SOURCE=PATH`` (a JATS file; the tests run the script on two of them).

Labels, per candidate sentence (its abstract left out of the input), one of:
- ``overlap``: the mean of the shares of its words and of its word pairs that its abstract also has
  (rouge-score's tokens, Porter stems), standardised within the paper;
- ``role``: the same against the part of a structured abstract that its section's role matches
  (Background, Methods, Results, Conclusions), the whole abstract otherwise;
- ``oracle``: 1 for the sentences a greedy ROUGE-1+2 oracle takes (until the abstract's length), else 0.

Model: ridge regression on standardised features, each paper weighing the same, its weights mapped back
to the raw features (only their order within a paper matters: the extractor min-max normalises salience
per paragraph). Grid: label × ridge penalty × the salience's share of the relevance × features (all, or
those the weights of today had). Each configuration is scored on each source by the summaries of that
source's papers with weights fitted on the other sources; the one with the best mean over sources is
refitted on everything and written to ``tools/salience_fit.json`` (weights, provenance, the LOSO table);
``--ship`` also writes it to ``mmdocsum_desktop/summarize/salience_weights.json``, which the summary loads.

    nice -n 15 .venv/bin/python tools/fit_salience.py --work /tmp/salience [--elife-limit 80] [--ship]

Intermediate results (documents read, embeddings, prepared candidates) are cached under ``--work``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import pickle
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
# run as a script (tools/ is not a package): the repository root gives benchmarks._corpus, benchmarks/ the
# benchmark's own readers (the same documents and references as benchmarks/summary_salience.py)
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(1, str(REPO_ROOT / "benchmarks"))

from benchmarks._corpus import CORPUS  # noqa: E402
from mmdocsum_desktop.bench.metrics.pairs import abstract_by_role  # noqa: E402
from mmdocsum_desktop.bench.metrics.rouge import rouge, tokens  # noqa: E402
from mmdocsum_desktop.bench.pairs_split import pairs_in, split_of  # noqa: E402
from mmdocsum_desktop.summarize.extractive import (  # noqa: E402
    SALIENCE_FEATURES,
    SALIENCE_WEIGHTS_FILE,
    ExtractiveResult,
    Extractor,
    Prepared,
    SalienceWeights,
    load_salience_weights,
)

TOOLS = Path(__file__).resolve().parent
BASELINE_FILE = TOOLS / "salience_weights_before_45.json"  # the weights of today (the constants moved out)
FIT_FILE = TOOLS / "salience_fit.json"
LABELS = ("overlap", "role", "oracle")
ALPHAS = (0.001, 0.03)
SHARES = (0.6, 1.0)
# the features the weights before issue 45 had; "old" fits only these (the new ones are then 0)
OLD_FEATURES = tuple(SALIENCE_FEATURES[: SALIENCE_FEATURES.index("quality") + 1])
FEATURE_SETS = {"all": SALIENCE_FEATURES, "old": OLD_FEATURES}
MULTILINGUAL_SOURCES = ("scielo-pdf", "scielo-jats", "openedition")

# Publisher families of pmc/ journals (MANIFEST.tsv's journal): the units left out in turn.
_BMC = {"Trials", "Microbial Cell Factories", "Journal of Ethnobiology and Ethnomedicine", "Nanoscale Research Letters"}
_MDPI = {"Molecules", "Materials", "Metabolites", "Nanomaterials", "International Journal of Molecular Sciences",
         "Atoms", "Agronomy", "Molecules : A Journal of Synthetic Chemistry and Natural Product Chemistry"}
_HINDAWI = {"Gastroenterology Research and Practice", "Oxidative Medicine and Cellular Longevity",
            "Journal of Diabetes Research", "Stem Cells International", "The Scientific World Journal",
            "Journal of Ophthalmology", "International Journal of Endocrinology", "BioMed Research International",
            "Interdisciplinary Perspectives on Infectious Diseases", "Cardiology Research and Practice",
            "Evidence-based Complementary and Alternative Medicine : eCAM", "Biochemistry Research International"}


def publisher_family(journal: str) -> str:
    if journal.startswith("BMC") or journal in _BMC:
        return "pmc-bmc"
    if journal in _MDPI:
        return "pmc-mdpi"
    if journal.startswith("Case Reports in") or journal in _HINDAWI:
        return "pmc-hindawi"
    return "pmc-other"  # PLOS, Frontiers, Medicine, Veterinary World, … (too few of each to stand alone)


# ------------------------------------------------------------------------------------------ the items


def fitting_items(corpus: Path, elife_limit: int, extra: list[str]) -> list[dict]:
    """What the weights are fitted on: pmc dev PDFs, every k-th eLife dev article, the multilingual set,
    and ``extra`` items (``SOURCE=PATH``). A pmc or eLife item of the test half stops the run."""
    from bench_summary_rouge import _pmc_source

    items: list[dict] = []
    if (corpus / "pmc").is_dir():
        for p in pairs_in(corpus / "pmc", "dev"):
            items.append({"name": p.name, "path": p.pdf or p.xml, "xml": p.xml,
                          "source": "pmc", "family": publisher_family(_pmc_source(p.name))})
    if (corpus / "elife").is_dir() and elife_limit:
        dev = pairs_in(corpus / "elife", "dev")
        step = max(1, len(dev) // elife_limit)
        for p in dev[::step][:elife_limit]:
            items.append({"name": p.name, "path": p.xml, "xml": p.xml, "source": "elife", "family": "elife"})
    folder = corpus / "multilingual"
    if folder.is_dir():
        for pdf in sorted(folder.glob("*.pdf")):
            items.append({"name": pdf.stem, "path": pdf, "xml": pdf.with_suffix(".xml"), "source": "scielo-pdf",
                          "family": "multilingual"})
        for xml in sorted((folder / "jats").glob("*.xml")):
            source = "openedition" if xml.name.startswith("openedition") else "scielo-jats"
            items.append({"name": xml.stem, "path": xml, "xml": xml, "source": source, "family": "multilingual"})
    for spec in extra:
        family, _, path = spec.partition("=")
        path_ = Path(path)
        source = "scielo-jats" if family == "multilingual" else family
        items.append({"name": path_.stem, "path": path_, "xml": path_, "source": source, "family": family})
    for item in items:
        if item["family"] not in ("multilingual",) and split_of(item["name"]) != "dev":
            raise SystemExit(f"fit_salience: {item['name']} is in the test half; nothing is fitted on it")
    return items


@dataclass
class Paper:
    name: str
    family: str
    language: str | None
    reference: str
    prepared: Prepared
    labels: dict[str, np.ndarray]


# Raise when what Extractor.prepare computes changes (candidates, role scores, features): the prepared
# papers cached under --work are keyed by it, by the reader's and text code, and by the feature names.
PREPARE_VERSION = 1


def _code_fingerprint() -> str:
    """The code the prepared candidates were made with (the summary's choosing may change without a new
    preparation: Extractor.choose runs on every fit)."""
    import mmdocsum_desktop.document as reader_package
    import mmdocsum_desktop.text as text_package

    digest = hashlib.sha256(f"{PREPARE_VERSION} {' '.join(SALIENCE_FEATURES)}".encode())
    for package in (reader_package, text_package):
        for path in sorted(Path(package.__file__).parent.glob("*.py")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def load_papers(items: list[dict], work: Path, verbose: bool = True) -> tuple[list[Paper], list[dict]]:
    """Each item read (Session.read, cached), its abstract, its candidates prepared with the abstract left
    out (cached), and its labels. Items without an abstract of 30 words, or without body prose, are
    reported and left out."""
    from bench_summary_rouge import read_cached, reference_of

    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.embed import TextEmbedder

    prepared_dir = work / "prepared" / _code_fingerprint()
    prepared_dir.mkdir(parents=True, exist_ok=True)
    papers: list[Paper] = []
    skipped: list[dict] = []
    embedder: TextEmbedder | None = None
    with Session() as session:
        for item in items:
            started = time.perf_counter()
            try:
                document = read_cached(session, item, work)
            except Exception as error:  # noqa: BLE001 — a paper the reader refuses is reported, not fatal
                skipped.append({"paper": item["name"], "why": f"unreadable: {str(error)[:120]}"})
                continue
            reference, sections = reference_of(item, document)
            if not reference or len(reference.split()) < 30:
                skipped.append({"paper": item["name"], "why": "no abstract of 30 words"})
                continue
            language = document.language if item["source"] in MULTILINGUAL_SOURCES else None
            cached = prepared_dir / f"{item['family']}__{item['name']}.pkl"
            if cached.exists():
                prepared = pickle.loads(cached.read_bytes())
            else:
                if embedder is None:
                    embedder = TextEmbedder(cache=ContentCache(work / "embeddings.sqlite"))
                prepared = Extractor(embedder).prepare(document, include_abstract=False)
                cached.write_bytes(pickle.dumps(prepared))
            if isinstance(prepared, ExtractiveResult) or len(prepared.pool) < 8:
                skipped.append({"paper": item["name"], "why": "fewer than 8 candidate sentences"})
                continue
            labels = make_labels(prepared, reference, abstract_by_role(sections), language)
            papers.append(Paper(item["name"], item["family"], language, reference, prepared, labels))
            if verbose:
                print(f"  {item['family']:<14} {item['name']:<48} {len(prepared.pool):>4} candidates "
                      f"({time.perf_counter() - started:.1f} s)", flush=True)
    if embedder is not None:
        embedder.close()
    return papers, skipped


# ------------------------------------------------------------------------------------------ the labels


def _bigrams(words: list[str]) -> Counter:
    return Counter(zip(words, words[1:]))


def _overlap(words: list[str], reference: Counter, reference_pairs: Counter) -> float:
    if not words:
        return 0.0
    unigram = sum((Counter(words) & reference).values()) / len(words)
    pairs = _bigrams(words)
    bigram = sum((pairs & reference_pairs).values()) / max(sum(pairs.values()), 1)
    return 0.5 * (unigram + bigram)


def _standardise(values: np.ndarray) -> np.ndarray:
    return (values - values.mean()) / (float(values.std()) + 1e-6)


_SECTION_TO_PART = {"background": "background", "related": "background", "method": "method",
                    "results": "results", "conclusion": "conclusion"}


def make_labels(prepared: Prepared, reference: str, parts: dict[str, str], language: str | None) -> dict[str, np.ndarray]:
    words = [tokens(c.sentence.text, language) for c in prepared.pool]
    whole = tokens(reference, language)
    ref, ref_pairs = Counter(whole), _bigrams(whole)
    overlap = np.array([_overlap(w, ref, ref_pairs) for w in words], dtype=np.float64)
    role = overlap.copy()
    if parts:
        tokenised = {name: tokens(text, language) for name, text in parts.items()}
        for i, c in enumerate(prepared.pool):
            part = tokenised.get(_SECTION_TO_PART.get(c.section_role or "", ""))
            if part:
                role[i] = _overlap(words[i], Counter(part), _bigrams(part))
    return {"overlap": _standardise(overlap), "role": _standardise(role), "oracle": _oracle(words, whole)}


def _oracle(words: list[list[str]], reference: list[str]) -> np.ndarray:
    """1 for each sentence a greedy oracle takes: the one that raises ROUGE-1 + ROUGE-2 F of the chosen
    set most, until none does or the set reaches the abstract's length."""
    ref, ref_pairs = Counter(reference), _bigrams(reference)
    chosen: list[int] = []
    counts, pairs = Counter(), Counter()
    best_score, length = 0.0, 0

    def score(c: Counter, p: Counter) -> float:
        total = 0.0
        for have, want in ((c, ref), (p, ref_pairs)):
            hits = sum((have & want).values())
            n_have, n_want = sum(have.values()), sum(want.values())
            if hits and n_have and n_want:
                precision, recall = hits / n_have, hits / n_want
                total += 2 * precision * recall / (precision + recall)
        return total

    while length < len(reference):
        step = None
        for i, w in enumerate(words):
            if i in chosen or not w:
                continue
            value = score(counts + Counter(w), pairs + _bigrams(w))
            if value > best_score + 1e-9 and (step is None or value > step[1]):
                step = (i, value)
        if step is None:
            break
        chosen.append(step[0])
        counts += Counter(words[step[0]])
        pairs += _bigrams(words[step[0]])
        best_score = step[1]
        length += len(words[step[0]])
    labels = np.zeros(len(words))
    labels[chosen] = 1.0
    return labels


# ------------------------------------------------------------------------------------------ the model


@dataclass(frozen=True)
class Config:
    label: str
    alpha: float
    share: float
    features: str

    @property
    def name(self) -> str:
        return f"{self.label}/a{self.alpha:g}/s{self.share:g}/{self.features}"


def fit(papers: list[Paper], config: Config) -> SalienceWeights:
    """Ridge regression of the label on the standardised features, each paper weighing the same."""
    names = FEATURE_SETS[config.features]
    columns = [SALIENCE_FEATURES.index(n) for n in names]
    x = np.concatenate([p.prepared.features[:, columns].astype(np.float64) for p in papers])
    y = np.concatenate([p.labels[config.label] for p in papers])
    r = np.concatenate([np.full(len(p.prepared.pool), 1.0 / len(p.prepared.pool)) for p in papers])
    r = r / r.sum()
    mu = r @ x
    sd = np.sqrt(r @ (x - mu) ** 2)
    live = sd > 1e-6
    xs = np.zeros_like(x)
    xs[:, live] = (x[:, live] - mu[live]) / sd[live]
    yc = y - r @ y
    gram = xs.T @ (xs * r[:, None]) + config.alpha * np.eye(len(columns))
    w = np.linalg.solve(gram, xs.T @ (r * yc))
    raw = np.where(live, w / np.where(live, sd, 1.0), 0.0)
    # one scale for every fit (the extractor normalises per paragraph, so only the direction matters)
    raw = raw / max(float(np.abs(raw).sum()), 1e-12)
    return SalienceWeights({n: round(float(v), 5) for n, v in zip(names, raw)}, {}, config.share)


def summary_rouge1(extractor: Extractor, paper: Paper, weights: SalienceWeights) -> float:
    drafted = extractor.choose(paper.prepared, salience=weights)
    text = "\n".join(p.text for p in drafted.paragraphs if p.sentences)
    return float(rouge(text, paper.reference, paper.language)["rouge1"])


def loso(papers: list[Paper], configs: list[Config], baseline: SalienceWeights, verbose: bool = True) -> dict:
    """Per configuration and source: mean ROUGE-1 of that source's summaries with weights fitted on the
    other sources; the baseline's on the same papers; the mean over sources."""
    extractor = Extractor(_NoEmbedder(), salience=baseline)
    families = sorted({p.family for p in papers})
    table: dict[str, dict] = {}
    base = {f: mean(summary_rouge1(extractor, p, baseline) for p in papers if p.family == f) for f in families}
    table["today"] = {"per_source": {f: round(v, 4) for f, v in base.items()}, "mean": round(mean(base.values()), 4)}
    if verbose:
        print(f"{'today':<28} mean {table['today']['mean']:.4f}  " + "  ".join(f"{f} {v:.3f}" for f, v in base.items()), flush=True)
    # today's weights with each other share of the relevance: what a new share alone would give
    for share in sorted({c.share for c in configs} - {baseline.share}):
        shared = SalienceWeights(baseline.weights, {}, share)
        per = {f: mean(summary_rouge1(extractor, p, shared) for p in papers if p.family == f) for f in families}
        name = f"today/s{share:g}"
        table[name] = {"per_source": {f: round(v, 4) for f, v in per.items()}, "mean": round(mean(per.values()), 4),
                       "sources_above_today": sum(per[f] > base[f] for f in families)}
        if verbose:
            print(f"{name:<28} mean {table[name]['mean']:.4f}  " + "  ".join(f"{f} {v:.3f}" for f, v in per.items()), flush=True)
    for config in configs:
        per: dict[str, float] = {}
        for f in families:
            train = [p for p in papers if p.family != f]
            held = [p for p in papers if p.family == f]
            weights = fit(train, config) if train else baseline
            per[f] = mean(summary_rouge1(extractor, p, weights) for p in held)
        table[config.name] = {"per_source": {f: round(v, 4) for f, v in per.items()}, "mean": round(mean(per.values()), 4),
                              "sources_above_today": sum(per[f] > base[f] for f in families)}
        if verbose:
            print(f"{config.name:<28} mean {table[config.name]['mean']:.4f}  "
                  + "  ".join(f"{f} {v:.3f}" for f, v in per.items()), flush=True)
    return table


class _NoEmbedder:
    """choose() on prepared papers embeds nothing; an extractor still wants an embedder."""

    def embed(self, texts, batch_size: int = 32, control=None):  # noqa: ANN001 — the Embedder protocol
        raise RuntimeError("fit_salience: prepared papers need no embedding")


# ------------------------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder with pmc/, elife/, multilingual/")
    parser.add_argument("--work", type=Path, default=Path("/tmp/salience"), help="cache of readings and candidates")
    parser.add_argument("--elife-limit", type=int, default=80, help="eLife dev articles (every k-th by name)")
    parser.add_argument("--item", action="append", default=[], help="SOURCE=PATH: one more fitting item (JATS)")
    parser.add_argument("--no-corpus", action="store_true", help="only the --item files")
    parser.add_argument("--labels", nargs="+", default=list(LABELS), choices=LABELS)
    parser.add_argument("--alphas", nargs="+", type=float, default=list(ALPHAS))
    parser.add_argument("--shares", nargs="+", type=float, default=list(SHARES))
    parser.add_argument("--feature-sets", nargs="+", default=list(FEATURE_SETS), choices=list(FEATURE_SETS))
    parser.add_argument("--out", type=Path, default=FIT_FILE, help="the fit's report and weights (JSON)")
    parser.add_argument("--ship", action="store_true", help=f"also write the weights to {SALIENCE_WEIGHTS_FILE.name}")
    args = parser.parse_args(argv)

    started, cpu = time.perf_counter(), time.process_time()
    items = fitting_items(args.corpus if not args.no_corpus else Path("/nonexistent"), args.elife_limit, args.item)
    print(f"{len(items)} fitting items", flush=True)
    papers, skipped = load_papers(items, args.work)
    families = Counter(p.family for p in papers)
    print(f"{len(papers)} papers with candidates and an abstract: {dict(families)}; {len(skipped)} left out", flush=True)
    if not papers:
        raise SystemExit("fit_salience: no paper to fit on")
    baseline = load_salience_weights(BASELINE_FILE)
    configs = [Config(label, alpha, share, features) for label in args.labels for alpha in args.alphas
               for share in args.shares for features in args.feature_sets]
    table = loso(papers, configs, baseline)
    best = max(configs, key=lambda c: (table[c.name]["mean"], table[c.name]["sources_above_today"]))
    final = fit(papers, best)
    row = table[best.name]
    report = {
        "provenance": {
            "fitted_by": "tools/fit_salience.py",
            "date": dt.date.today().isoformat(),
            "command": "python tools/fit_salience.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "data": {"papers": dict(families), "pmc": "dev half (bench/pairs_split.py), PDFs as Session.read reads them",
                     "elife": f"dev half, every k-th article by name, at most {args.elife_limit}",
                     "multilingual": "multilingual/ PDFs and JATS/TEI, abstract in the document's language",
                     "left_out": skipped},
            "selection": "leave one source out: each source's summaries (abstract left out) scored by ROUGE-1 "
                         "against its abstract with weights fitted on the other sources; best mean over sources",
            "chosen": best.name,
            "loso_rouge1": row,
            "loso_rouge1_today": table["today"],
            "model": f"ridge (penalty {best.alpha:g}) on standardised features, label {best.label!r}, papers "
                     "weighing the same; weights scaled to sum |w| = 1",
            "seconds": {"wall": round(time.perf_counter() - started, 1), "cpu": round(time.process_time() - cpu, 1)},
        },
        "share": best.share,
        "weights": final.weights,
        "loso": table,
    }
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"chosen {best.name}: LOSO mean ROUGE-1 {row['mean']} (today {table['today']['mean']}); written {args.out}")
    if args.ship:
        shipped = {"provenance": report["provenance"], "share": best.share, "weights": final.weights}
        SALIENCE_WEIGHTS_FILE.write_text(json.dumps(shipped, indent=1) + "\n", encoding="utf-8")
        print(f"shipped to {SALIENCE_WEIGHTS_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
