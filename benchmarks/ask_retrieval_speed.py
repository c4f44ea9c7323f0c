"""Evidence retrieval speed for `mmdocsum ask`: seconds for one question once the document's index is
built (warm), and the cost of building that index (cold: embeddings not cached yet), on the longest
papers of the corpus (26 and 25 pages). Goal: retrieval alone ≤ 0.3 s warm for a ~30-page paper.

Warm retrieval = BM25 over every passage + the question's MiniLM vector + cosine over every passage +
rank fusion + the cross-encoder on the ``rerank_top`` best (8). Median over questions × repeats; the
stages are reported separately, and the same with the cross-encoder off. The machine's load average is
recorded with the numbers: on the shared 2-core development machine other work inflates wall time, so
the CPU seconds the process itself used (both threads together) are reported too: on an idle 2-core
machine the wall time lies between half of them and all of them.

    .venv/bin/python benchmarks/ask_retrieval_speed.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

from _corpus import CORPUS, PAPERS, write_result

DOCUMENTS = {
    "pymupdf_test_4751.pdf": (PAPERS / "pymupdf_test_4751.pdf", [
        "How many tokens was Qwen2 pre-trained on?",
        "What context length does Qwen2 support?",
        "Which table compares the instruction-tuned models on coding benchmarks?",
        "How are the experts of the mixture-of-experts model initialised?",
        "How was the model checked for contamination of the evaluation data?",
    ]),
    "PMC7380650.pdf": (CORPUS / "pmc" / "PMC7380650.pdf", [
        "Which regions had the highest prevalence?",
        "What statistical methods were used?",
        "Which figure shows the geographic distribution of cases?",
        "What were the main risk factors identified?",
        "What are the limitations of the study?",
    ]),
}


def median(values):
    return round(statistics.median(values), 4) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from mmdocsum_desktop.document.reader import read_document
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.models.rerank import CrossEncoder
    from mmdocsum_desktop.retrieval.search import Retriever

    results = {}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as scratch:
        embedder = TextEmbedder(cache=ContentCache(os.path.join(scratch, "cache.sqlite")))
        with_ce = Retriever(embedder, CrossEncoder())
        without_ce = Retriever(embedder, None)
        for name, (path, questions) in DOCUMENTS.items():
            document = read_document(path)
            mark = time.perf_counter()
            index = with_ce.index(document)
            cold = time.perf_counter() - mark
            without_ce.index(document)  # same vectors, now cached
            row = {"pages": document.page_count, "passages": len(index), "index_cold_s": round(cold, 3)}
            for label, retriever in (("rerank", with_ce), ("no_rerank", without_ce)):
                totals, cpu, stages = [], [], {"bm25_s": [], "embed_s": [], "rerank_s": []}
                retriever.search(document, questions[0])  # first query: session warm-up
                for _ in range(args.repeats):
                    for question in questions:
                        mark, cpu_mark = time.perf_counter(), time.process_time()
                        retriever.search(document, question, k=8)
                        totals.append(time.perf_counter() - mark)
                        cpu.append(time.process_time() - cpu_mark)
                        for stage in stages:
                            stages[stage].append(retriever.last_timings.get(stage, 0.0))
                row[label] = {"median_s": median(totals), "max_s": round(max(totals), 4),
                              "median_cpu_s": median(cpu),
                              **{f"median_{k}": median(v) for k, v in stages.items()}, "n": len(totals)}
            results[name] = row
            print(name, json.dumps(row), flush=True)
    payload = {
        "benchmark": "ask: evidence retrieval seconds, warm (index built) and index build cold",
        "goal_warm_s": 0.3,
        "rerank_top": with_ce.rerank_top,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "cpu_count": os.cpu_count(),
        "documents": results,
    }
    target = write_result("ask_retrieval_speed", payload)
    print(json.dumps(payload, indent=2))
    print(f"written {target}")


if __name__ == "__main__":
    main()
