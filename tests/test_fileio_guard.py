"""The output-path guard's folder rules and the input check (mmdocsum_desktop/fileio.py; issue 38, items
1, 3 and 4): the app replaces or removes only files it wrote (its manifest), never the user's files or an
input, never a folder wholesale; a document is read only when it is a regular file outside /proc, /sys and
/dev."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest

from mmdocsum_desktop.errors import InputNotFoundError
from mmdocsum_desktop.fileio import (
    MANIFEST,
    InputFileError,
    OutputError,
    OutputFolder,
    check_input_file,
    write_bytes_atomic,
)


def _write(folder: OutputFolder, name: str, data: bytes, **kwargs) -> str:
    path = folder.claim(name, **kwargs)
    write_bytes_atomic(path, data)
    return path.name


def test_only_what_the_app_wrote_is_replaced_or_removed(tmp_path):
    root = tmp_path / "notes_images"
    root.mkdir()
    (root / "mine.txt").write_text("the user's own notes")
    (root / "paper.pdf").write_bytes(b"%PDF- the input")

    first = OutputFolder(root, "images")
    assert [_write(first, n, b"one") for n in ("figure-1.png", "figure-2.png")] == ["figure-1.png", "figure-2.png"]
    first.finish()
    assert json.loads((root / MANIFEST).read_text())["groups"] == {"images": ["figure-1.png", "figure-2.png"]}

    second = OutputFolder(root, "images")  # a later run shows figure 1 only
    _write(second, "figure-1.png", b"two")
    second.finish()
    assert sorted(p.name for p in root.iterdir()) == [MANIFEST, "figure-1.png", "mine.txt", "paper.pdf"]
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


def test_groups_sharing_a_folder_keep_each_others_files(tmp_path):
    document = OutputFolder(tmp_path, "document", derived=False)
    _write(document, "document.json", b"{}")
    document.finish()
    placement = OutputFolder(tmp_path, "placement", derived=False)
    _write(placement, "placement.md", b"text")
    placement.finish()
    assert (tmp_path / "document.json").exists() and (tmp_path / "placement.md").exists()
    groups = json.loads((tmp_path / MANIFEST).read_text())["groups"]
    assert groups == {"document": ["document.json"], "placement": ["placement.md"]}


def test_an_input_is_never_a_target_even_when_recorded(tmp_path):
    first = OutputFolder(tmp_path, "placement", derived=False)
    _write(first, "placement.md", b"an earlier placement")
    first.finish()
    again = OutputFolder(tmp_path, "placement", inputs=[tmp_path / "placement.md"], derived=False)
    with pytest.raises(OutputError, match="input document placement.md"):
        again.claim("placement.md")


def test_a_manifest_cannot_point_outside_its_folder(tmp_path):
    root = tmp_path / "out"
    root.mkdir()
    outside = tmp_path / "precious.txt"
    outside.write_text("keep")
    (root / MANIFEST).write_text(json.dumps({"groups": {"images": ["../precious.txt", str(outside)]}}))
    OutputFolder(root, "images").finish()
    assert outside.read_text() == "keep"


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
