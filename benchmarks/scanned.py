"""Scanned papers against their born-digital originals, with the JATS as gold.

Scanned copies of TEST-half pmc papers (bench/pairs_split.py) are made here (every page rendered at 150 or
300 dpi and placed as one image on an image-only PDF: document.scanned.scan_copy), read the one way the app
reads documents (Session.read: scanned pages OCR'd), and scored as the born-digital PDF of the same paper:

- figure and table label recall and precision against the JATS labels (bench/metrics/pairs.label_scores),
  caption match (bag-of-words F1 of each matched label's caption, bench/metrics/pairs.caption_f1);
- ROUGE of the extractive summary (written without the abstract) against the JATS abstract;
- seconds of OCR per page (pages the OCR cache did not already hold; 2 threads), and the machine's load;
- the same for a mixed document: five pages of one paper with pages 2 and 4 scanned.

Usage: python benchmarks/scanned.py [--papers N] [--dpi 150 300] [--no-summary] [-o results/scanned.json]
OCR results are cached by page image, so a second run re-scores without recognising again.

``--book 300`` reads a 300-page scanned book (peak memory, seconds per page around the OCR cache).
``--layout SITE`` instead compares figure and table regions on the 150 dpi scans with those of a layout
model: rapid-layout's wheel (in SITE, e.g. ``pip install --no-deps --target SITE rapid-layout omegaconf
colorlog antlr4-python3-runtime==4.9.3``) carries one model, PP-PicoDet trained on CDLA
(layout_cdla.onnx); its other models (PubLayNet, DocLayout-YOLO, PP-DocLayout) are downloaded on first
use. Each region is scored by its overlap (IoU) with the born-digital region of the same label.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from mmdocsum_desktop.bench.metrics.pairs import caption_f1, label_scores  # noqa: E402
from mmdocsum_desktop.bench.metrics.rouge import rouge, summary_text  # noqa: E402
from mmdocsum_desktop.bench.pairs_gold import canonical_label, read_gold  # noqa: E402
from mmdocsum_desktop.bench.pairs_split import pairs_in  # noqa: E402
from mmdocsum_desktop.document.reader import export_document, read_document  # noqa: E402
from mmdocsum_desktop.document.scanned import scan_copy  # noqa: E402
from mmdocsum_desktop.fileio import write_json_atomic  # noqa: E402
from mmdocsum_desktop.models.ocr import OcrEngine, page_reader  # noqa: E402

CORPUS = HERE.parent.parent / "shared" / "corpus" / "pmc"
# Short TEST-half papers with figures and tables (4 pages each: OCR costs about a minute a page on the
# shared 2-core machine), and a 5-page one for the mixed document.
PAPERS = ["PMC4678086", "PMC4706911", "PMC4736389", "PMC4737442", "PMC4738709", "PMC4745350"]
MIXED = ("PMC4238170", [1, 3])


class TimedOcr:
    """The app's OCR hook, timing the pages RapidOCR really recognised (not the cache's)."""

    def __init__(self, engine: OcrEngine) -> None:
        self.engine = engine
        self.hook = page_reader(engine)
        self.seconds: list[float] = []
        self.cpu_seconds: list[float] = []  # the process's CPU time (onnxruntime's threads included)

    def __call__(self, png: bytes):
        runs = self.engine.runs
        started, cpu = time.perf_counter(), time.process_time()
        result = self.hook(png)
        if self.engine.runs > runs:
            self.seconds.append(time.perf_counter() - started)
            self.cpu_seconds.append(time.process_time() - cpu)
        return result


def score(document, gold) -> dict:
    found = [v.label for v in document.visuals if v.label]
    gold_labels = [v.label for v in gold.visuals if v.label]
    labels = label_scores(gold_labels, found)
    gold_captions = {v.label.lower(): v.caption for v in gold.visuals if v.label}
    captions = []
    for visual in document.visuals:
        canonical = canonical_label(visual.label)
        key = canonical[1].lower() if canonical else None
        if key in gold_captions:
            captions.append(caption_f1(visual.caption, gold_captions[key]))
    return {
        "label_recall": labels.recall, "label_precision": labels.precision,
        "missed": labels.missed, "spurious": labels.spurious,
        "caption_f1": statistics.mean(captions) if captions else None,
        "with_region": sum(1 for v in document.visuals if v.bbox is not None),
        "blocks": len(document.blocks), "ocr_blocks": sum(b.ocr for b in document.blocks),
        "warnings": [w for w in document.warnings if "OCR" in w or "scan" in w],
    }


def summary_rouge(session, document, gold, work: Path) -> dict | None:
    from mmdocsum_desktop.app.summary import summarize
    from mmdocsum_desktop.schemas.settings import EngineChoice
    from mmdocsum_desktop.schemas.summary import SummaryRequest

    if not gold.abstract:
        return None
    assets = work / "assets"
    export_document(document, assets)
    summary = summarize(session, document, assets, choice=EngineChoice(engine="extractive"),
                        options=SummaryRequest(include_abstract=False))
    return rouge(summary_text([p.text for p in summary.paragraphs]), gold.abstract)


def read_timed(path: Path, ocr: TimedOcr) -> tuple:
    started = time.perf_counter()
    document = read_document(path, ocr=ocr)
    return document, time.perf_counter() - started


def iou(a, b) -> float:
    inter = max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def compare_layout(site: Path, papers: list[str], output: Path) -> int:
    """IoU with the born-digital regions: the geometric rule (the app's) against rapid-layout's CDLA model."""
    import pymupdf

    sys.path.insert(0, str(site))
    from rapid_layout import RapidLayout

    layout = RapidLayout(model_type="pp_layout_cdla")
    by_name = {p.name: p for p in pairs_in(CORPUS, "test")}
    engine = OcrEngine(intra_op_threads=2)
    rows, layout_seconds = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name in papers:
            pair = by_name[name]
            born = read_document(pair.pdf)
            scan = scan_copy(pair.pdf, Path(tmp) / f"{name}.pdf", dpi=150)
            scanned = read_document(scan, ocr=page_reader(engine))
            boxes: dict[int, list[tuple[str, tuple]]] = {}
            with pymupdf.open(scan) as pdf:
                for number, page in enumerate(pdf, start=1):
                    pixmap = page.get_pixmap(dpi=150)
                    image = __import__("numpy").frombuffer(pixmap.samples, dtype="uint8").reshape(
                        pixmap.height, pixmap.width, pixmap.n)[:, :, ::-1].copy()
                    started = time.perf_counter()
                    found = layout(image)
                    layout_seconds.append(time.perf_counter() - started)
                    scale = 72 / 150
                    boxes[number] = [(kind, tuple(v * scale for v in box)) for box, kind in
                                     zip(found.boxes or [], found.class_names or []) if kind in ("figure", "table")]
            geometric = {(v.label, v.page): v.bbox for v in scanned.visuals if v.label and v.bbox}
            for visual in born.visuals:
                if not visual.label or visual.bbox is None:
                    continue
                geo = geometric.get((visual.label, visual.page))
                model = [box for kind, box in boxes.get(visual.page, []) if kind == visual.kind]
                rows.append({"paper": name, "label": visual.label, "kind": visual.kind,
                             "geometric_iou": round(iou(geo, visual.bbox), 3) if geo else 0.0,
                             "layout_model_iou": round(max((iou(b, visual.bbox) for b in model), default=0.0), 3)})
            print(json.dumps(rows[-1]) if rows else name, flush=True)
    summary = {}
    for kind in ("figure", "table"):
        chosen = [r for r in rows if r["kind"] == kind]
        if chosen:
            summary[kind] = {
                "regions": len(chosen),
                **{f"{m}_mean": round(statistics.mean(r[f"{m}_iou"] for r in chosen), 3) for m in ("geometric", "layout_model")},
                **{f"{m}_iou_over_0.5": round(sum(r[f"{m}_iou"] >= 0.5 for r in chosen) / len(chosen), 3)
                   for m in ("geometric", "layout_model")},
            }
    write_json_atomic(output, {"split": "test", "papers": papers, "dpi": 150, "model": "rapid-layout 1.2.1 pp_layout_cdla",
                               "layout_seconds_per_page": statistics.median(layout_seconds) if layout_seconds else None,
                               "summary": summary, "rows": rows, "load_average": os.getloadavg()})
    print(json.dumps(summary, indent=1))
    return 0


def timing(pages: int, output: Path) -> int:
    """Seconds per page of OCR on pages no cache holds (an in-memory cache), wall and CPU, 2 threads."""
    from mmdocsum_desktop.models.cache import ContentCache

    pair = next(p for p in pairs_in(CORPUS, "test") if p.name == PAPERS[-1])
    engine = OcrEngine(intra_op_threads=2, cache=ContentCache(":memory:"))
    ocr = TimedOcr(engine)
    with tempfile.TemporaryDirectory() as tmp:
        scan = scan_copy(pair.pdf, Path(tmp) / "scan.pdf", dpi=150, pages=list(range(pages)))
        read_document(scan, ocr=ocr)
    result = {"paper": pair.name, "pages": pages, "dpi": 150, "threads": 2, "wall_seconds": ocr.seconds,
              "cpu_seconds": ocr.cpu_seconds, "wall_median": statistics.median(ocr.seconds),
              "cpu_median": statistics.median(ocr.cpu_seconds), "load_average": os.getloadavg(),
              "cpus": os.cpu_count()}
    write_json_atomic(output, result)
    print(json.dumps(result))
    return 0


def book(pages: int, output: Path) -> int:
    """A scanned book of ``pages`` pages (one paper page, scanned at 150 dpi, repeated): peak memory and
    seconds per page of the reading path around OCR. After the first page RapidOCR's results come from
    the cache (the same page image), so this measures rendering, layout and the one-page-at-a-time
    memory bound, not recognition."""
    import resource

    import pymupdf

    pair = next(p for p in pairs_in(CORPUS, "test") if p.name == PAPERS[0])
    engine = OcrEngine(intra_op_threads=2)
    with tempfile.TemporaryDirectory() as tmp:
        one = scan_copy(pair.pdf, Path(tmp) / "one.pdf", dpi=150, pages=[0])
        with pymupdf.open(one) as single, pymupdf.open() as volume:
            for _ in range(pages):
                volume.insert_pdf(single)
            volume.save(Path(tmp) / "book.pdf")
        seen: list[float] = []
        from mmdocsum_desktop.jobs import JobControl

        control = JobControl(on_progress=lambda done, total, what: seen.append(time.perf_counter())
                             if what.startswith("OCR page") else None)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        document = read_document(Path(tmp) / "book.pdf", ocr=page_reader(engine), control=control)
        seconds = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    steps = [b - a for a, b in zip(seen, seen[1:])]
    result = {"pages": pages, "ocr_progress_reports": len(seen), "blocks": len(document.blocks),
              "seconds": round(seconds, 1), "seconds_per_page_median": round(statistics.median(steps), 3) if steps else None,
              "peak_rss_mb_before": round(before / 1024), "peak_rss_mb": round(peak / 1024),
              "ocr_runs": engine.runs, "load_average": os.getloadavg()}
    write_json_atomic(output, result)
    print(json.dumps(result))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--papers", type=int, default=len(PAPERS))
    parser.add_argument("--dpi", type=int, nargs="+", default=[150, 300])
    parser.add_argument("--no-summary", action="store_true")
    parser.add_argument("-o", "--output", type=Path, default=None)
    parser.add_argument("--layout", type=Path, metavar="SITE", help="compare regions with rapid-layout installed in SITE")
    parser.add_argument("--book", type=int, metavar="PAGES", help="read a scanned book of this many pages")
    parser.add_argument("--timing", type=int, metavar="PAGES", help="time OCR on this many uncached pages")
    args = parser.parse_args()
    if args.timing:
        return timing(args.timing, args.output or HERE / "results" / "scanned_timing.json")
    if args.book:
        return book(args.book, args.output or HERE / "results" / "scanned_book.json")
    if args.layout:
        return compare_layout(args.layout, PAPERS[: args.papers], args.output or HERE / "results" / "scanned_layout.json")
    args.output = args.output or HERE / "results" / "scanned.json"

    from mmdocsum_desktop.app.session import Session

    by_name = {p.name: p for p in pairs_in(CORPUS, "test")}
    engine = OcrEngine(intra_op_threads=2)
    ocr = TimedOcr(engine)
    session = Session()
    rows: list[dict] = []
    result: dict = {"split": "test", "papers": [], "dpis": args.dpi, "engine": engine.engine_id}

    # OCR timings survive a re-scoring run: pages the cache holds are not timed again, so the seconds a
    # previous run of this script measured for the same paper and version are kept
    previous: dict[tuple[str, str], list[float]] = {}
    if args.output.exists():
        for row in json.loads(args.output.read_text()).get("rows", []):
            if row.get("ocr_seconds"):
                previous[(row["paper"], row["version"])] = row["ocr_seconds"]

    def write() -> None:
        for row in rows:
            if not row.get("ocr_seconds") and (row["paper"], row["version"]) in previous:
                row["ocr_seconds"] = previous[(row["paper"], row["version"])]
                row["ocr_seconds_from"] = "an earlier run (this run found the pages in the OCR cache)"
        timed = [t for row in rows for t in row.get("ocr_seconds", [])]
        result["ocr_wall_seconds_per_page_all_runs"] = statistics.median(timed) if timed else None
        result["ocr_pages_timed_all_runs"] = len(timed)
        result["rows"] = rows
        result["summary"] = aggregate(rows)
        result["ocr_seconds_per_page"] = statistics.median(ocr.seconds) if ocr.seconds else None
        result["ocr_cpu_seconds_per_page"] = statistics.median(ocr.cpu_seconds) if ocr.cpu_seconds else None
        result["ocr_pages_timed"] = len(ocr.seconds)
        result["load_average"] = os.getloadavg()
        write_json_atomic(args.output, result)

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        name, pages = MIXED
        pair = by_name[name]
        gold = read_gold(pair.xml)
        mixed = scan_copy(pair.pdf, work / f"{name}-mixed.pdf", dpi=150, only=pages)
        timed_before = len(ocr.seconds)
        document, seconds = read_timed(mixed, ocr)
        born = read_document(pair.pdf)
        rows.append({"paper": name, "version": "born-digital (mixed source)", **score(born, gold)})
        rows.append({"paper": name, "version": f"mixed: pages {[p + 1 for p in pages]} scanned at 150 dpi",
                     **score(document, gold), "read_seconds": seconds, "pages": document.page_count,
                     "ocr_seconds": ocr.seconds[timed_before:]})
        print(json.dumps(rows[-1])[:400], flush=True)
        write()
        for name in PAPERS[: args.papers]:
            pair = by_name[name]
            gold = read_gold(pair.xml)
            result["papers"].append(name)
            born = read_document(pair.pdf)
            row = {"paper": name, "version": "born-digital", **score(born, gold)}
            if not args.no_summary:
                row["rouge"] = summary_rouge(session, born, gold, work / f"{name}-born")
            rows.append(row)
            print(json.dumps({k: row[k] for k in ("paper", "version", "label_recall", "label_precision", "caption_f1")}), flush=True)
            for dpi in args.dpi:
                scan = scan_copy(pair.pdf, work / f"{name}-{dpi}.pdf", dpi=dpi)
                timed_before = len(ocr.seconds)
                document, seconds = read_timed(scan, ocr)
                row = {"paper": name, "version": f"scanned {dpi} dpi", **score(document, gold),
                       "read_seconds": seconds, "pages": document.page_count,
                       "ocr_seconds": ocr.seconds[timed_before:]}
                if not args.no_summary:
                    row["rouge"] = summary_rouge(session, document, gold, work / f"{name}-{dpi}")
                rows.append(row)
                print(json.dumps({k: row[k] for k in ("paper", "version", "label_recall", "label_precision", "caption_f1", "read_seconds")}), flush=True)
                write()
    print(json.dumps(result["summary"], indent=1))
    return 0


def aggregate(rows: list[dict]) -> dict:
    """Means per version over the papers (the mixed document is reported on its own)."""
    out: dict = {}
    versions = sorted({r["version"] for r in rows if not r["version"].startswith(("mixed", "born-digital (mixed"))})
    for version in versions:
        chosen = [r for r in rows if r["version"] == version]

        def mean_of(key: str, chosen=chosen):
            values = [r[key] for r in chosen if r.get(key) is not None]
            return round(statistics.mean(values), 3) if values else None

        entry = {"papers": len(chosen), "label_recall": mean_of("label_recall"),
                 "label_precision": mean_of("label_precision"), "caption_f1": mean_of("caption_f1")}
        rouges = [r["rouge"] for r in chosen if r.get("rouge")]
        if rouges:
            entry["rouge"] = {k: round(statistics.mean(r[k] for r in rouges), 4) for k in rouges[0]}
        out[version] = entry
    return out


if __name__ == "__main__":
    raise SystemExit(main())
