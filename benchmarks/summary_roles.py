"""Roles that hold and lengths per role (issue 45 points 2-4): lead-k, the summary as it was (the shipped
salience weights with the extractor of ``--current-rev``), the roles that hold at today's lengths, and the
roles with the lengths ``tools/fit_role_lengths.py`` chose on the dev halves, on the same documents in the
same run, with the abstract left out (``--no-abstract``) and used as the reference.

Sets: ``pmc-test`` (the PDFs of the pmc/ test half, read as ``mmdocsum summarize`` reads them) and
``elife-test`` (the first ``--elife-limit`` JATS of eLife's test half), as ``summary_salience.py`` reads
them; nothing here was fitted on either. "current" is ``summarize/extractive.py`` of the git revision
``--current-rev`` (the code before this round), loaded beside today's module, so both run in one process.

Besides ROUGE, per summary: the Conclusion's first sentence and whether it reports what was done
(``extractive.reports_what_was_done``, the method-sentence rule), the Results sentences that report no
finding (``extractive.reports_a_finding``), and placeholders (a paragraph no sentence of the paper could
fill). ``--app`` also writes each summary the way the user gets it (``app.summary.summarize``,
``SummaryRequest(include_abstract=False)``) and counts the same there.

    nice -n 15 .venv/bin/python benchmarks/summary_roles.py --work /tmp/r45w --app --name summary_roles_45
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import types
from pathlib import Path
from statistics import mean, median

from _corpus import write_result
from bench_summary_rouge import lead_text, read_cached, reference_of, set_items

from mmdocsum_desktop.bench.metrics.rouge import rouge
from mmdocsum_desktop.summarize import extractive
from mmdocsum_desktop.summarize.extractive import (
    ROLE_LENGTHS_FILE,
    ExtractiveResult,
    Extractor,
    reports_a_finding,
    reports_what_was_done,
)

REPO = Path(__file__).resolve().parents[1]
KEYS = ("rouge1", "rouge2", "rougeL")
BEFORE_45_TARGETS = {"background": 60, "method": 50, "results": 70, "conclusion": 55}


def current_module(rev: str) -> types.ModuleType:
    """``summarize/extractive.py`` as of ``rev``, imported under another name beside today's."""
    source = subprocess.run(["git", "show", f"{rev}:mmdocsum_desktop/summarize/extractive.py"], cwd=REPO,
                            check=True, capture_output=True, text=True).stdout
    name = "mmdocsum_desktop.summarize._extractive_current"
    module = types.ModuleType(name)
    module.__file__ = extractive.__file__  # the same data files beside it (salience_weights.json)
    sys.modules[name] = module
    exec(compile(source, f"{rev}:extractive.py", "exec"), module.__dict__)  # noqa: S102 — the repository's own code
    return module


def _scores(text: str, reference: str) -> dict[str, float]:
    found = rouge(text, reference, None)
    return {k: round(found[k], 4) for k in KEYS}


def _checks(paragraphs: list[tuple[str, str, list[str]]]) -> dict:
    """(role, source, sentences) per paragraph → the Conclusion's opener, whether it is a method step,
    Results sentences without a finding, placeholders."""
    by_role = {role: (source, sentences) for role, source, sentences in paragraphs}
    source, sentences = by_role.get("conclusion", ("absent", []))
    opener = sentences[0] if sentences and source != "absent" else None
    results_source, results = by_role.get("results", ("absent", []))
    return {"conclusion_opener": opener,
            "conclusion_opens_with_method": bool(opener and reports_what_was_done(opener)),
            "results_sentences": len(results) if results_source != "absent" else 0,
            "results_without_finding": sum(not reports_a_finding(s) for s in results) if results_source != "absent" else 0,
            "placeholders": sum(src == "absent" for _r, src, _s in paragraphs)}


def _drafted(result: ExtractiveResult) -> list[tuple[str, str, list[str]]]:
    return [(p.role, "extractive" if p.sentences else "absent", [s.text for s in p.sentences]) for p in result.paragraphs]


def run(sets: list[str], work: Path, elife_limit: int, limit: int | None, rev: str, app: bool) -> dict:
    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.app.summary import summarize as app_summarize
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.schemas.settings import EngineChoice
    from mmdocsum_desktop.schemas.summary import SummaryRequest
    from mmdocsum_desktop.text.sentences import split_sentences

    old = current_module(rev)
    embedder = TextEmbedder(cache=ContentCache(work / "embeddings.sqlite"))
    current = old.Extractor(embedder, role_targets=BEFORE_45_TARGETS)
    now = Extractor(embedder)
    fitted = dict(now.role_targets)
    labels = ["lead", "current", "roles", "new"] + (["app"] if app else [])
    out: dict = {"role_targets": {"current": BEFORE_45_TARGETS, "roles": BEFORE_45_TARGETS, "new": fitted}}
    with Session() as session:
        for name in sets:
            rows = []
            for item in set_items(name, elife_limit)[:limit]:
                try:
                    document = read_cached(session, item, work)
                except Exception as error:  # noqa: BLE001 — a paper the reader refuses is reported, not fatal
                    rows.append({"paper": item["name"], "error": str(error)[:200]})
                    continue
                reference, _ = reference_of(item, document)
                if not reference or len(reference.split()) < 30:
                    rows.append({"paper": item["name"], "error": "no abstract of 30 words"})
                    continue
                row: dict = {"paper": item["name"]}
                drafts: dict[str, list[tuple[str, str, list[str]]]] = {}
                before = current.prepare(document, include_abstract=False)
                prepared = now.prepare(document, include_abstract=False)
                if isinstance(prepared, ExtractiveResult) or isinstance(before, old.ExtractiveResult):
                    rows.append({**row, "error": "no body prose"})
                    continue
                drafts["current"] = _drafted(current.choose(before))
                now.role_targets = dict(BEFORE_45_TARGETS)
                drafts["roles"] = _drafted(now.choose(prepared))
                now.role_targets = dict(fitted)
                drafts["new"] = _drafted(now.choose(prepared))
                if app:
                    summary = app_summarize(session, document, work / "assets" / name / item["name"],
                                            choice=EngineChoice(engine="extractive"),
                                            options=SummaryRequest(include_abstract=False))
                    drafts["app"] = [(p.role, p.source, [] if p.source == "absent" else split_sentences(p.text))
                                     for p in summary.paragraphs]
                texts = {label: "\n".join(s for _r, src, ss in d if src != "absent" for s in ss)
                         for label, d in drafts.items()}
                texts["lead"] = lead_text(document, len(texts["current"].split()))
                for label in labels:
                    row[label] = _scores(texts[label], reference)
                    row[f"{label}_words"] = len(texts[label].split())
                    if label != "lead":
                        row[f"{label}_checks"] = _checks(drafts[label])
                rows.append(row)
                print(f"{name:>10} {item['name']:<34} " + "  ".join(f"{k} {row[k]['rouge1']:.3f}" for k in labels), flush=True)
            scored = [r for r in rows if "error" not in r]
            summary_row: dict = {"papers": len(rows), "scored": len(scored)}
            if scored:
                for label in labels:
                    summary_row[label] = {"mean": {k: round(mean(r[label][k] for r in scored), 4) for k in KEYS},
                                          "median": {k: round(median(r[label][k] for r in scored), 4) for k in KEYS},
                                          "words_median": median(r[f"{label}_words"] for r in scored)}
                    if label != "lead":
                        checks = [r[f"{label}_checks"] for r in scored]
                        summary_row[label] |= {
                            "conclusions_opening_with_method": sum(c["conclusion_opens_with_method"] for c in checks),
                            "results_sentences": sum(c["results_sentences"] for c in checks),
                            "results_without_finding": sum(c["results_without_finding"] for c in checks),
                            "placeholders": sum(c["placeholders"] for c in checks),
                            "papers_with_a_placeholder": sum(c["placeholders"] > 0 for c in checks)}
                summary_row["new_beats_current"] = sum(r["new"]["rouge1"] > r["current"]["rouge1"] for r in scored)
                summary_row["new_loses_to_current"] = sum(r["new"]["rouge1"] < r["current"]["rouge1"] for r in scored)
            print(f"{name}: {json.dumps(summary_row)}", flush=True)
            out[name] = {"summary": summary_row, "papers": rows}
    embedder.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=["pmc-test", "elife-test"])
    parser.add_argument("--work", type=Path, default=Path("/tmp/salience"))
    parser.add_argument("--elife-limit", type=int, default=40)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--current-rev", default="d00ab7b", help="the git revision of the extractor as it was")
    parser.add_argument("--app", action="store_true", help="also the user's path with the shipped files")
    parser.add_argument("--name", default="summary_roles")
    args = parser.parse_args()
    wall, cpu = time.perf_counter(), time.process_time()
    results = run(args.sets, args.work, args.elife_limit, args.limit, args.current_rev, args.app)
    target = write_result(args.name, {
        "metric": "rouge-score F1, Porter stemmer, one sentence per line; rougeL = rougeLsum; abstract left out of "
                  "the input and used as the reference; papers with an abstract of >= 30 words",
        "variants": {"lead": "first clean body sentences up to the current summary's words",
                     "current": f"summarize/extractive.py of {args.current_rev}, shipped salience weights, "
                                f"role targets {BEFORE_45_TARGETS}",
                     "roles": "this revision's extractor (roles that hold), role targets before issue 45",
                     "new": f"this revision's extractor with {ROLE_LENGTHS_FILE.name}",
                     "app": "app.summary.summarize, SummaryRequest(include_abstract=False), shipped files"},
        "method_sentence_rule": "extractive.reports_what_was_done; results finding rule: extractive.reports_a_finding",
        "seconds": {"wall": round(time.perf_counter() - wall, 1), "cpu": round(time.process_time() - cpu, 1)},
        "sets": results,
    })
    print(f"written {target}")


if __name__ == "__main__":
    main()
