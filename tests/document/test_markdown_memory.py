"""A Markdown table is read in bounded memory (issue 38, point 10): its rows beyond the first few are not
parsed — the Document keeps a table as a visual with its caption and never reads the rows — so the
Document is the same, and an 6 MB table stays within the README's 20 bytes of memory per input byte
(it took 131 bytes per byte, 5.5 GB for 8 MB)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from mmdocsum_desktop.document.markdown import TABLE_ROWS_PARSED, shorten_tables
from mmdocsum_desktop.document.reader import read_document

_LAUNCHER = """
import os, subprocess, sys
process = subprocess.Popen([sys.executable, "-m", "mmdocsum_desktop", *sys.argv[1:]], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(process.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""
# what the command takes with no document at all (Python, PyMuPDF, lxml, markdown-it): 150-200 MB here
START_UP_BYTES = 250 * 1024**2


def _table(rows: int, extra: str = "") -> str:
    body = "".join(f"| loaf {n} | {18 + n % 9} degrees | {2 + n % 7} hours | starter fed at dawn |\n" for n in range(rows))
    return ("# Sourdough\n\nWe baked loaves at three temperatures and measured how fast they rose.\n\n"
            "Table 1: The loaves and their rising times.\n\n| loaf | kitchen | rise | note |\n| --- | --- | --- | --- |\n"
            + body + "\n## Results\n\nWarm dough rose twice as fast as cold dough in every loaf we baked.\n" + extra)


def test_the_document_is_the_same_with_the_rows_left_unparsed(tmp_path):
    code = "\n```\n| not | a table |\n| --- | --- |\n" + "| kept | row |\n" * (TABLE_ROWS_PARSED + 10) + "```\n"
    source = tmp_path / "table.md"
    source.write_text(_table(TABLE_ROWS_PARSED * 4, code), encoding="utf-8")
    assert len(re.findall(r"\| loaf \d", shorten_tables(source.read_text()))) == TABLE_ROWS_PARSED
    assert shorten_tables(source.read_text()).count("| kept | row |") == TABLE_ROWS_PARSED + 10  # code is code
    document = read_document(source)
    assert [v.caption for v in document.visuals] == ["Table 1: The loaves and their rising times."]
    assert document.visuals[0].kind == "table"
    body = [b.text for b in document.blocks]
    assert "Warm dough rose twice as fast as cold dough in every loaf we baked." in body
    assert any(text.count("| kept | row |") == TABLE_ROWS_PARSED + 10 for text in body)


def test_a_6_mb_table_is_read_within_20_bytes_of_memory_per_byte(tmp_path):
    source = tmp_path / "big-table.md"
    source.write_text(_table(110_000), encoding="utf-8")
    size = source.stat().st_size
    assert size > 6 * 1024**2
    env = {**os.environ, "MMDOCSUM_CACHE_DIR": str(tmp_path / "cache"), "MMDOCSUM_DATA_DIR": str(tmp_path / "data")}
    result = subprocess.run([sys.executable, "-c", _LAUNCHER, "extract", str(source), "-o", str(tmp_path / "out"),
                             "--quiet"], capture_output=True, text=True, env=env, timeout=300)
    code, peak = (int(value) for value in result.stdout.split())
    assert code == 0, result.stderr
    assert peak < START_UP_BYTES + 20 * size, f"{peak / 1e6:.0f} MB for {size / 1e6:.1f} MB"
