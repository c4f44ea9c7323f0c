"""Leave-one-paper-out on the old FTII split of the seven corpus papers (``_ftii_split.py``), for the
"sequence" strategy beside the old "global" one (issue 15's third number).

Each held-out paper is scored with the base profiles fitted on the six others
(``bench_placement_ftii.fit_profiles``), and the sequence model as shipped in ``placement/_weights.py``
(fitted on the dev half of pmc/ + eLife, which holds none of these papers). This split has figure crops,
so OCR text is on; it is also where OCR and citing-sentence context are ablated.

    .venv/bin/python benchmarks/placement_lopo.py

Writes ``benchmarks/results/placement_lopo.json``.
"""

from __future__ import annotations

import dataclasses
import json
import time

from _corpus import write_result
from _ftii_split import SPLIT_DIR, build
from bench_placement_ftii import CONFIGS, Corpus, fit_profiles, profile_signals, rounded

from mmdocsum_desktop.bench.metrics.ftii import score_articles
from mmdocsum_desktop.placement import calibration as cal
from mmdocsum_desktop.placement.engine import PlacementEngine

WANTED = ("caption+ocr+context", "caption+context (no OCR)", "caption+ocr (no context)")
RUNS = (  # name, strategy, cross-encoder
    ("sequence + CE", "sequence", True),
    ("sequence, no CE", "sequence", False),
    ("global (before)", "global", False),
)


def engine_top_k() -> int:
    """Paragraphs per figure the shipped sequence model has the cross-encoder rescore."""
    return PlacementEngine(None).sequence_models["ce"].top_k


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-ce", action="store_true", help="leave the cross-encoder run out (time)")
    args = parser.parse_args()
    runs = [r for r in RUNS if not (args.no_ce and r[2])]
    from mmdocsum_desktop.app.models import Models
    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.models.ocr import OcrEngine
    from mmdocsum_desktop.placement.rescore import PAIR_MAX_LENGTH

    started = time.perf_counter()
    summary = build(SPLIT_DIR)
    (SPLIT_DIR / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    corpus = Corpus(SPLIT_DIR, TextEmbedder(), OcrEngine())
    cross, why = Models().cross_encoder(PAIR_MAX_LENGTH)
    configs = [c for c in CONFIGS if c[0] in WANTED]
    signal_sets = [
        profile_signals(True, tuple(s for s, on in zip(("caption", "ocr", "context"), c[2:]) if on)) for c in configs
    ]
    # A held-out paper whose crops hold no text, or whose figures nobody cites, has only caption signals:
    # without a caption-only profile fitted on the six others there is nothing to score it with.
    signal_sets = list(dict.fromkeys([*signal_sets, profile_signals(True, ("caption",))]))
    predictions: dict[tuple[str, str], dict[str, list[str]]] = {}
    for held in corpus.articles:
        train = [a for a in corpus.articles if a.id != held.id]
        profiles = fit_profiles(corpus, train, signal_sets)
        for name, embedder, caption, ocr, context in configs:
            base = corpus.problem(held, embedder, caption, ocr, context)
            for run, strategy, use_ce in runs:
                engine = PlacementEngine(corpus.embedder, None, None, use_caption=caption, use_ocr=ocr,
                                         use_context=context, profiles=profiles,
                                         cross_encoder=cross if use_ce else None)
                profile = cal.choose_profile(set(base.sims), profiles)
                problem = dataclasses.replace(
                    base, profile=profile, threshold=profile.threshold, order_penalty=profile.order_penalty,
                    _logits=None, _probabilities=None, _base=None, _sequence_z=None, sequence_model=None, ce=None,
                )
                placements = engine.assign(problem, strategy)
                predictions.setdefault((name, run), {})[held.id] = [
                    held.pool[p.candidate] if p.candidate is not None else "" for p in placements
                ]
        print(f"{held.id} done ({time.perf_counter() - started:.0f} s)")
    rows = []
    for name, *_ in configs:
        for run, _, _ in runs:
            metrics = score_articles(corpus.articles, predictions[(name, run)])
            rows.append({"configuration": name, "run": run, **rounded(metrics.to_dict())})
            print(f"{name:28s} {run:18s} Acc_b {metrics.acc_b:.3f} Acc_i {metrics.acc_i:.3f} Acc_ni {metrics.acc_ni:.3f}")
    payload = {
        "benchmark": "leave-one-paper-out on the FTII split of the 7 corpus papers (old corpus)",
        "papers": len(corpus.articles),
        "cross_encoder": "left out (--no-ce)" if args.no_ce else (why or "on"),
        # The shipped sequence model rescoring nothing (top_k 0) makes "sequence + CE" the same run as
        # "sequence, no CE": said here so the two equal rows are not read as "the cross-encoder adds 0".
        "shipped_top_k": engine_top_k(),
        "sequence_model": "as shipped in placement/_weights.py (fitted on dev pmc + dev eLife)",
        "rows": rows,
        "seconds": round(time.perf_counter() - started, 1),
    }
    target = write_result("placement_lopo", payload)
    print(f"written {target}")


if __name__ == "__main__":
    main()
