"""English a reader should not see in a summary of a Portuguese, Spanish or French paper (issue 35, point 3).

Every paper of ``../shared/corpus/multilingual`` is summarised the way ``mmdocsum summarize --engine
extractive`` does it (``app.summary.summarize_file``: the PDF where there is one, else the JATS/TEI file),
with and without the abstract (``--no-abstract``), and written as Markdown and HTML through
``app.output.write_summary``. :func:`mmdocsum_desktop.bench.metrics.reader_language.english_strings_in`
then removes the paper's own words (title, sentences, captions, file and engine names) and looks for the
English reader strings (headings, "Summary of", "Table 2", notes, placeholders) in what is left.

Reported: summaries with no English string, per language, and every string found. ``before`` renders the
same summaries with no language, as the renderer did before reader strings had languages (the absence
sentences, which the pipeline writes, were English then too, so the before count is a lower bound).

    nice -n 10 .venv/bin/python benchmarks/reader_language.py   # writes benchmarks/results/reader_language.json
"""

from __future__ import annotations

import csv
import sys
import tempfile
import time
from pathlib import Path

from _corpus import CORPUS, write_result

from mmdocsum_desktop.app.output import write_summary
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.app.summary import SummarizeFileRequest, summarize_file
from mmdocsum_desktop.bench.metrics.reader_language import english_strings_in, summary_own_texts
from mmdocsum_desktop.schemas.settings import EngineChoice
from mmdocsum_desktop.schemas.summary import SummaryRequest

MULTILINGUAL = CORPUS / "multilingual"


def papers() -> list[tuple[str, str, Path]]:
    """(name, language, file) for every paper of the manifest: its PDF when it has one, else its XML."""
    found = []
    with (MULTILINGUAL / "MANIFEST.tsv").open(encoding="utf-8") as manifest:
        for row in csv.DictReader(manifest, delimiter="\t"):
            name = row["name"]
            pdf, xml = MULTILINGUAL / f"{name}.pdf", MULTILINGUAL / "jats" / f"{name}.xml"
            path = pdf if row["has_pdf"] == "yes" and pdf.is_file() else xml if xml.is_file() else MULTILINGUAL / f"{name}.xml"
            if path.is_file():
                found.append((name, row["language"], path))
    return found


def main() -> int:
    if not (MULTILINGUAL / "MANIFEST.tsv").is_file():
        print(f"no multilingual corpus at {MULTILINGUAL}", file=sys.stderr)
        return 2
    rows = []
    started = time.perf_counter()
    choice = EngineChoice(engine="extractive")
    with Session() as session, tempfile.TemporaryDirectory(prefix="reader-language-") as scratch:
        for name, gold_language, path in papers():
            for include_abstract in (True, False):
                work = Path(scratch) / f"{name}-{include_abstract}"
                try:
                    result = summarize_file(session, SummarizeFileRequest(
                        path=path, assets=work / "assets", choice=choice,
                        options=SummaryRequest(include_abstract=include_abstract)))
                except Exception as error:  # noqa: BLE001 — a paper the app refuses is reported, not fatal
                    rows.append({"paper": name, "abstract": include_abstract, "error": str(error)[:200]})
                    print(f"{name:45s} {'with' if include_abstract else 'no  '} abstract  ERROR {error}", flush=True)
                    continue
                summary = result.summary
                language = summary.language
                own = summary_own_texts(summary)
                markdown = write_summary(summary, work / "summary.md", "md", base_dir=work / "assets").read_text(encoding="utf-8")
                page = write_summary(summary, work / "summary.html", "html", base_dir=work / "assets").read_text(encoding="utf-8")
                found = english_strings_in(markdown, own, language)
                found_html = english_strings_in(page, own, language)
                before_md = write_summary(summary.model_copy(update={"language": None}), work / "before.md", "md",
                                          base_dir=work / "assets").read_text(encoding="utf-8")
                before = english_strings_in(before_md, own, language)
                rows.append({"paper": name, "gold_language": gold_language, "language": language,
                             "file": path.suffix, "abstract": include_abstract, "english": found,
                             "english_html": found_html, "html_lang": f'lang="{language}"' in page,
                             "english_before": before,
                             "placeholders": [p.role for p in summary.paragraphs if p.source == "absent"]})
                print(f"{name:45s} {language or '?':3s} {'with' if include_abstract else 'no  '} abstract  "
                      f"english {found + found_html or '-'}  (before {len(before)})", flush=True)
    measured = [r for r in rows if "error" not in r]
    by_language: dict[str, dict[str, int]] = {}
    for row in measured:
        entry = by_language.setdefault(row["language"] or "?", {"summaries": 0, "clean": 0, "clean_before": 0})
        entry["summaries"] += 1
        entry["clean"] += not row["english"] and not row["english_html"]
        entry["clean_before"] += not row["english_before"]
    target = [r for r in measured if r["language"] in ("pt", "es", "fr")]
    result = {
        "what": "summaries of the multilingual corpus (extractive, with and without the abstract) with no English "
                "reader string, Markdown and HTML as app.output.write_summary writes them",
        "summaries": len(rows),
        "errors": len(rows) - len(measured),
        "pt_es_fr_summaries": len(target),
        "pt_es_fr_clean": sum(not r["english"] and not r["english_html"] for r in target),
        "pt_es_fr_clean_before": sum(not r["english_before"] for r in target),
        "by_language": by_language,
        "wall_s": round(time.perf_counter() - started, 1),
        "rows": rows,
    }
    print(f"\npt/es/fr summaries with no English reader string: {result['pt_es_fr_clean']}/{len(target)} "
          f"(before: {result['pt_es_fr_clean_before']}/{len(target)}); by language {by_language}; "
          f"{result['errors']} errors; {result['wall_s']} s")
    print("written", write_result("reader_language", result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
