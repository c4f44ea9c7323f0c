"""Peak memory per input byte, per format, through the real command (issue 38, point 10).

For each format — Markdown prose, a Markdown table, HTML prose, an HTML table, JATS, PDF — inputs of
growing size are generated, and ``mmdocsum extract FILE -o OUT`` (the reading every command does first)
runs on each in a fresh process; ``--summarize`` also runs ``mmdocsum summarize FILE --engine extractive``
on the sizes up to ``--summarize-mb``. The peak resident size is the command's own (``wait4``'s
``ru_maxrss`` from a small launcher, so the harness's size does not count); a run over ``--cap-gb`` is
killed and reported as over the cap.

Two figures per format: the marginal cost, (peak at the largest size − peak at the smallest) / (bytes
between them), which is what a larger file adds; and the peak per byte at the largest size, start-up
included. Prints a table and writes benchmarks/results/memory_per_byte.json.

    nice -n 10 .venv/bin/python benchmarks/bench_memory_per_byte.py --sizes-mb 0.5 2 8 --summarize
"""

from __future__ import annotations

import argparse
import html
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from benchmarks._corpus import write_result  # noqa: E402

SENTENCE = ("Dough kept at {n} degrees doubled in {h} hours while the cold dough rose slowly, as the bakers "
            "measured with a ruler every hour. ")
_LAUNCHER = """
import os, subprocess, sys
process = subprocess.Popen([sys.executable, "-m", "mmdocsum_desktop", *sys.argv[2:]], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
print(process.pid, flush=True)
_, status, usage = os.wait4(process.pid, 0)
err = process.stderr.read().decode("utf-8", "replace").strip().splitlines()
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024, (err or [""])[-1][:200].replace(" ", "\\u00a0"))
"""


def _prose(size: int) -> list[str]:
    """Paragraphs of about 1.5 KB each, ``size`` bytes in all, each sentence a little different."""
    paragraphs, total, n = [], 0, 0
    while total < size:
        paragraph = "".join(SENTENCE.format(n=n + k, h=k % 9 + 2) for k in range(12))
        paragraphs.append(paragraph)
        total += len(paragraph) + 2
        n += 12
    return paragraphs


def _rows(size: int) -> list[list[str]]:
    rows, total, n = [], 0, 0
    while total < size:
        row = [f"loaf {n}", f"{18 + n % 9} °C", f"{2 + n % 7} h", f"rye {n % 5} g", "starter fed at dawn"]
        rows.append(row)
        total += sum(len(c) + 3 for c in row) + 2
        n += 1
    return rows


def make_input(kind: str, size: int, folder: Path) -> Path:
    if kind == "md":
        path = folder / "prose.md"
        path.write_text("# Sourdough\n\n## Results\n\n" + "\n\n".join(_prose(size)) + "\n", encoding="utf-8")
    elif kind == "md-table":
        path = folder / "table.md"
        lines = ["# Sourdough", "", "Table 1: the loaves.", "", "| loaf | kitchen | rise | rye | note |",
                 "| --- | --- | --- | --- | --- |"] + ["| " + " | ".join(r) + " |" for r in _rows(size)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif kind == "html":
        path = folder / "prose.html"
        body = "".join(f"<p>{html.escape(p)}</p>\n" for p in _prose(size))
        path.write_text(f"<html><body><h1>Sourdough</h1><h2>Results</h2>{body}</body></html>", encoding="utf-8")
    elif kind == "html-table":
        path = folder / "table.html"
        rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>\n" for r in _rows(size))
        path.write_text(f"<html><body><h1>Sourdough</h1><table><caption>Table 1: the loaves.</caption>{rows}"
                        "</table></body></html>", encoding="utf-8")
    elif kind == "jats":
        path = folder / "article.nxml"
        body = "".join(f"<p>{html.escape(p)}</p>\n" for p in _prose(size))
        path.write_text(
            '<?xml version="1.0"?><article><front><article-meta><title-group><article-title>Sourdough'
            "</article-title></title-group></article-meta></front><body><sec><title>Results</title>"
            f"{body}</sec></body></article>", encoding="utf-8")
    else:  # pdf: pages of prose, about 3.5 KB of text each
        import pymupdf

        path = folder / "paper.pdf"
        document = pymupdf.open()
        paragraphs = _prose(size)
        for start in range(0, len(paragraphs), 2):
            page = document.new_page()
            page.insert_textbox(pymupdf.Rect(50, 50, 545, 800), "\n\n".join(paragraphs[start:start + 2]), fontsize=8)
        document.save(path, garbage=0, deflate=False)  # uncompressed: the file's bytes are its text's
    return path


def measure(args: list[str], cap: int, timeout_s: float) -> dict:
    """Run ``mmdocsum ARGS``: exit code, peak RSS bytes, seconds; killed over ``cap`` bytes or ``timeout_s``."""
    started = time.monotonic()
    launcher = subprocess.Popen([sys.executable, "-c", _LAUNCHER, "--", *args], stdout=subprocess.PIPE, text=True)
    pid = int(launcher.stdout.readline())
    over = []

    def watch() -> None:
        while launcher.poll() is None:
            try:
                rss = int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            except (OSError, ValueError, IndexError):
                return
            if rss > cap or time.monotonic() - started > timeout_s:
                over.append("memory cap" if rss > cap else "time")
                os.kill(pid, 9)
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out = launcher.communicate()[0].split()
    watcher.join()
    code, peak = int(out[0]), int(out[1])
    return {"exit": code, "peak_bytes": peak, "seconds": round(time.monotonic() - started, 1),
            "killed": over[0] if over else None, "last_line": " ".join(out[2:]).replace("\u00a0", " ")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", nargs="+", default=["md", "md-table", "html", "html-table", "jats", "pdf"])
    parser.add_argument("--sizes-mb", nargs="+", type=float, default=[0.5, 2.0, 8.0])
    parser.add_argument("--summarize", action="store_true", help="also summarize (extractive) the smaller inputs")
    parser.add_argument("--summarize-mb", type=float, default=0.5)
    parser.add_argument("--cap-gb", type=float, default=3.0)
    parser.add_argument("--timeout-s", type=float, default=300.0)
    parser.add_argument("--label", default="", help="suffix of the result file (memory_per_byte_LABEL.json)")
    args = parser.parse_args()
    cap = int(args.cap_gb * 1024**3)
    rows = []
    with tempfile.TemporaryDirectory(prefix="mmdocsum-memory-") as tmp:
        env_dirs = Path(tmp) / "dirs"
        os.environ.setdefault("MMDOCSUM_CACHE_DIR", str(env_dirs / "cache"))
        for kind in args.kinds:
            for mb in args.sizes_mb:
                folder = Path(tmp) / f"{kind}-{mb}"
                folder.mkdir()
                source = make_input(kind, int(mb * 1024**2), folder)
                size = source.stat().st_size
                commands = [("extract", ["extract", str(source), "-o", str(folder / "out"), "--quiet"])]
                if args.summarize and mb <= args.summarize_mb:
                    commands.append(("summarize", ["summarize", str(source), "-o", str(folder / "s.json"),
                                                   "--engine", "extractive", "--quiet"]))
                for name, command in commands:
                    row = {"kind": kind, "command": name, "input_bytes": size,
                           **measure(command, cap, args.timeout_s)}
                    row["bytes_per_byte"] = round(row["peak_bytes"] / size, 1)
                    rows.append(row)
                    print(f"{kind:<10} {name:<9} {size / 1e6:7.2f} MB  peak {row['peak_bytes'] / 1e6:7.0f} MB  "
                          f"{row['bytes_per_byte']:6.1f} B/B  exit {row['exit']:>3}  {row['seconds']:6.1f} s"
                          + (f"  KILLED ({row['killed']})" if row["killed"] else ""), flush=True)
                shutil.rmtree(folder, ignore_errors=True)
    marginal = {}
    for kind in args.kinds:
        mine = sorted((r for r in rows if r["kind"] == kind and r["command"] == "extract" and not r["killed"]),
                      key=lambda r: r["input_bytes"])
        if len(mine) >= 2:
            first, last = mine[0], mine[-1]
            marginal[kind] = round((last["peak_bytes"] - first["peak_bytes"]) / (last["input_bytes"] - first["input_bytes"]), 1)
    print("\nmarginal bytes of memory per input byte (extract):", marginal)
    write_result("memory_per_byte" + (f"_{args.label}" if args.label else ""), {"sizes_mb": args.sizes_mb, "cap_gb": args.cap_gb, "rows": rows,
                                     "marginal_bytes_per_byte": marginal})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
