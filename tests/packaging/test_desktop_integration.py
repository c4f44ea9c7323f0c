"""The freedesktop files in packaging/linux: a desktop entry that launches a real script of the package,
an icon that exists in every usual size, MIME types for every format the reader opens, and AppStream
metadata that agrees with pyproject (and that appstreamcli accepts, where it is installed)."""

from __future__ import annotations

import configparser
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from lxml import etree

from mmdocsum_desktop.app.project import PROJECT_SUFFIX
from mmdocsum_desktop.document import reader

from .conftest import APP_ID, ICONS, LINUX, REPO_ROOT

DESKTOP_FILE = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
MIME_XML = LINUX / f"{APP_ID}.mime.xml"
MIME_NS = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)

# The MIME type the desktop entry must claim for each suffix the reader opens. ".xml" is read as JATS
# when asked, but claiming every XML file for the app would be wrong.
READER_SUFFIX_TYPES = {
    ".pdf": "application/pdf",
    ".html": "text/html",
    ".htm": "text/html",
    ".xhtml": "application/xhtml+xml",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".nxml": "application/jats+xml",
}
NOT_CLAIMED = {".xml"}


@pytest.fixture(scope="module")
def entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # desktop-entry keys are case-sensitive
    parser.read(DESKTOP_FILE, encoding="utf-8")
    return parser["Desktop Entry"]


def split_list(value: str) -> list[str]:
    return [item for item in value.split(";") if item]


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", header[16:24])


def test_desktop_entry_launches_a_script_of_the_package(entry, pyproject):
    for key in ("Type", "Name", "Comment", "Exec", "Icon", "Categories", "MimeType"):
        assert entry.get(key), key
    assert entry["Type"] == "Application"
    command = entry["Exec"].split()
    assert command[0] in pyproject["project"]["gui-scripts"]
    assert entry["TryExec"] == command[0]
    # the app opens one FILE (see gui/app.py), so the entry passes one
    assert command[1:] == ["%f"]


def test_desktop_entry_icon_exists_in_every_usual_size(entry):
    from mmdocsum_desktop.gui import icons  # the window's icon and desktop-file name use the same id

    assert entry["Icon"] == APP_ID == DESKTOP_FILE.stem == icons.APP_ID
    for size in ICON_SIZES:
        png = ICONS / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        assert png_size(png) == (size, size)
    scalable = ICONS / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
    assert etree.parse(str(scalable)).getroot().tag == "{http://www.w3.org/2000/svg}svg"


def test_desktop_entry_claims_every_format_the_reader_opens(entry):
    claimed = set(split_list(entry["MimeType"]))
    assert set(reader._SUFFIX_KINDS) - NOT_CLAIMED == set(READER_SUFFIX_TYPES), "a new reader suffix"
    for suffix, mime_type in READER_SUFFIX_TYPES.items():
        assert mime_type in claimed, suffix


def test_types_that_shared_mime_info_lacks_are_declared(entry):
    declared = {}
    for mime_type in etree.parse(str(MIME_XML)).getroot().iterfind("m:mime-type", MIME_NS):
        declared[mime_type.get("type")] = [g.get("pattern") for g in mime_type.iterfind("m:glob", MIME_NS)]
    assert declared["application/jats+xml"] == ["*.nxml"]
    assert declared["application/x-mmdocsum-project"] == [f"*{PROJECT_SUFFIX}"]
    assert set(declared) <= set(split_list(entry["MimeType"]))


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils not installed")
def test_desktop_file_validate_accepts_the_entry():
    completed = subprocess.run(["desktop-file-validate", str(DESKTOP_FILE)], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "error" not in completed.stdout


def test_metainfo_agrees_with_pyproject_and_the_desktop_entry(pyproject, script_names):
    component = etree.parse(str(METAINFO)).getroot()
    assert component.tag == "component" and component.get("type") == "desktop-application"
    assert component.findtext("id") == APP_ID
    for tag in ("name", "summary", "metadata_license"):
        assert (component.findtext(tag) or "").strip(), tag
    assert len(component.find("description")) > 0
    assert component.findtext("project_license") == pyproject["project"]["license"]
    launchable = component.find("launchable")
    assert launchable.get("type") == "desktop-id" and launchable.text == DESKTOP_FILE.name
    assert {b.text for b in component.iterfind("provides/binary")} == script_names
    assert pyproject["project"]["version"] in {r.get("version") for r in component.iterfind("releases/release")}
    assert component.find("content_rating") is not None
    assert component.find("url[@type='homepage']") is not None
    image = component.findtext("screenshots/screenshot/image")
    assert image.startswith("https://")
    assert (REPO_ROOT / "docs" / Path(image).name).is_file(), "the screenshot shown is the one in docs/"


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="appstreamcli not installed")
def test_appstreamcli_validates_the_metainfo():
    completed = subprocess.run(["appstreamcli", "validate", "--no-net", "--pedantic", str(METAINFO)],
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_install_script_installs_into_xdg_data_home_and_uninstalls(tmp_path):
    script = LINUX / "install.sh"
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    subprocess.run(["sh", str(script)], env=environment, check=True, capture_output=True, timeout=60)
    data = tmp_path / "data"
    assert (data / "applications" / DESKTOP_FILE.name).read_bytes() == DESKTOP_FILE.read_bytes()
    assert (data / "metainfo" / METAINFO.name).is_file()
    assert (data / "mime" / "packages" / f"{APP_ID}.xml").is_file()
    for size in ICON_SIZES:
        assert (data / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png").is_file()
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()
    if shutil.which("update-mime-database"):
        assert "application/jats+xml" in (data / "mime" / "types").read_text()

    subprocess.run(["sh", str(script), "--uninstall"], env=environment, check=True, capture_output=True, timeout=60)
    assert not (data / "applications" / DESKTOP_FILE.name).exists()
    assert not list((data / "icons").rglob(f"{APP_ID}.*"))
