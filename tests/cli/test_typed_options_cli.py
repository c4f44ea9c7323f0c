"""The command line at the app's typed doors: an option value the request model refuses is one line and
exit code 2 before any model loads; a settings file with a misspelled key still runs, and says so on
stderr naming the key."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import DATA, DATA_PAPERS


def test_a_bad_summary_option_is_one_line_and_exit_2(cli, tmp_path):
    code, out, err = cli("summarize", DATA_PAPERS / "PMC4736972.pdf", "-o", tmp_path / "s.md", "--time-limit", "-1")
    assert code == 2
    assert err.strip().count("\n") == 0 and "Traceback" not in err
    assert err.startswith("mmdocsum: error: option --time-limit: ") and "greater than 0" in err
    assert not (tmp_path / "s.md").exists() and not (tmp_path / "s_files").exists()


def test_a_misspelled_settings_key_warns_on_stderr_and_the_command_runs(cli, env, tmp_path):
    settings = Path(env["MMDOCSUM_DATA_DIR"]) / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"format": 1, "placement": {"ocrr": True}}), encoding="utf-8")
    try:
        code, _out, err = cli("extract", DATA / "articles" / "elife-56337.nxml", "-o", tmp_path / "out")
    finally:
        settings.unlink()
    assert code == 0, err
    warning = [line for line in err.splitlines() if "settings file" in line]
    assert len(warning) == 1 and warning[0].startswith("mmdocsum: warning: ")
    assert "'placement.ocrr'" in warning[0] and "did you mean placement.ocr?" in warning[0]
    assert (tmp_path / "out" / "document.json").is_file()
