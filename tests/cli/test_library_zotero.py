"""`mmdocsum library add --zotero` as people keep Zotero (issue 44, point 5), in this process: the base
folder given with --zotero-base, the reader's annotations counted and exported into the note, the items
whose paper is not here listed with what to do, a base folder that is not one refused in one line."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.library.zotero import ADVICE_STORED
from tests.library.test_zotero_annotations import HIGHLIGHTED, build_annotated_zotero, write_profile


@pytest.fixture()
def zotero(tmp_path):
    return build_annotated_zotero(tmp_path)


def test_the_command_line_names_the_base_lists_the_absent_and_exports_the_annotations(zotero, tmp_path, cli,
                                                                                    monkeypatch):
    data, base = zotero
    home = tmp_path / "home"
    write_profile(home, data, None)  # Zotero's settings name no base folder here: it is given
    monkeypatch.setenv("HOME", str(home))
    library = tmp_path / "lib"
    code, out, err = cli("library", "add", "--zotero", data, "--zotero-base", base, "--no-index", "--library",
                         library, "--quiet")
    assert code == 0, err
    assert "2 annotations" in out and f"base folder {base} (from --zotero-base)" in out
    assert "1 items whose paper is not here" in out
    code, out, _err = cli("library", "list", "--absent", "--library", library)
    assert code == 0 and "A paper whose PDF never synced  [Zotero item ARTICLE4]" in out
    assert f"what to do: {ADVICE_STORED}" in out
    code, out, _err = cli("library", "list", "--library", library)
    assert "1 Zotero items have no paper on this computer" in out
    code, out, _err = cli("library", "list", "--search", "check the dose", "--format", "json", "--library", library)
    assert [p["zotero_key"] for p in json.loads(out)] == ["ARTICLE1"]

    vault = tmp_path / "vault"
    code, _out, err = cli("library", "export", vault, "ARTICLE1", "--library", library)
    assert code == 0, err
    note = next(vault.glob("*.md")).read_text(encoding="utf-8")
    section = note.split("## Annotations in Zotero", 1)[1]
    assert "- **Note**, [p. 2](zotero://open-pdf/library/items/ATTACH01?page=2): Compare with the garlic study" in section
    assert (f"- **Highlight**, [p. 5](zotero://open-pdf/library/items/ATTACH01?page=5): \u201cThe {HIGHLIGHTED} by "
            "the oil\u201d \u2014 check the dose") in section
    assert "deleted words" not in note
    code, _out, err = cli("library", "add", "--zotero", data, "--zotero-base", tmp_path / "nowhere", "--library", library)
    assert code != 0 and "not a folder" in err
