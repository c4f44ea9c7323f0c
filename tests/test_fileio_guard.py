"""The output-path guard's folder rules and the input check (mmdocsum_desktop/fileio.py; issue 38, items
1, 3 and 4; issue 48, items 2 and 5): the app replaces or removes only files it wrote (recorded with their
hashes in its own data dir, never in a file inside the folder), never the user's files, one changed since,
or an input, never a folder wholesale; a document is read only when it is a regular file outside /proc,
/sys and /dev; a configuration or record file only when it is a regular file of bounded size and depth."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest

from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.errors import InputNotFoundError
from mmdocsum_desktop.fileio import (
    MANIFEST,
    RECORDS,
    ConfigFileError,
    InputFileError,
    OutputError,
    OutputFolder,
    check_input_file,
    read_json_file,
    write_bytes_atomic,
)


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """The app's data dir (where it records what it wrote) outside the folders written."""
    monkeypatch.setenv("MMDOCSUM_DATA_DIR", str(tmp_path / "app-data"))
    return tmp_path / "app-data"


def _recorded(data_dir, root) -> dict:
    """The groups the app's record lists for ``root``: {group: [names]}."""
    for record in (data_dir / RECORDS).glob("*.json"):
        payload = json.loads(record.read_text())
        if payload["folder"] == os.path.realpath(root):
            return {group: sorted(names) for group, names in payload["groups"].items()}
    return {}


def _write(folder: OutputFolder, name: str, data: bytes, **kwargs) -> str:
    path = folder.claim(name, **kwargs)
    write_bytes_atomic(path, data)
    return path.name


def test_only_what_the_app_wrote_is_replaced_or_removed(tmp_path, data_dir):
    root = tmp_path / "notes_images"
    root.mkdir()
    (root / "mine.txt").write_text("the user's own notes")
    (root / "paper.pdf").write_bytes(b"%PDF- the input")

    first = OutputFolder(root, "images")
    assert [_write(first, n, b"one") for n in ("figure-1.png", "figure-2.png")] == ["figure-1.png", "figure-2.png"]
    first.finish()
    assert _recorded(data_dir, root) == {"images": ["figure-1.png", "figure-2.png"]}

    second = OutputFolder(root, "images")  # a later run shows figure 1 only
    _write(second, "figure-1.png", b"two")
    second.finish()
    assert sorted(p.name for p in root.iterdir()) == ["figure-1.png", "mine.txt", "paper.pdf"]
    assert (root / "figure-1.png").read_bytes() == b"two"
    assert (root / "mine.txt").read_text() == "the user's own notes" and (root / "paper.pdf").read_bytes() == b"%PDF- the input"


def test_a_users_file_of_the_same_name_is_kept(tmp_path):
    root = tmp_path / "art_images"
    root.mkdir()
    (root / "figure-1.png").write_bytes(b"the user's figure")
    folder = OutputFolder(root, "images")
    with pytest.raises(OutputError, match="is not a file mmdocsum wrote"):
        folder.claim("figure-1.png")
    assert _write(folder, "figure-1.png", b"copy", rename=True) == "figure-1-2.png"
    folder.finish()
    assert (root / "figure-1.png").read_bytes() == b"the user's figure"
    assert (root / "figure-1-2.png").read_bytes() == b"copy"


def test_nothing_left_when_a_later_run_writes_nothing(tmp_path):
    root = tmp_path / "s_images"
    first = OutputFolder(root, "images")
    _write(first, "figure-1.png", b"one")
    first.finish()
    OutputFolder(root, "images").finish()
    assert not root.exists()


def test_groups_sharing_a_folder_keep_each_others_files(tmp_path, data_dir):
    document = OutputFolder(tmp_path, "document", derived=False)
    _write(document, "document.json", b"{}")
    document.finish()
    placement = OutputFolder(tmp_path, "placement", derived=False)
    _write(placement, "placement.md", b"text")
    placement.finish()
    assert (tmp_path / "document.json").exists() and (tmp_path / "placement.md").exists()
    assert _recorded(data_dir, tmp_path) == {"document": ["document.json"], "placement": ["placement.md"]}


def test_an_input_is_never_a_target_even_when_recorded(tmp_path):
    first = OutputFolder(tmp_path, "placement", derived=False)
    _write(first, "placement.md", b"an earlier placement")
    first.finish()
    again = OutputFolder(tmp_path, "placement", inputs=[tmp_path / "placement.md"], derived=False)
    with pytest.raises(OutputError, match="input document placement.md"):
        again.claim("placement.md")


def test_nothing_inside_the_folder_says_what_the_app_wrote(tmp_path):
    """A manifest found in the folder (forged, or stale from an earlier version) is never trusted: the
    files it lists are neither replaced nor removed."""
    root = tmp_path / "out_images"
    root.mkdir()
    outside = tmp_path / "precious.txt"
    outside.write_text("keep")
    (root / "mine.txt").write_text("the user's")
    (root / "figure-1.png").write_bytes(b"the user's figure")
    (root / MANIFEST).write_text(json.dumps({"written_by": "mmdocsum-desktop", "groups": {
        "images": ["mine.txt", "figure-1.png", "../precious.txt", str(outside)]}}))
    folder = OutputFolder(root, "images")
    with pytest.raises(OutputError, match="is not a file mmdocsum wrote"):
        folder.claim("figure-1.png")
    assert _write(folder, "figure-1.png", b"copy", rename=True) == "figure-1-2.png"
    folder.finish()
    assert (root / "mine.txt").read_text() == "the user's" and outside.read_text() == "keep"
    assert (root / "figure-1.png").read_bytes() == b"the user's figure"


def test_a_file_the_user_changed_since_the_app_wrote_it_is_the_users(tmp_path):
    root = tmp_path / "s_images"
    first = OutputFolder(root, "images")
    _write(first, "figure-1.png", b"written")
    _write(first, "figure-2.png", b"written too")
    first.finish()
    (root / "figure-1.png").write_bytes(b"drawn over by the user")
    (root / "figure-2.png").write_bytes(b"replaced by the user")
    second = OutputFolder(root, "images")
    with pytest.raises(OutputError, match="is not a file mmdocsum wrote"):
        second.claim("figure-1.png")
    second.finish()  # figure 2 is not written now, and it is not the file the app wrote: it stays
    assert (root / "figure-1.png").read_bytes() == b"drawn over by the user"
    assert (root / "figure-2.png").read_bytes() == b"replaced by the user"


def test_an_articles_own_image_is_never_an_output(tmp_path):
    """The images a document shows are inputs once it is read: no write of the process replaces them
    (`--screenshot art_images/duck.png` of the window, any export)."""
    (tmp_path / "art_images").mkdir()
    duck = tmp_path / "art_images" / "duck.png"
    duck.write_bytes(b"\x89PNG the article's own image")
    (tmp_path / "art.html").write_text("<html><body><h1>Ducks</h1><p>Ducks swim in ponds and eat weeds.</p>"
                                       "<figure><img src='art_images/duck.png'><figcaption>Figure 1: A duck."
                                       "</figcaption></figure></body></html>", encoding="utf-8")
    read_document(tmp_path / "art.html")
    with pytest.raises(OutputError, match="input document duck.png"):
        write_bytes_atomic(duck, b"a screenshot")
    assert duck.read_bytes() == b"\x89PNG the article's own image"


def test_configuration_files_are_regular_bounded_and_shallow(tmp_path):
    os.mkfifo(tmp_path / "settings.json")
    outcome: list[BaseException] = []
    worker = threading.Thread(target=lambda: outcome.append(pytest.raises(
        ConfigFileError, read_json_file, tmp_path / "settings.json", "settings").value), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive() and "named pipe" in str(outcome[0])
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ConfigFileError, match="nested 100000 levels deep"):
        read_json_file(tmp_path / "deep.json")
    (tmp_path / "big.json").write_text("[" + "1," * 100 + "1]")
    with pytest.raises(ConfigFileError, match="more than the 64"):
        read_json_file(tmp_path / "big.json", max_bytes=64)
    (tmp_path / "nan.json").write_text('{"x": NaN}')
    with pytest.raises(ConfigFileError, match="not valid JSON"):
        read_json_file(tmp_path / "nan.json")
    (tmp_path / "fine.json").write_text('{"x": ["[not a bracket"]}')
    assert read_json_file(tmp_path / "fine.json") == {"x": ["[not a bracket"]}


def test_a_derived_folder_that_is_a_file_or_a_link_is_refused(tmp_path):
    (tmp_path / "s_images").write_text("a file")
    with pytest.raises(OutputError, match="is a file"):
        OutputFolder(tmp_path / "s_images", "images").check()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "t_images").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OutputError, match="symbolic link"):
        OutputFolder(tmp_path / "t_images", "images").check()


def test_documents_are_regular_files_only(tmp_path):
    (tmp_path / "environ.md").symlink_to("/proc/self/environ")
    with pytest.raises(InputFileError, match="system file under /proc") as caught:
        check_input_file(tmp_path / "environ.md")
    assert "\n" not in str(caught.value)
    (tmp_path / "null.md").symlink_to("/dev/null")
    with pytest.raises(InputFileError, match="under /dev"):
        check_input_file(tmp_path / "null.md")
    os.mkfifo(tmp_path / "pipe.md")
    with pytest.raises(InputFileError, match="named pipe"):
        check_input_file(tmp_path / "pipe.md")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock.md"))
        with pytest.raises(InputFileError, match="a socket"):
            check_input_file(tmp_path / "sock.md")
    with pytest.raises(InputNotFoundError):
        check_input_file(tmp_path / "missing.md")
    (tmp_path / "fine.md").write_text("# A paper\n")
    assert check_input_file(tmp_path / "fine.md") == tmp_path / "fine.md"


def test_a_fifo_is_refused_without_being_opened(tmp_path):
    """Opening a FIFO blocks until a writer comes: the check must not open it."""
    os.mkfifo(tmp_path / "pipe.md")
    outcome: list[BaseException] = []
    worker = threading.Thread(target=lambda: outcome.append(pytest.raises(InputFileError, check_input_file,
                                                                          tmp_path / "pipe.md").value),
                              daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive() and len(outcome) == 1
