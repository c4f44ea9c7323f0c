"""`mmdocsum library ...` in this process on a real library of committed JATS articles: the exact
subcommand names of issue 36, --library on each, JSON lists with title and source path, a library-wide
answer citing paper and page, notes out, and bad input as one line with a non-zero exit."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from mmdocsum_desktop.library.store import APPLICATION_ID
from tests.conftest import DATA_PAPERS


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    papers = tmp_path_factory.mktemp("cli-library-papers")
    for name in ("PMC2803133.xml", "PMC4521097.xml"):
        shutil.copyfile(DATA_PAPERS / name, papers / name)
    return papers


def test_add_list_ask_export_remove(cli, folder, tmp_path):
    library = tmp_path / "lib"
    code, out, err = cli("library", "add", folder, "--library", library, "--quiet", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["sources"][0]["new"] == 2 and report["index"]["indexed"] == 2
    assert (library / "library.sqlite").is_file()

    code, out, _err = cli("library", "list", "--format", "json", "--library", library)
    listed = json.loads(out)
    assert code == 0 and len(listed) == 2
    assert {Path(p["source_path"]).name for p in listed} == {"PMC2803133.xml", "PMC4521097.xml"}
    assert all(p["title"] and p["status"] == "indexed" for p in listed)
    seals = next(p for p in listed if p["source_path"].endswith("PMC4521097.xml"))

    code, out, _err = cli("library", "list", "--library", library, "--year", "2015", "--format", "json")
    assert [p["id"] for p in json.loads(out)] == [seals["id"]]

    code, out, err = cli("library", "ask", "Did the seal pups behave less aggressively towards familiar pups?",
                         "--library", library, "--format", "json", "--quiet")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["papers"][0]["paper_id"] == seals["id"] and answer["searched_papers"] == 2
    first = answer["citations"][0]
    assert first["title"] == seals["title"] and first["source_path"] == seals["source_path"]
    assert first["link"].startswith("file://") and "[1]" in answer["answer"]

    code, out, _err = cli("library", "ask", "seal pups aggression", "--library", library, "--quiet")
    assert code == 0 and "**Sources**" in out and seals["title"] in out

    vault = tmp_path / "vault"
    code, out, _err = cli("library", "export", vault, "--library", library)
    assert code == 0 and len(list(vault.glob("*.md"))) == 2

    code, out, _err = cli("library", "remove", str(seals["id"]), "--library", library)
    assert code == 0 and seals["title"] in out
    code, out, _err = cli("library", "list", "--format", "json", "--library", library)
    assert [p["source_path"] for p in json.loads(out)] != [] and seals["id"] not in [p["id"] for p in json.loads(out)]


def test_the_default_library_is_under_the_data_dir(cli, env):
    code, out, _err = cli("library", "list", "--format", "json")
    assert code == 0 and json.loads(out) == []
    assert (Path(env["MMDOCSUM_DATA_DIR"]) / "library" / "library.sqlite").is_file()


@pytest.mark.parametrize(("arguments", "message"), [
    (("library", "add"), "give the files or folders to add"),
    (("library", "add", "no-such-folder"), "no such file or folder: no-such-folder"),
    (("library", "ask", "  "), "the question is empty"),
    (("library", "summarize"), "name the papers to summarise, or --all"),
    (("library", "summarize", "4242"), "not in the library: 4242"),
    (("library", "remove"), "name the papers to remove, or --missing"),
])
def test_bad_input_is_one_line_and_a_non_zero_exit(cli, tmp_path, arguments, message):
    code, _out, err = cli(*arguments, "--library", tmp_path / "lib")
    assert code != 0
    assert err.strip().splitlines() == [f"mmdocsum: error: {err.strip().split('error: ', 1)[1]}"]
    assert message in err and "Traceback" not in err


def test_a_library_written_by_a_newer_version_is_refused_unchanged(cli, tmp_path):
    library = tmp_path / "lib"
    library.mkdir()
    conn = sqlite3.connect(library / "library.sqlite")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # a newer mmdocsum marks its files too
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = (library / "library.sqlite").read_bytes()
    code, _out, err = cli("library", "list", "--library", library)
    assert code != 0 and "newer mmdocsum" in err
    assert (library / "library.sqlite").read_bytes() == before


def test_list_shows_and_filters_indexing_and_summary_states(cli, folder, tmp_path):
    library = tmp_path / "lib"
    code, _out, err = cli("library", "add", folder, "--library", library, "--no-index", "--quiet")
    assert code == 0, err
    conn = sqlite3.connect(library / "library.sqlite")
    conn.execute("UPDATE papers SET summary_status = 'failed', summary_error = 'the engine refused it' "
                 "WHERE source_path LIKE '%PMC2803133.xml'")
    conn.commit()
    conn.close()

    code, out, _err = cli("library", "list", "--status", "--library", library)
    assert code == 0 and "2 papers — indexing: 2 pending · summaries: 1 failed, 1 none" in out
    assert "! summary: the engine refused it" in out
    code, out, _err = cli("library", "list", "--summary", "failed", "--library", library, "--format", "json")
    assert [Path(p["source_path"]).name for p in json.loads(out)] == ["PMC2803133.xml"]
    assert json.loads(out)[0]["summary_error"] == "the engine refused it"
    code, out, _err = cli("library", "list", "--status", "pending", "--summary", "none", "--library", library)
    assert code == 0 and "PMC4521097.xml" in out and "PMC2803133.xml" not in out
    code, out, err = cli("library", "list", "--status", "indexed", "--library", library)
    assert code == 0 and "0 papers" in out and "no paper" in err


def test_another_programs_sqlite_file_named_library_sqlite_is_refused_unchanged(cli, tmp_path):
    library = tmp_path / "lib"
    library.mkdir()
    conn = sqlite3.connect(library / "library.sqlite")
    conn.executescript("CREATE TABLE accounts (name TEXT, balance REAL); INSERT INTO accounts VALUES ('me', 12.5);")
    conn.close()
    before = (library / "library.sqlite").read_bytes()
    for arguments in (("list",), ("add", str(DATA_PAPERS / "PMC2803133.xml"), "--no-index", "--quiet")):
        code, _out, err = cli("library", *arguments, "--library", library)
        assert code == 2 and "not an mmdocsum library" in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1
    assert (library / "library.sqlite").read_bytes() == before
    assert sorted(p.name for p in library.iterdir()) == ["library.sqlite"]  # no -wal, no -shm
