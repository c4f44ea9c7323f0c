"""ROUGE-1/2/L of summaries written without the abstract, against the paper's own abstract.

For every paper of ``../shared/corpus/papers`` whose abstract the reader finds, the summary is written
with ``include_abstract=False`` (the abstract's blocks never reach the engine) and scored with
rouge-score (Porter stemming, one sentence per line; ROUGE-L is the summary-level LCS, rougeLsum) by
``mmdocsum_desktop.bench.metrics.rouge``. Engines: ``extractive`` always; ``llama`` with each ``--model``.
The bar named in the issue: LoRaLay's fine-tuned BigBird-Pegasus+Layout, ROUGE-L 41.15 on arXiv-Lay.

    python benchmarks/bench_summary_rouge.py [--model PATH_OR_NAME ...] [--threads N] [--n-ctx N]

With ``--pairs`` it scores the extractive engine on one half of the fixed dev/test split of pair folders
instead (``../shared/corpus/pmc`` against each JATS abstract; ``../shared/corpus/elife`` against the
abstract and the eLife digest), through the pairs suite's summary stage (``bench pairs``: resumable, in
``--work``), and writes the headline numbers of each folder to ``results/NAME.json``:

    python benchmarks/bench_summary_rouge.py --pairs ../shared/corpus/pmc --pairs ../shared/corpus/elife \
        --split test --work /tmp/rouge_pairs --name summary_extractive_h14

With ``--sets`` it measures what the user gets from ``mmdocsum summarize --engine extractive --no-abstract``
(the same use case, ``app.summary.summarize`` after ``Session.read``, with the same request) on named
sets: ``pmc-test``/``pmc-dev`` (the PDFs of ``pmc/``, reference: the JATS abstract), ``elife-test``/
``elife-dev`` (the JATS files, the first ``--elife-limit`` of the half), ``multilingual`` (the SciELO PDFs
and JATS and the OpenEdition TEI of ``multilingual/``, reference: the abstract in the document's
language). Beside each summary, in the same run, a lead-k baseline: the first body sentences (abstract
left out, cleaned like the summary's), as many as reach the summary's length in words. Reported per set:
ROUGE-1/2/Lsum of both, ROUGE per role against structured abstracts, placeholder paragraphs per 40
papers, and the share of Results/Conclusion sentences that report other work, quote an interview, ask a
question or come from the introduction (``text.attribution``, on the sentence as the document has
it):

    python benchmarks/bench_summary_rouge.py --sets pmc-test elife-test multilingual --name summary_rouge_35
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _corpus import CORPUS, PAPERS, RESULTS, write_result

from mmdocsum_desktop.bench.metrics.rouge import mean_rouge, rouge
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.models.embed import TextEmbedder
from mmdocsum_desktop.summarize.pipeline import SummaryOptions, summarize_document


def papers_with_abstract() -> list[tuple[Path, object]]:
    found = []
    for pdf in sorted(PAPERS.glob("*.pdf")):
        document = read_document(pdf)
        if document.abstract and len(document.abstract.split()) >= 40:
            found.append((pdf, document))
    return found


def run_engine(label: str, engine, papers, embedder, workdir: Path, max_tokens: int) -> dict:
    rows = []
    for pdf, document in papers:
        folder = workdir / pdf.stem
        if not (folder / "document.json").exists():
            export_document(document, folder, dpi=72)
        started = time.perf_counter()
        summary = summarize_document(document, folder, engine=engine, embedder=embedder,
                                     options=SummaryOptions(include_abstract=False, max_tokens=max_tokens))
        text = "\n".join(p.text for p in summary.paragraphs)
        scores = rouge(text, document.abstract)
        rows.append({
            "paper": pdf.name,
            "seconds": round(time.perf_counter() - started, 2),
            "summary_words": len(text.split()),
            "abstract_words": len(document.abstract.split()),
            "instruction_following": summary.instruction_following,
            "long_document": summary.long_document,
            **{k: round(v, 4) for k, v in scores.items()},
        })
        print(f"{label:>28}  {pdf.name:<34} R1 {scores['rouge1']:.3f}  R2 {scores['rouge2']:.3f}  RL {scores['rougeL']:.3f}"
              f"  ({rows[-1]['seconds']} s)", flush=True)
    mean = mean_rouge(rows)
    print(f"{label:>28}  {'mean':<34} R1 {mean['rouge1']:.3f}  R2 {mean['rouge2']:.3f}  RL {mean['rougeL']:.3f}")
    return {"engine": label, "papers": rows, "mean": {k: (round(v, 4) if v is not None else None) for k, v in mean.items()}}


def run_pairs_halves(folders: list[Path], split: str, work: Path) -> list[dict]:
    """The pairs suite's summary stage on ``split`` of each folder; its headline numbers per folder."""
    from statistics import median

    from mmdocsum_desktop.bench.suites.pairs import run_pairs

    rows = []
    for folder in folders:
        metrics = run_pairs(folder, work / f"{folder.name}_{split}", split=split, stages=["summary"])
        pooled = metrics["by_split"].get(split, {})
        seconds = [p["summary"]["seconds"] for p in metrics["papers"] if "summary" in p]
        sources = pooled.get("sentence_sources") or {}
        row = {
            "folder": folder.name,
            "split": split,
            "papers": len(seconds),
            "rouge_abstract": {k: _round(pooled.get(k)) for k in ("rouge1", "rouge2", "rougeL")},
            "rouge_digest": {k: _round(pooled.get(f"digest_{k}")) for k in ("rouge1", "rouge2", "rougeL")},
            "sentence_sources": {k: round(v, 4) for k, v in sources.items()},
            "not_body_share": round(1 - sources.get("body", 1.0), 4) if sources else None,
            "figure_grounding": _round(pooled.get("figure_grounding")),
            "broken_characters": pooled.get("summary_broken_chars"),
            "median_seconds_per_summary_wall": round(median(seconds), 3) if seconds else None,
        }
        print(f"{folder.name} {split}: R1 {row['rouge_abstract']['rouge1']}  R2 {row['rouge_abstract']['rouge2']}  "
              f"RLsum {row['rouge_abstract']['rougeL']}  digest R1 {row['rouge_digest']['rouge1']}  "
              f"not body {row['not_body_share']}  grounding {row['figure_grounding']}", flush=True)
        rows.append(row)
    return rows


def _round(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None


# ------------------------------------------------------------------------ --sets: the user's path


ROLE_NAMES = ("background", "method", "results", "conclusion")


def set_items(name: str, elife_limit: int) -> list[dict]:
    """The papers of one named set: what to read (the file a user would give), the reference abstract's
    source and the source (journal family) a paper comes from, for leave-one-source-out choices."""
    from mmdocsum_desktop.bench.pairs_split import pairs_in

    if name in ("pmc-test", "pmc-dev"):
        return [{"name": p.name, "path": p.pdf, "xml": p.xml, "source": _pmc_source(p.name)}
                for p in pairs_in(CORPUS / "pmc", name.split("-")[1]) if p.pdf is not None]
    if name in ("elife-test", "elife-dev"):
        found = pairs_in(CORPUS / "elife", name.split("-")[1])[:elife_limit]
        return [{"name": p.name, "path": p.xml, "xml": p.xml, "source": "elife"} for p in found]
    if name == "multilingual":
        folder = CORPUS / "multilingual"
        items = [{"name": pdf.stem, "path": pdf, "xml": pdf.with_suffix(".xml"), "source": "scielo-pdf"}
                 for pdf in sorted(folder.glob("*.pdf"))]
        items += [{"name": xml.stem, "path": xml, "xml": xml,
                   "source": "openedition" if xml.name.startswith("openedition") else "scielo-jats"}
                  for xml in sorted((folder / "jats").glob("*.xml"))]
        return items
    raise SystemExit(f"bench_summary_rouge: unknown set {name!r} (pmc-test, pmc-dev, elife-test, elife-dev, multilingual)")


def _pmc_source(name: str) -> str:
    """The journal of a pmc/ pair (MANIFEST.tsv), the unit left out when a choice is checked."""
    manifest = CORPUS / "pmc" / "MANIFEST.tsv"
    if not hasattr(_pmc_source, "journals"):
        rows = [line.split("\t") for line in manifest.read_text(encoding="utf-8").splitlines()[1:]] if manifest.exists() else []
        _pmc_source.journals = {row[0]: row[1] for row in rows if len(row) > 1}  # type: ignore[attr-defined]
    return _pmc_source.journals.get(name, "unknown")  # type: ignore[attr-defined]


def reference_of(item: dict, document) -> tuple[str | None, list[tuple[str, str]]]:
    """The abstract the summary is compared with (the JATS abstract; for a multilingual paper the one in
    the document's language), and a structured abstract's sections."""
    from mmdocsum_desktop.bench.pairs_gold import GoldError, read_gold

    if item["source"] in ("scielo-pdf", "scielo-jats", "openedition"):
        import multilingual

        gold = multilingual.jats_gold(item["xml"], language=document.language) if item["source"] != "openedition" else {}
        abstract = gold.get("abstract") or document.abstract
        return abstract, []
    try:
        gold = read_gold(item["xml"])
    except GoldError:
        return None, []
    return gold.abstract or None, list(gold.abstract_sections)


def _package_fingerprint() -> str:
    """The reader's code the cached documents were read with (the package imported, before or after)."""
    import hashlib

    import mmdocsum_desktop.document as reader_package

    digest = hashlib.sha256()
    for path in sorted(Path(reader_package.__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def read_cached(session, item: dict, work: Path):
    """``Session.read`` of the file the user gives (cached per reader version: rereading 40 PDFs on every
    tuning run would take most of the run)."""
    from mmdocsum_desktop.schemas.document import Document

    cache = work / "documents" / _package_fingerprint() / f"{item['name']}.json"
    if cache.exists():
        return Document.model_validate_json(cache.read_text(encoding="utf-8"))
    document = session.read(item["path"])
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(document.model_dump_json(), encoding="utf-8")
    return document


def lead_text(document, words: int) -> str:
    """Lead-k: the first clean body sentences (abstract left out), k the fewest that reach ``words``."""
    from mmdocsum_desktop.summarize.extractive import candidates

    chosen: list[str] = []
    total = 0
    for candidate in candidates(document, include_abstract=False):
        if total >= words:
            break
        chosen.append(candidate.sentence.text)
        total += candidate.sentence.words
    return "\n".join(chosen)


def flagged_sentences(summary, document) -> list[dict]:
    """Each Results/Conclusion sentence of ``summary`` with what ``attribution.attribute`` says of the
    sentence the document has (its raw text, reference markers included, found in the block the summary
    cites as its extracted source), and of its section's role."""
    from mmdocsum_desktop.document.sections import is_abstract_heading
    from mmdocsum_desktop.summarize.extractive import clean_sentence
    from mmdocsum_desktop.summarize.roles import section_role
    from mmdocsum_desktop.text.attribution import attribute
    from mmdocsum_desktop.text.sentences import split_sentences

    blocks = {b.id: b for b in document.blocks}
    rows = []
    for paragraph in summary.paragraphs:
        if paragraph.role not in ("results", "conclusion") or paragraph.source == "absent":
            continue
        for sentence in paragraph.sentences:
            extracted = [e.block for e in sentence.evidence if e.how == "extracted"] or sentence.blocks[:1]
            raw_parts = []
            role = None
            for block_id in extracted:
                block = blocks.get(block_id)
                if block is None:
                    continue
                # the role its own heading names (a review's "Treatment" inherits the introduction's role
                # in block_roles, but is not the introduction); "Abstract" over body text names none
                own = None if is_abstract_heading(block.section) else section_role(block.section)
                role = role or own
                parts = split_sentences(block.text)
                words = set(_words(sentence.text))
                # the block's sentences whose cleaned words the summary sentence holds (one, or two joined)
                raw_parts += [p for p in parts if _words(clean_sentence(p)) and
                              len(set(_words(clean_sentence(p))) & words) >= 0.8 * len(set(_words(clean_sentence(p))))]
            raw = " ".join(raw_parts) or sentence.text
            found = attribute(raw, section_role=role)
            rows.append({"role": paragraph.role, "text": sentence.text, "kind": found.kind if found else None,
                         "evidence": found.evidence if found else None})
    return rows


def _words(text: str) -> list[str]:
    import re as _re

    return _re.findall(r"[^\W_]+", text.lower())


def run_sets(names: list[str], work: Path, elife_limit: int, limit: int | None) -> dict:
    from statistics import mean

    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.app.summary import summarize as app_summarize
    from mmdocsum_desktop.bench.metrics.pairs import abstract_by_role
    from mmdocsum_desktop.schemas.settings import EngineChoice
    from mmdocsum_desktop.schemas.summary import SummaryRequest

    choice = EngineChoice(engine="extractive")
    request = SummaryRequest(include_abstract=False)  # what --no-abstract asks for
    out: dict = {}
    with Session() as session:
        for name in names:
            items = set_items(name, elife_limit)[:limit]
            rows = []
            for item in items:
                try:
                    document = read_cached(session, item, work)
                except Exception as error:  # noqa: BLE001 — a paper the reader refuses is reported, not fatal
                    rows.append({"paper": item["name"], "source": item["source"], "error": str(error)[:200]})
                    continue
                if not any(b.is_body for b in document.blocks if b.type in ("paragraph", "list")):
                    rows.append({"paper": item["name"], "source": item["source"], "error": "no body prose"})
                    continue
                assets = work / "assets" / name / item["name"]
                started = time.perf_counter()
                summary = app_summarize(session, document, assets, choice=choice, options=request)
                seconds = time.perf_counter() - started
                texts = [p.text if p.source != "absent" else "" for p in summary.paragraphs]
                text = "\n".join(t for t in texts if t.strip())
                row = {"paper": item["name"], "source": item["source"], "language": document.language,
                       "seconds": round(seconds, 2), "words": len(text.split()),
                       "placeholders": [p.role for p in summary.paragraphs if p.source == "absent"],
                       "placeholder_text": [p.text for p in summary.paragraphs if p.source == "absent"][:1],
                       "flagged": [f for f in flagged_sentences(summary, document)]}
                reference, sections = reference_of(item, document)
                language = document.language if item["source"] in ("scielo-pdf", "scielo-jats", "openedition") else None
                if reference and len(reference.split()) >= 30:
                    scores = rouge(text, reference, language)
                    lead = rouge(lead_text(document, row["words"]), reference, language)
                    row["rouge"] = {k: round(scores[k], 4) for k in ("rouge1", "rouge2", "rougeL")}
                    row["lead"] = {k: round(lead[k], 4) for k in ("rouge1", "rouge2", "rougeL")}
                    by_role = abstract_by_role(sections)
                    if by_role:
                        row["rouge_roles"] = {
                            role: {k: round(v, 4) for k, v in rouge(texts[k_], by_role[role], language).items()
                                   if k in ("rouge1", "rouge2", "rougeL")}
                            for k_, role in enumerate(ROLE_NAMES) if role in by_role and texts[k_].strip()}
                rows.append(row)
                print(f"{name:>12} {item['name']:<44} R1 {row.get('rouge', {}).get('rouge1', '-')!s:<7} "
                      f"lead {row.get('lead', {}).get('rouge1', '-')!s:<7} absent {','.join(row['placeholders']) or '-':<22} "
                      f"flagged {sum(1 for f in row['flagged'] if f['kind'])}/{len(row['flagged'])}", flush=True)
            done = [r for r in rows if "error" not in r]
            scored = [r for r in done if "rouge" in r]
            flagged = [f for r in done for f in r["flagged"]]
            kinds: dict[str, int] = {}
            for f in flagged:
                if f["kind"]:
                    kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
            roles_mean = {}
            for role in ROLE_NAMES:
                values = [r["rouge_roles"][role] for r in scored if role in r.get("rouge_roles", {})]
                if values:
                    roles_mean[role] = {k: round(mean(v[k] for v in values), 4) for k in ("rouge1", "rouge2", "rougeL")}
                    roles_mean[role]["papers"] = len(values)
            summary_row = {
                "papers": len(items), "summarised": len(done), "scored": len(scored),
                "rouge": {k: round(mean(r["rouge"][k] for r in scored), 4) for k in ("rouge1", "rouge2", "rougeL")} if scored else None,
                "lead": {k: round(mean(r["lead"][k] for r in scored), 4) for k in ("rouge1", "rouge2", "rougeL")} if scored else None,
                "rouge_roles": roles_mean,
                "placeholders": sum(len(r["placeholders"]) for r in done),
                "placeholders_per_40": round(40 * sum(len(r["placeholders"]) for r in done) / max(len(done), 1), 2),
                "results_conclusion_sentences": len(flagged),
                "flagged_share": round(sum(1 for f in flagged if f["kind"]) / max(len(flagged), 1), 4),
                "flagged_by_kind": kinds,
                "other_work_share": round(sum(1 for f in flagged if f["kind"] in ("citation", "other study"))
                                          / max(len(flagged), 1), 4),
                "median_seconds": round(sorted(r["seconds"] for r in done)[len(done) // 2], 2) if done else None,
            }
            print(f"{name}: {json.dumps(summary_row)}", flush=True)
            out[name] = {"summary": summary_row, "papers": rows}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", action="append", default=[], type=Path,
                        help="a folder of PDF + JATS pairs or of JATS files: score the extractive engine on --split")
    parser.add_argument("--split", choices=("dev", "test"), default="test")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "mmdocsum_rouge_pairs",
                        help="where the pairs runs keep their documents and per-paper results (resumable)")
    parser.add_argument("--name", default="summary_extractive_pairs", help="results/NAME.json")
    parser.add_argument("--model", action="append", default=[], help="GGUF path or registered model name")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument("--sets", nargs="+", default=[], help="pmc-test pmc-dev elife-test elife-dev multilingual")
    parser.add_argument("--elife-limit", type=int, default=40, help="eLife papers per half (the first by name)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many papers per set")
    args = parser.parse_args()

    if args.sets:
        results = run_sets(args.sets, args.work, args.elife_limit, args.limit)
        target = write_result(args.name, {
            "path": "Session.read -> app.summary.summarize(EngineChoice(engine='extractive'), "
                    "SummaryRequest(include_abstract=False)): mmdocsum summarize --engine extractive --no-abstract",
            "metric": "rouge-score F1, Porter stemmer (English; other languages: text.tokens.rouge_tokens), one "
                      "sentence per line; rougeL = rougeLsum; means over papers with an abstract of >= 30 words",
            "lead": "the first clean body sentences, abstract left out, as many words as the summary",
            "flagged": "text.attribution.attribute on each Results/Conclusion sentence as the document has it",
            "sets": {k: v for k, v in results.items()},
        })
        print(f"written {target}")
        return

    if args.pairs:
        rows = run_pairs_halves(args.pairs, args.split, args.work)
        previous = RESULTS / f"{args.name}.json"
        kept = []
        if previous.exists():  # the other half, or another folder, measured by an earlier run
            done = {(r["folder"], r["split"]) for r in rows}
            kept = [r for r in json.loads(previous.read_text()).get("runs", []) if (r["folder"], r["split"]) not in done]
        target = write_result(args.name, {
            "engine": "extractive (MiniLM), abstract left out",
            "metric": "rouge-score F1, Porter stemmer, one sentence per line; rougeL = rougeLsum; means over papers",
            "split": "fixed hash of the file name (mmdocsum_desktop/bench/pairs_split.py); tuned on dev only",
            "runs": kept + rows,
        })
        print(f"written {target}")
        return

    papers = papers_with_abstract()
    print(f"{len(papers)} papers with an abstract: {', '.join(p.name for p, _ in papers)}")
    embedder = TextEmbedder()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # no text engine: the extractive summary
        results.append(run_engine("extractive", None, papers, embedder, work, args.max_tokens))
        for model in args.model:
            from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine, resolve_model_path

            engine = LlamaEngine(LlamaConfig(model=resolve_model_path(model), n_ctx=args.n_ctx, n_threads=args.threads))
            try:
                results.append(run_engine(f"llama:{engine.model_name}", engine, papers, embedder, work, args.max_tokens))
            finally:
                engine.close()
    previous = RESULTS / "summary_rouge.json"
    if previous.exists():  # keep engines measured by an earlier run (a slow model is run once)
        done = {r["engine"] for r in results}
        kept = [r for r in json.loads(previous.read_text()).get("engines", []) if r["engine"] not in done]
        results = kept + results
    target = write_result("summary_rouge", {
        "metric": "rouge-score F1, Porter stemmer, one sentence per line; rougeL = rougeLsum",
        "reference": "the paper's own abstract; summaries written with include_abstract=False",
        "bar": {"system": "LoRaLay BigBird-Pegasus+Layout (fine-tuned) on arXiv-Lay", "rougeL": 41.15},
        "papers": [p.name for p, _ in papers],
        "engines": results,
    })
    print(f"written {target}")


if __name__ == "__main__":
    main()
