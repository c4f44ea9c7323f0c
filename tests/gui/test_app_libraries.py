"""`mmdocsum-desktop` on a Linux desktop without the libraries Qt's X11 plugin needs: the launcher names
them and the packages to install, and exits, instead of Qt's message about xcb-cursor0 and its abort."""

from __future__ import annotations

import os
import subprocess
import sys

from mmdocsum_desktop.app.qt_libraries import SEARCH_OVERRIDE_ENV, XCB_PLUGIN_LIBRARIES
from mmdocsum_desktop.gui.app import display_problem


def test_the_launcher_names_the_missing_libraries_and_their_packages_and_exits(tmp_path):
    # the library search pointed at an empty folder: a desktop where none of them is installed
    env = {key: value for key, value in os.environ.items() if key not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update({"DISPLAY": ":99", SEARCH_OVERRIDE_ENV: str(tmp_path), "MMDOCSUM_DATA_DIR": str(tmp_path / "data")})
    result = subprocess.run([sys.executable, "-m", "mmdocsum_desktop.gui.app"], capture_output=True, text=True,
                            timeout=120, env=env, cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mmdocsum-desktop: error: the window needs system libraries that are not installed: "
                               "libxcb-cursor.so.0, libxcb-icccm.so.4, libxcb-keysyms.so.1,")
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 " in lines[0]
    assert "sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms " in lines[0]
    assert all(library.soname in lines[0] for library in XCB_PLUGIN_LIBRARIES)
    assert "qt.qpa" not in result.stderr and "Aborted" not in result.stderr


def test_other_platforms_and_wayland_sessions_are_not_checked_for_x11_libraries(tmp_path):
    nothing_installed = {SEARCH_OVERRIDE_ENV: str(tmp_path)}
    assert display_problem({**nothing_installed, "QT_QPA_PLATFORM": "offscreen"}) == ""
    assert display_problem({**nothing_installed, "WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}) == ""
    assert "libxcb-icccm4" in display_problem({**nothing_installed, "QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"})
    assert "DISPLAY is not set" in display_problem(nothing_installed)
