"""Figures and tables found in each paper against the captions printed in it (counted by eye)."""

from __future__ import annotations

import json

from _corpus import PAPERS, REPO_ROOT, write_result

from mmdocsum_desktop.document.reader import read_document


def main() -> None:
    printed = json.loads((REPO_ROOT / "benchmarks" / "printed_captions.json").read_text())
    rows = []
    print(f"{'file':40s} {'fig printed':>11s} {'fig found':>9s} {'uncaptioned':>11s} {'tab printed':>11s} {'tab found':>9s}")
    for pdf in sorted(PAPERS.glob("*.pdf")):
        document = read_document(pdf)
        expected = printed[pdf.name]
        labelled = [f.label for f in document.figures if f.label and not f.continues]
        tables = [t.label for t in document.tables if not t.continues]
        row = {
            "file": pdf.name,
            "figures_printed": len(expected["figures"]),
            "figures_found": len(labelled),
            "figures_matching": len(set(labelled) & set(expected["figures"])),
            "uncaptioned_pictures": sum(1 for f in document.figures if not f.label),
            "tables_printed": len(expected["tables"]),
            "tables_found": len(tables),
            "tables_matching": len(set(tables) & set(expected["tables"])),
        }
        rows.append(row)
        print(f"{pdf.name:40s} {row['figures_printed']:11d} {row['figures_found']:9d} {row['uncaptioned_pictures']:11d} "
              f"{row['tables_printed']:11d} {row['tables_found']:9d}")
    totals = {key: sum(r[key] for r in rows) for key in rows[0] if key != "file"}
    print("totals", totals)
    write_result("figure_counts", {"files": rows, "totals": totals})


if __name__ == "__main__":
    main()
