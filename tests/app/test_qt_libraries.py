"""The libraries Qt's X11 plugin needs (app/qt_libraries.py), against the installed plugin and this
machine's dynamic loader: `ldd` is the judge of what the plugin needs and of what is missing."""

from __future__ import annotations

import re
import subprocess

import pytest

from mmdocsum_desktop.app.doctor import run_doctor
from mmdocsum_desktop.app.qt_libraries import (
    SEARCH_OVERRIDE_ENV,
    XCB_PLUGIN_LIBRARIES,
    check_xcb_libraries,
    install_advice,
    ldconfig_sonames,
    qt_library_dir,
)

TABLE = [library.soname for library in XCB_PLUGIN_LIBRARIES]


@pytest.fixture(scope="module")
def ldd_of_the_plugin() -> dict[str, bool]:
    """{soname: found} for every library `ldd` lists for PySide6's libqxcb.so (direct and indirect)."""
    qt_lib = qt_library_dir()
    assert qt_lib is not None
    plugin = qt_lib.parent / "plugins" / "platforms" / "libqxcb.so"
    listing = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=True,
                             env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout
    found: dict[str, bool] = {}
    for line in listing.splitlines():
        match = re.match(r"\s*(\S+\.so[.\d]*) => (.*)$", line)
        if match:
            found[match.group(1)] = found.get(match.group(1), True) and "not found" not in match.group(2)
    return found


def test_the_table_holds_the_x11_libraries_the_installed_plugin_needs(ldd_of_the_plugin):
    assert set(TABLE) <= set(ldd_of_the_plugin)
    x11 = {name for name in ldd_of_the_plugin if re.match(r"lib(xcb|xkbcommon|X11)", name)}
    assert x11 - set(TABLE) == set()  # every X11 library the plugin loads, directly or not


def test_the_check_misses_exactly_what_the_dynamic_loader_cannot_find_here(ldd_of_the_plugin):
    check = check_xcb_libraries({})
    assert check is not None
    assert check.missing == [soname for soname in TABLE if not ldd_of_the_plugin[soname]]
    assert check.advice == install_advice(check.missing)


def test_searching_an_empty_folder_finds_nothing_and_names_every_package(tmp_path):
    check = check_xcb_libraries({SEARCH_OVERRIDE_ENV: str(tmp_path)})
    assert check is not None
    assert check.missing == TABLE
    debian, fedora = check.advice.split("; ")
    assert debian.split("apt install ")[1].split() == list(dict.fromkeys(lib.debian for lib in XCB_PLUGIN_LIBRARIES))
    assert fedora.split("dnf install ")[1].split() == list(dict.fromkeys(lib.fedora for lib in XCB_PLUGIN_LIBRARIES))


def test_the_two_libraries_a_fresh_desktop_lacked_are_named_with_their_packages():
    assert install_advice(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]) == (
        "Debian/Ubuntu: sudo apt install libxcb-icccm4 libxcb-keysyms1; "
        "Fedora: sudo dnf install xcb-util-wm xcb-util-keysyms")


def test_libraries_of_one_fedora_package_name_it_once():
    assert install_advice(["libxcb-shape.so.0", "libxcb-randr.so.0", "libxcb-xkb.so.1"]) == (
        "Debian/Ubuntu: sudo apt install libxcb-shape0 libxcb-randr0 libxcb-xkb1; Fedora: sudo dnf install libxcb")
    assert install_advice([]) == ""


def test_the_system_cache_is_read_from_ldconfig():
    listing = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True,
                             env={"LC_ALL": "C", "PATH": "/usr/sbin:/sbin:/usr/bin:/bin"}).stdout
    names = ldconfig_sonames(listing)
    assert "libc.so.6" in names
    assert len(names) >= len(listing.splitlines()) // 2


def test_the_doctor_reports_the_missing_libraries_with_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv(SEARCH_OVERRIDE_ENV, str(tmp_path))
    report = run_doctor(try_model=False)
    [finding] = [f for f in report.findings if f.section == "desktop window (Qt on X11)"]
    assert finding.ok is False
    assert finding.value == "missing: " + ", ".join(TABLE)
    assert finding.advice is not None and finding.advice.startswith(install_advice(TABLE))
    assert finding in report.problems
