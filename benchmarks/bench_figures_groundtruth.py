"""Figure detection against Docling ground truth: recall, precision and caption accuracy."""

from __future__ import annotations

from _corpus import GROUNDTRUTH, PAPERS, write_result
from _figure_groundtruth import load_groundtruth, score_file, summarise

from mmdocsum_desktop.document.reader import read_document


def main() -> None:
    scores = []
    for truth_file in sorted(GROUNDTRUTH.glob("*.json")):
        pdf = PAPERS / f"docling_{truth_file.stem}.pdf"
        score = score_file(pdf.name, read_document(pdf), load_groundtruth(truth_file))
        scores.append(score)
        print(f"{pdf.name:45s} truth {score.truth:2d} found {score.predicted:2d} matched {score.matched:2d} "
              f"captions ok {score.caption_matches:2d}")
        for miss in score.misses:
            print(f"    missed: {miss}")
        for extra in score.extras:
            print(f"    extra:  {extra}")
    overall = summarise(scores)
    print("overall", {k: round(v, 3) if isinstance(v, float) else v for k, v in overall.items()})
    write_result("figures_groundtruth", {"overall": overall, "files": [vars(s) for s in scores]})


if __name__ == "__main__":
    main()
