"""`mmdocsum bench pairs` from the command line: bad input gives one line and a non-zero exit."""

from __future__ import annotations

from mmdocsum_desktop.cli import main


def test_a_folder_without_pairs_is_one_line_and_exit_code(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code = main(["bench", "pairs", "--pairs", str(tmp_path / "empty"), "-o", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1 and "no PDF + JATS pairs" in err


def test_unknown_stage_is_refused(tmp_path, capsys):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "a.xml").write_text("<article/>")
    code = main(["bench", "pairs", "--pairs", str(tmp_path / "p"), "--stages", "figures,colour", "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert code != 0 and "--stages" in err and "Traceback" not in err
