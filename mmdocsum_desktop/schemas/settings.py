"""The app's settings: one schema'd model, saved as ``<data dir>/settings.json`` (atomic writes).

This is the ONE schema for how the app summarises, judges and places figures: the desktop app edits
it, the command line overlays its flags on it (:class:`EngineChoice`, whose flags ``cli/engine_flags.py``
generates) and ``engines/factory.py`` builds engines from it. Secrets never go into this file: an OpenAI-compatible endpoint
names its API key (``key_name``) and the key itself is read from the system keyring (service
``mmdocsum-desktop``), e.g. stored with ``python -m keyring set mmdocsum-desktop openai``.
"""

from __future__ import annotations

import difflib
import getpass
import os
import sys
import threading
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mmdocsum_desktop.errors import InputNotFoundError, MmdocsumError, MmdocsumWarning, SecretError
from mmdocsum_desktop.fileio import ConfigFileError, read_json_file, write_text_atomic
from mmdocsum_desktop.messages import notify
from mmdocsum_desktop.paths import data_dir
from mmdocsum_desktop.schemas.options import describe_error

SETTINGS_NAME = "settings.json"
KEYRING_SERVICE = "mmdocsum-desktop"
SETTINGS_FORMAT = 1

EngineName = Literal["auto", "extractive", "llama", "openai"]
FigureMode = Literal["hybrid", "model", "placement"]
# How a language model writes a summary: "grounded" (evidence per paragraph, every sentence checked) or
# "full" (the whole document in one prompt, for models with a long context)
LlmMode = Literal["grounded", "full"]
JudgeName = Literal["auto", "llama", "openai"]
ENGINES: tuple[str, ...] = get_args(EngineName)
JUDGE_ENGINES: tuple[str, ...] = get_args(JudgeName)[1:]  # the language models: "auto" picks one of them
FIGURE_MODES: tuple[str, ...] = get_args(FigureMode)
LLM_MODES: tuple[str, ...] = get_args(LlmMode)


class SettingsError(MmdocsumError):
    """The settings file cannot be read or holds invalid values."""


class SettingsWarning(MmdocsumWarning):
    """The settings file holds a key the app does not know (ignored), or an old one (moved)."""


# Every settings model refuses unknown fields when built in code; a settings *file* with one still loads
# (load_settings drops the key and warns, naming it), so a typo costs a warning, not the app.
_STRICT = ConfigDict(extra="forbid")


class LlamaSettings(BaseModel):
    """A local GGUF model run by llama-cpp-python."""

    model_config = _STRICT

    model: str | None = Field(default=None, description="GGUF file, or the name of a registered model")
    mmproj: str | None = Field(default=None, description="vision projector GGUF for a vision model")
    n_ctx: int = Field(default=8192, ge=512, le=1_048_576)
    n_threads: int | None = Field(default=None, ge=1, description="None: the number of CPU cores")
    n_gpu_layers: int | None = Field(
        default=None, ge=-1, description="None: all layers when this build can offload to a GPU, else 0"
    )
    n_batch: int = Field(default=512, ge=16)
    constrained: bool = Field(default=True, description="JSON grammar for the answer (llama.cpp sampling)")
    image_max_side: int = Field(default=448, ge=64, le=4096)
    idle_timeout_s: float | None = Field(
        default=120.0, gt=0,
        description="close the model's process after this many seconds unused (its memory is freed; the next "
                    "use loads the model again); None: keep it while the app runs",
    )


class OpenAISettings(BaseModel):
    """Any OpenAI-compatible chat endpoint (llama.cpp server, vLLM, Ollama, LM Studio, hosted APIs)."""

    model_config = _STRICT

    base_url: str | None = Field(default=None, description="e.g. http://127.0.0.1:8080/v1")
    model: str | None = Field(default=None, description="None: the first model the server lists")
    key_name: str | None = Field(
        default=None, description="name of the API key in the system keyring; None: send no key"
    )
    context_length: int = Field(default=8192, ge=512)
    timeout_s: float = Field(default=120.0, gt=0)
    connect_timeout_s: float = Field(default=10.0, gt=0)
    retries: int = Field(default=2, ge=0, le=10)
    vision: bool = Field(default=False, description="send figures as images (the model must see images)")
    json_mode: bool = Field(default=True, description="ask for response_format json_object")
    image_max_side: int = Field(default=768, ge=64, le=4096)
    allow_insecure_key: bool = Field(
        default=False, description="send the API key over plain http to a host that is not this computer "
        "(a trusted network only: anyone on the path can read it)")

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError("base_url must start with http:// or https://")
        return value


class EngineSettings(BaseModel):
    model_config = _STRICT

    engine: EngineName = "auto"
    figure_mode: FigureMode = "hybrid"
    llm_mode: LlmMode = Field(
        default="grounded", description="language models: grounded (from checked evidence) or full (whole document)"
    )
    max_tokens: int = Field(default=1024, ge=64)
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)
    seed: int = 0
    ocr: bool | None = Field(
        default=None, description="read the text inside figures; None: for LLM engines that cannot see images"
    )
    judge: JudgeName = Field(
        default="auto", description="engine that judges summaries; auto: the configured language model"
    )
    llama: LlamaSettings = Field(default_factory=LlamaSettings)
    openai: OpenAISettings = Field(default_factory=OpenAISettings)


class PlacementSettings(BaseModel):
    """Placing figures after the user's paragraphs (``mmdocsum place``, the Authoring view)."""

    model_config = _STRICT

    # Off by default (issue 27): on the pmc test half the captions-only model places as well without it
    # (Acc_i 0.657 vs 0.638 with figure text; docs/results/placement_ocr.json) and OCR costs seconds
    # per figure on a paper opened for the first time.
    ocr: bool = Field(default=False, description="read the text inside images to match them")
    clip: str | None = Field(default=None, description="a registered CLIP model to use as well; None: none")


class Settings(BaseModel):
    model_config = _STRICT

    format: int = SETTINGS_FORMAT
    engines: EngineSettings = Field(default_factory=EngineSettings)
    placement: PlacementSettings = Field(default_factory=PlacementSettings)


class EngineChoice(BaseModel):
    """What one run asks for on top of the saved :class:`EngineSettings` (None: take the setting).

    The command line's engine flags (``cli/engine_flags.py``), the benchmark suites' engine and judge, and
    the desktop app (all None: the settings as they are) all speak this one type."""

    model_config = _STRICT

    # a str, not EngineName: an unknown name is the factory's clear EngineError, not a validation dump
    engine: str = Field(default="auto", description="auto: the best configured; extractive needs no model file")
    model: str | None = Field(default=None, description="GGUF model file, or a registered model name (llama engine)")
    mmproj: str | None = Field(default=None, description="vision projector GGUF of a vision model (llama engine)")
    n_ctx: int | None = Field(default=None, ge=512, description="context length in tokens")
    n_threads: int | None = Field(default=None, ge=1, description="CPU threads for llama.cpp")
    n_gpu_layers: int | None = Field(default=None, ge=-1, description="layers to offload to a GPU (-1: all)")
    base_url: str | None = Field(default=None, description="openai: the endpoint, e.g. http://127.0.0.1:8080/v1")
    api_model: str | None = Field(default=None, description="openai: the model name (default: the first the server lists)")
    key_name: str | None = Field(default=None, description="openai: name of the API key in the system keyring")
    figure_mode: FigureMode | None = Field(default=None, description="LLM engines: how figures are chosen (default hybrid)")
    llm_mode: LlmMode | None = Field(
        default=None, description="LLM engines: grounded (write from checked evidence, default) or full (whole-document prompt)"
    )
    max_tokens: int | None = Field(default=None, ge=1, description="tokens for the answer (default 1024)")
    temperature: float | None = Field(default=None, ge=0.0, le=2.0, description="sampling temperature")
    ocr: bool | None = Field(default=None, description="read text in figures")
    grammar: bool = Field(default=True, description="llama: constrain the answer to JSON")
    allow_insecure_key: bool = Field(
        default=False, description="openai: send the API key over plain http to a host that is not this computer "
        "(a trusted network only; a warning is printed)")

    def request(self) -> EngineChoice:
        """The choice itself (the benchmark suites call ``spec.request()``)."""
        return self


def settings_path() -> Path:
    return data_dir() / SETTINGS_NAME


def load_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """The saved settings, or the defaults when there is no file yet.

    A key the schema does not know is dropped with a :class:`SettingsWarning` naming it and the key it was
    probably meant to be; an old key is moved to its place with a note (:func:`migrate_settings`). The
    warnings go through ``messages.notify``: stderr in the CLI, the banner in the window."""
    target = Path(path) if path is not None else settings_path()
    try:
        # a regular file of bounded size and nesting: a FIFO is not opened to block, deep JSON is one line
        data = read_json_file(target, "settings file")
    except InputNotFoundError:
        return Settings()
    except ConfigFileError as error:
        raise SettingsError(f"the settings file is invalid: {error}") from error
    if not isinstance(data, dict):
        raise SettingsError(f"the settings file {target} is invalid: it holds no JSON object")
    data, notes = migrate_settings(data)
    told = f"settings file {target}: " + "; ".join(notes)
    # one notice for the whole file (the window's banner shows one message), said once per process: the
    # window reloads the settings before every job
    if notes and told not in _told:
        _told.add(told)
        notify(told + ".", category=SettingsWarning)
    try:
        return Settings.model_validate(data)
    except ValidationError as error:
        # the key, the value and what is allowed ("setting engines.llama.n_threads: Input should be a valid
        # integer (got 'many')"), never only "1 validation error for Settings"
        raise SettingsError(f"the settings file {target} is invalid: {describe_error(error, Settings, 'setting')}") \
            from error


_told: set[str] = set()  # settings notices already given in this process

# Keys of earlier versions and other spellings, by their dotted place in the file → where they live now.
# (The file's keys have not been renamed since format 1; these are the command line's names of the
# same settings, which people write into the file: --grammar/--no-grammar, --api-model.)
RENAMED: dict[str, str] = {
    "engines.llama.grammar": "engines.llama.constrained",
    "engines.grammar": "engines.llama.constrained",
    "engines.api_model": "engines.openai.model",
    "engines.openai.api_model": "engines.openai.model",
}


def _section_models() -> dict[str, type[BaseModel]]:
    return {"": Settings, "engines": EngineSettings, "engines.llama": LlamaSettings,
            "engines.openai": OpenAISettings, "placement": PlacementSettings}


def _leaf_places() -> dict[str, list[str]]:
    """Each setting's name → the dotted places it has (``n_gpu_layers`` → ``engines.llama.n_gpu_layers``)."""
    places: dict[str, list[str]] = {}
    for section, model in _section_models().items():
        for name in model.model_fields:
            if f"{section}.{name}".lstrip(".") not in _section_models():
                places.setdefault(name, []).append(f"{section}.{name}".lstrip("."))
    return places


def migrate_settings(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The settings file's JSON as the current schema reads it, and a note per change:

    - a key of an earlier version or the command line's name for a setting (:data:`RENAMED`) moves to its
      place ("engines.llama.grammar is now engines.llama.constrained");
    - a setting written at the wrong level whose name has one place in the schema (``"n_gpu_layers"`` at
      the top, as ``docs/gpu.md`` names it) moves there;
    - any other unknown key is dropped, named with the known key it was probably meant to be.
    A key already set at its new place keeps that value. Never raises: values are checked by the schema."""
    notes: list[str] = []
    sections = _section_models()
    leaves = _leaf_places()
    moved: list[tuple[str, str, Any]] = []

    def clean(section: str, raw: dict[str, Any]) -> dict[str, Any]:
        model = sections[section]
        kept: dict[str, Any] = {}
        for key, value in raw.items():
            place = f"{section}.{key}".lstrip(".")
            if key in model.model_fields:
                kept[key] = clean(place, value) if place in sections and isinstance(value, dict) else value
            elif place in RENAMED:
                moved.append((place, RENAMED[place], value))
            elif len(leaves.get(key, [])) == 1:
                moved.append((place, leaves[key][0], value))
            else:
                guess = _nearest_place(section, key, leaves)
                hint = f" (did you mean {guess}?)" if guess else ""
                notes.append(f"unknown setting {place!r} ignored{hint}")
        return kept

    result = clean("", data)
    for old, new, value in moved:
        *parents, name = new.split(".")
        target: Any = result
        for parent in parents:
            target = target.setdefault(parent, {})
            if not isinstance(target, dict):
                break  # the section itself is not an object: the schema reports it
        if not isinstance(target, dict) or name in target:
            notes.append(f"{old} ignored: {new} is set too (remove {old})")
        else:
            target[name] = value
            notes.append(f"{old} is now {new}: moved (saving the settings writes it there)")
    if isinstance(result.get("format"), int) and result["format"] > SETTINGS_FORMAT:
        notes.append(f"written by a newer mmdocsum (format {result['format']}); settings it added are ignored")
    result["format"] = SETTINGS_FORMAT
    return result, notes


def _nearest_place(section: str, key: str, leaves: dict[str, list[str]]) -> str | None:
    """The known key ``key`` was probably meant to be: a close name in the same section, else anywhere."""
    model = _section_models()[section]
    same = difflib.get_close_matches(key, list(model.model_fields), n=1, cutoff=0.6)
    if same:
        return f"{section}.{same[0]}".lstrip(".")
    anywhere = difflib.get_close_matches(key, list(leaves), n=1, cutoff=0.75)
    return " or ".join(leaves[anywhere[0]]) if anywhere else None


def save_settings(settings: Settings, path: str | os.PathLike[str] | None = None) -> Path:
    target = Path(path) if path is not None else settings_path()
    return write_text_atomic(target, settings.model_dump_json(indent=2) + "\n")


# ------------------------------------------------------------------------------------------- secrets
#
# API keys live in the system keyring. Where there is none (a headless Linux without a Secret Service,
# ``PYTHON_KEYRING_BACKEND=keyring.backends.fail.Keyring``), a key the user gives is kept in this
# process's memory for the session only: never written to a file, forgotten when the app exits.

KeyStore = Literal["keyring", "session"]

_session_keys: dict[str, str] = {}
_session_lock = threading.Lock()


def get_api_key(key_name: str) -> str:
    """The API key stored in the system keyring under ``key_name``; a clear SecretError otherwise.

    With no keyring backend: the key given earlier in this session (Settings, or typed at the terminal
    prompt of the command line), else a SecretError that says there is no keyring."""
    protect_secrets_in_memory()
    keyring, errors = _keyring()
    try:
        value = keyring.get_password(KEYRING_SERVICE, key_name)
    except errors.NoKeyringError as error:
        with _session_lock:
            value = _session_keys.get(key_name)
        if value:
            return value
        value = _prompt_for_session_key(key_name, error)
        if value:
            return value
        raise SecretError(_no_backend_message(error)) from error
    except errors.KeyringError as error:
        raise SecretError(f"the system keyring failed to read the key {key_name!r}: {error}") from error
    if not value:
        raise SecretError(
            f"no API key named {key_name!r} in the system keyring; store it with: "
            f"python -m keyring set {KEYRING_SERVICE} {key_name}"
        )
    return str(value)


def set_api_key(key_name: str, value: str) -> KeyStore:
    """Store the key in the system keyring ("keyring"); with no keyring backend, keep it in memory for
    this session only ("session": say so to the user, see :func:`session_only_message`)."""
    protect_secrets_in_memory()
    keyring, errors = _keyring()
    try:
        keyring.set_password(KEYRING_SERVICE, key_name, value)
    except errors.NoKeyringError:
        with _session_lock:
            _session_keys[key_name] = value
        return "session"
    except errors.KeyringError as error:
        raise SecretError(f"the system keyring failed to store the key {key_name!r}: {error}") from error
    with _session_lock:
        _session_keys.pop(key_name, None)
    return "keyring"


def delete_api_key(key_name: str) -> None:
    with _session_lock:
        _session_keys.pop(key_name, None)
    keyring, errors = _keyring()
    try:
        keyring.delete_password(KEYRING_SERVICE, key_name)
    except errors.PasswordDeleteError:
        pass
    except errors.NoKeyringError:
        pass  # nothing was ever stored outside this session


def keyring_available() -> bool:
    """Whether a system keyring backend is configured (False: keys are kept for the session only).
    Asks nothing of the keyring itself, so a locked keyring is not prompted to unlock."""
    try:
        keyring, _errors = _keyring()
        from keyring.backends import fail  # lazy, as in _keyring: its backends load system libraries
    except (SecretError, ImportError):
        return False
    try:
        return not isinstance(keyring.get_keyring(), fail.Keyring)
    except Exception:  # noqa: BLE001 — a backend that cannot even be loaded is no keyring
        return False


def protect_secrets_in_memory() -> None:
    """No core file can hold an API key: once this process handles a key, its core dumps are off (the
    soft RLIMIT_CORE goes to 0, as ssh-agent and gpg-agent do). A crash still gets faulthandler's
    tracebacks, which hold no values. Called where keys are read, stored or typed."""
    try:
        import resource  # here, not at the top: POSIX only
    except ImportError:  # not a POSIX system
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
        if soft != 0:
            resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    except (ValueError, OSError):
        pass


def has_session_key(key_name: str) -> bool:
    with _session_lock:
        return bool(_session_keys.get(key_name))


def forget_session_keys() -> None:
    with _session_lock:
        _session_keys.clear()


def session_only_message(key_name: str) -> str:
    return (
        f"No system keyring is available, so the API key {key_name!r} is kept in memory for this session "
        "only: it is not written anywhere and is forgotten when mmdocsum exits. To keep it, start a Secret "
        "Service (GNOME Keyring, KWallet) or install a keyring backend."
    )


def _keyring() -> tuple[Any, Any]:
    """The keyring module and its errors (imported when a key is first needed: its backends load system
    libraries)."""
    try:
        import keyring  # its backends load system libraries (D-Bus, Keychain): only when a key is used
        import keyring.errors  # with keyring, above
    except ImportError as error:
        raise SecretError("API keys are kept in the system keyring: pip install keyring") from error
    return keyring, keyring.errors


def _no_backend_message(error: Exception) -> str:
    return (
        "no system keyring is available to hold the API key (on Linux, start a Secret Service such as "
        "GNOME Keyring or KWallet, or install a keyring backend); keys are never stored in files. Without a "
        "keyring, a key typed in Settings (or at the prompt of mmdocsum run in a terminal) is kept for that "
        f"session only [{type(error).__name__}]"
    )


def _prompt_for_session_key(key_name: str, error: Exception) -> str | None:
    """The command line in a terminal asks for the key (not echoed) and keeps it for this run only.
    Never from the desktop app (Qt loaded), a worker thread, or without a terminal."""
    if not _may_prompt():
        return None
    print(f"mmdocsum: {_no_backend_message(error)}.", file=sys.stderr)
    try:
        value = getpass.getpass(f"API key {key_name!r} (kept for this run only, not saved): ", stream=sys.stderr)
    except (EOFError, KeyboardInterrupt, OSError):
        return None
    value = value.strip()
    if not value:
        return None
    with _session_lock:
        _session_keys[key_name] = value
    return value


def _may_prompt() -> bool:
    """Only the `mmdocsum` command (console script, frozen executable or ``python -m mmdocsum_desktop``)
    on its main thread, with a terminal, asks: never the desktop app, a test runner or a library user."""
    if "PySide6.QtWidgets" in sys.modules or threading.current_thread() is not threading.main_thread():
        return False
    entry = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path()
    if entry.stem != "mmdocsum" and not (entry.name == "__main__.py" and entry.parent.name == "mmdocsum_desktop"):
        return False
    try:
        return sys.stdin is not None and sys.stdin.isatty() and sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError, OSError):
        return False
