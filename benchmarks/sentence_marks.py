"""Does a click on a cited sentence mark that sentence on its page? (issue 46, item 5)

For the first ``--papers`` PDFs of the pmc TEST half: the extractive summary as ``mmdocsum summarize`` and
the window write it (``app.summary.summarize_file``), and the extractive answer to one question per paper
(``app.ask``, the question made from the paper's title, as a reader would ask "what did they find about
TITLE"). Every cited sentence (one resting on a block with a page and a box) is looked for as the reader
looks for it when its citation is clicked: ``document.highlight.sentence_span`` on that block's words.

Reported: cited sentences, those marked (found, with the share of their letters found), and the papers
where every cited sentence is marked; the baseline beside it is what the reader did before, showing the
block (it "marks" the sentence only when the block is the sentence itself: one-sentence blocks).

    nice -n 10 .venv/bin/python benchmarks/sentence_marks.py --papers 20   # writes benchmarks/results/sentence_marks.json
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from _corpus import CORPUS, write_result  # noqa: E402

from mmdocsum_desktop.app.ask import ask  # noqa: E402
from mmdocsum_desktop.app.session import Session  # noqa: E402
from mmdocsum_desktop.app.summary import SummarizeFileRequest, summarize_file  # noqa: E402
from mmdocsum_desktop.bench.pairs_split import pairs_in  # noqa: E402
from mmdocsum_desktop.document.highlight import sentence_span  # noqa: E402
from mmdocsum_desktop.schemas.settings import EngineChoice, Settings  # noqa: E402
from mmdocsum_desktop.text.sentences import split_sentences  # noqa: E402


def _checked(document, pdf: Path, sentences, where: str, rows: list[dict]) -> None:
    for sentence in sentences:
        if not sentence.blocks:
            continue
        block = document.block(sentence.blocks[0])
        if block.page is None or block.bbox is None:
            continue
        span = sentence_span(pdf, block.page, sentence.text, block.bbox)
        rows.append({"where": where, "page": block.page, "marked": span is not None,
                     "found": span.found if span is not None else 0.0, "lines": len(span.lines) if span else 0,
                     "block_is_sentence": len(split_sentences(block.text)) <= 1, "text": sentence.text[:120]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=20)
    parser.add_argument("--name", default="sentence_marks")
    parser.add_argument("--set", choices=("pmc-test", "multilingual"), default="pmc-test",
                        help="the pmc TEST half's PDFs, or the multilingual set's (another source)")
    args = parser.parse_args()
    wall, cpu = time.perf_counter(), time.process_time()
    if args.set == "pmc-test":
        pairs = [(p.name, p.pdf) for p in pairs_in(CORPUS / "pmc", "test") if p.pdf is not None][: args.papers]
    else:
        pairs = [(pdf.stem, pdf) for pdf in sorted((CORPUS / "multilingual").glob("*.pdf"))][: args.papers]
    papers = []
    with Session(Settings.model_validate({"engines": {"engine": "extractive"}})) as session, \
            tempfile.TemporaryDirectory() as scratch:
        for name, pdf in pairs:
            rows: list[dict] = []
            read = summarize_file(session, SummarizeFileRequest(path=pdf, assets=Path(scratch) / name,
                                                                choice=EngineChoice(engine="extractive"), ocr=False))
            for paragraph in read.summary.paragraphs:
                _checked(read.document, pdf, paragraph.sentences, "summary", rows)
            title = read.document.title or "the study"
            answer = ask(session, read.document, f"What did they find about {title}?",
                         choice=EngineChoice(engine="extractive"))
            _checked(read.document, pdf, answer.sentences, "answer", rows)
            marked = sum(r["marked"] for r in rows)
            print(f"{name}: {marked}/{len(rows)} cited sentences marked", flush=True)
            papers.append({"paper": name, "cited": len(rows), "marked": marked, "rows": rows})
    rows = [r for p in papers for r in p["rows"]]

    def share(selected: list[dict], key: str) -> float:
        return round(sum(bool(r[key]) for r in selected) / len(selected), 4) if selected else 0.0

    summary = {
        "set": args.set, "papers": len(papers), "cited_sentences": len(rows),
        "marked": share(rows, "marked"), "marked_summary": share([r for r in rows if r["where"] == "summary"], "marked"),
        "marked_answer": share([r for r in rows if r["where"] == "answer"], "marked"),
        "papers_all_marked": sum(p["marked"] == p["cited"] for p in papers),
        "baseline_block_is_the_sentence": share(rows, "block_is_sentence"),
        "wall_s": round(time.perf_counter() - wall, 1), "cpu_s": round(time.process_time() - cpu, 1),
    }
    print(summary)
    print(f"wrote {write_result(args.name, {'summary': summary, 'papers': papers})}")


if __name__ == "__main__":
    main()
