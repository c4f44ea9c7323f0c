"""The system libraries Qt's X11 platform plugin needs, whether this machine has them, and which packages
to install when it does not.

On Linux the window opens through Qt's xcb plugin (``PySide6/Qt/plugins/platforms/libqxcb.so`` and its
``libQt6XcbQpa``), which needs about twenty system libraries that the PySide6 wheel does not carry. When
one is missing, Qt only says that "xcb-cursor0 or libxcb-cursor0 is needed", whichever it is, and
aborts. ``mmdocsum doctor`` and the desktop launcher ask here first and name the missing libraries and
the exact packages (Debian/Ubuntu and Fedora) that hold them.

Whether a library is there is what the dynamic loader would find: the directories of
``LD_LIBRARY_PATH``, Qt's own library folder, then the system's library cache (``ldconfig -p``; where
that cannot run, ``ctypes.util.find_library``). ``MMDOCSUM_QT_LIBRARY_DIRS`` (folders separated by
``os.pathsep``) replaces that search: for a bundle that carries its own libraries, and to see what the
check says on a machine without them. No Qt is imported here.
"""

from __future__ import annotations

import ctypes.util
import importlib.util
import os
import re
import struct
import subprocess
import sys
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

SEARCH_OVERRIDE_ENV = "MMDOCSUM_QT_LIBRARY_DIRS"


@dataclass(frozen=True)
class SystemLibrary:
    soname: str
    debian: str  # the Debian/Ubuntu package that holds it
    fedora: str  # the Fedora package that holds it


# Every library that libqxcb.so and libQt6XcbQpa.so.6 (PySide6 6.x) name as NEEDED, but for Qt's own and
# the C/C++ runtime (glibc, libstdc++, libgcc_s), which every Python has: from `objdump -p` of both. A
# test compares this table with what `ldd` says the installed plugin needs.
XCB_PLUGIN_LIBRARIES: tuple[SystemLibrary, ...] = (
    SystemLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    SystemLibrary("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    SystemLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    SystemLibrary("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    SystemLibrary("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    SystemLibrary("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    SystemLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
    SystemLibrary("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    SystemLibrary("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
    SystemLibrary("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    SystemLibrary("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    SystemLibrary("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    SystemLibrary("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    SystemLibrary("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    SystemLibrary("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    SystemLibrary("libxcb.so.1", "libxcb1", "libxcb"),
    SystemLibrary("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    SystemLibrary("libX11.so.6", "libx11-6", "libX11"),
    SystemLibrary("libGL.so.1", "libgl1", "libglvnd-glx"),
    SystemLibrary("libglib-2.0.so.0", "libglib2.0-0", "glib2"),
    SystemLibrary("libgthread-2.0.so.0", "libglib2.0-0", "glib2"),
)

_LDCONFIG_LINE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)\s*$")


def install_advice(missing: Iterable[str]) -> str:
    """The commands that install the packages holding the ``missing`` sonames, one per distribution
    family, each package once, in the order of the table; '' when none is missing."""
    by_soname = {library.soname: library for library in XCB_PLUGIN_LIBRARIES}
    wanted = [by_soname[soname] for soname in missing]
    if not wanted:
        return ""
    debian = list(dict.fromkeys(library.debian for library in wanted))
    fedora = list(dict.fromkeys(library.fedora for library in wanted))
    return f"Debian/Ubuntu: sudo apt install {' '.join(debian)}; Fedora: sudo dnf install {' '.join(fedora)}"


def missing_libraries(found: Collection[str]) -> list[str]:
    """The sonames of the table that are not among ``found``, in the table's order."""
    return [library.soname for library in XCB_PLUGIN_LIBRARIES if library.soname not in found]


def _names_in(directories: Iterable[str | Path]) -> set[str]:
    names: set[str] = set()
    for directory in directories:
        try:
            names.update(entry.name for entry in os.scandir(directory))
        except OSError:  # a folder in LD_LIBRARY_PATH that is not there: the loader skips it too
            continue
    return names


def qt_library_dir() -> Path | None:
    """PySide6's own library folder (where libqxcb.so's RUNPATH points), found without importing Qt."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "Qt" / "lib"


def ldconfig_sonames(listing: str) -> set[str]:
    """The sonames of ``ldconfig -p``'s listing usable by this Python: on a 64-bit one, entries of the
    32-bit multilib (flags "libc6" with no architecture) are left out."""
    wide = struct.calcsize("P") == 8
    names = set()
    for line in listing.splitlines():
        match = _LDCONFIG_LINE.match(line)
        if match is None:
            continue
        soname, flags = match.group(1), match.group(2)
        if wide and flags.strip() == "libc6":
            continue
        names.add(soname)
    return names


def _system_cache() -> set[str] | None:
    for ldconfig in ("ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"):
        try:
            listing = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, timeout=20,
                                     env={**os.environ, "LC_ALL": "C"}, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if listing.returncode == 0:
            return ldconfig_sonames(listing.stdout)
    return None


def _found_by_find_library(sonames: Iterable[str]) -> set[str]:
    found = set()
    for soname in sonames:
        name = soname.removeprefix("lib").split(".so")[0]
        if ctypes.util.find_library(name) == soname:
            found.add(soname)
    return found


def found_libraries(environ: Mapping[str, str] | None = None) -> set[str]:
    """The sonames of the table that the dynamic loader would find here (see the module's doc)."""
    environ = os.environ if environ is None else environ
    wanted = [library.soname for library in XCB_PLUGIN_LIBRARIES]
    override = environ.get(SEARCH_OVERRIDE_ENV)
    if override is not None:
        return _names_in(part for part in override.split(os.pathsep) if part) & set(wanted)
    directories: list[str | Path] = [part for part in environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if part]
    qt_dir = qt_library_dir()
    if qt_dir is not None:
        directories.append(qt_dir)
    found = _names_in(directories) & set(wanted)
    cache = _system_cache()
    if cache is None:
        return found | _found_by_find_library(soname for soname in wanted if soname not in found)
    return found | (cache & set(wanted))


@dataclass(frozen=True)
class XcbCheck:
    missing: list[str]  # sonames, in the table's order

    @property
    def advice(self) -> str:
        return install_advice(self.missing)

    def message(self) -> str:
        """One paragraph for the launcher and the doctor ('' when nothing is missing)."""
        if not self.missing:
            return ""
        return (f"the window needs system libraries that are not installed: {', '.join(self.missing)}. "
                f"{self.advice}")


def check_xcb_libraries(environ: Mapping[str, str] | None = None) -> XcbCheck | None:
    """What Qt's xcb plugin lacks on this machine; None where there is no xcb plugin to check (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    return XcbCheck(missing_libraries(found_libraries(environ)))
