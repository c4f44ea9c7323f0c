"""No network unless the user asked for a server: the third-party runtimes that would phone home are told
not to, before they load.

onnxruntime (1.29 and later on Linux and macOS) carries a telemetry client (Microsoft's 1DS). Measured
with onnxruntime 1.32: the first session writes a device id and an event database under
``~/.cache/Microsoft/DeveloperTools/.onnxruntime/`` (or ``$XDG_CACHE_HOME/Microsoft/…``), and a process
that lives more than about ten seconds looks up ``mobile.events.data.microsoft.com`` to upload its
events (OS, CPU, executable and model paths). ``onnxruntime.disable_telemetry_events()`` stops neither:
it acts on an environment already created. The runtime reads ``ORT_DISABLE_TELEMETRY`` when it creates
its environment, and with ``1`` it creates no uploader, writes no file and makes no lookup (strace and
the cache folder: ``tests/test_offline.py``).

onnxruntime is imported by this package (``models.devices``), by RapidOCR and by PyMuPDF's layout model,
in this process and in the children it spawns (which inherit the environment), so
:func:`keep_runtimes_offline` runs when the package is imported (``mmdocsum_desktop/__init__.py``), before
any of them; :func:`import_onnxruntime` is the one way this package imports onnxruntime itself.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import cast

# the variables, and the values, that keep the runtimes offline; set unconditionally: the README promises
# an app that makes no request the user did not ask for, whatever the environment says
OFFLINE_ENV: dict[str, str] = {"ORT_DISABLE_TELEMETRY": "1"}


def keep_runtimes_offline() -> None:
    """Set :data:`OFFLINE_ENV` in this process (and so in every child it starts)."""
    for name, value in OFFLINE_ENV.items():
        os.environ[name] = value


def import_onnxruntime() -> ModuleType:
    """onnxruntime, imported with its telemetry off (ImportError when it is not installed)."""
    keep_runtimes_offline()
    import onnxruntime  # a native runtime, loaded only when a model is about to run

    # belt and braces for the events of this process; the variable above is what stops the uploader
    disable = getattr(onnxruntime, "disable_telemetry_events", None)
    if disable is not None:
        disable()
    return cast(ModuleType, onnxruntime)  # untyped package: Any to mypy
