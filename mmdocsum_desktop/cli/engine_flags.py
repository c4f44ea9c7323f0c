"""The engine, judge and placement flags of every command, generated from the settings schema.

``mmdocsum summarize``, every ``mmdocsum bench`` suite and ``mmdocsum place`` take their model options
from here, so a field added to :class:`~mmdocsum_desktop.schemas.settings.EngineChoice` or
:class:`~mmdocsum_desktop.schemas.settings.PlacementSettings` is one flag in one place (a test checks that each
field has its flag). The help texts are the schema's field descriptions.
"""

from __future__ import annotations

import argparse
import sys
import types
import typing
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from mmdocsum_desktop.schemas.settings import (
    ENGINES,
    FIGURE_MODES,
    JUDGE_ENGINES,
    LLM_MODES,
    EngineChoice,
    PlacementSettings,
)

# field of EngineChoice → its flag (the names the commands have always had)
ENGINE_FLAGS: dict[str, str] = {
    "engine": "--engine",
    "model": "--model",
    "mmproj": "--mmproj",
    "n_ctx": "--n-ctx",
    "n_threads": "--threads",
    "n_gpu_layers": "--gpu-layers",
    "base_url": "--base-url",
    "api_model": "--api-model",
    "key_name": "--api-key-name",
    "figure_mode": "--figure-mode",
    "llm_mode": "--llm-mode",
    "max_tokens": "--max-tokens",
    "temperature": "--temperature",
    "ocr": "--figure-text",  # and --no-figure-text; --ocr is its old, deprecated spelling
    "grammar": "--no-grammar",  # on by default: the flag turns it off
    "allow_insecure_key": "--allow-insecure-key",
}
# the judge is an EngineChoice too, with fewer knobs: --judge ENGINE, --judge-model, ...
JUDGE_FIELDS = ("engine", "model", "base_url", "api_model", "key_name", "n_ctx")
PLACEMENT_FLAGS: dict[str, str] = {"ocr": "--no-figure-text", "clip": "--clip"}

_CHOICES: dict[str, tuple[str, ...]] = {"engine": ENGINES, "figure_mode": FIGURE_MODES, "llm_mode": LLM_MODES}


def _value_type(field: str, model: type[BaseModel] = EngineChoice) -> type:
    """int, float or str: the field's type without its None."""
    annotation = model.model_fields[field].annotation
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    return int if annotation is int else float if annotation is float else str


def _help(field: str, model: type[BaseModel] = EngineChoice) -> str:
    return model.model_fields[field].description or field.replace("_", " ")


def _dest(field: str, prefix: str) -> str:
    if prefix and field == "engine":
        return prefix.rstrip("_")
    return prefix + field


def add_engine_arguments(parser: argparse.ArgumentParser | Any, *, title: str | None = None) -> None:
    """The engine flags, each defaulting to None ("take the setting")."""
    group = parser.add_argument_group(title) if title else parser
    for field, flag in ENGINE_FLAGS.items():
        dest = _dest(field, "")
        if field == "ocr":
            group.add_argument("--figure-text", dest=dest, action="store_true", default=None, help=_help(field))
            group.add_argument("--no-figure-text", dest=dest, action="store_false", help="do not read text in figures")
            group.add_argument("--ocr", dest=dest, action=_DeprecatedFigureText, help=argparse.SUPPRESS)
            group.add_argument("--no-ocr", dest=dest, action=_NoOcr, help=_NO_OCR_HELP)
        elif field == "grammar":
            group.add_argument(flag, dest=dest, action="store_false", default=True,
                               help="llama: do not constrain the answer to JSON")
        elif field == "allow_insecure_key":
            group.add_argument(flag, dest=dest, action="store_true", default=False, help=_help(field))
        elif field == "engine":
            group.add_argument(flag, dest=dest, choices=ENGINES, default="auto", help=_help(field))
        else:
            group.add_argument(flag, dest=dest, type=_value_type(field), choices=_CHOICES.get(field),
                               default=None, help=_help(field))


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """--judge llama|openai and --judge-model, --judge-base-url, ... (None: no judge)."""
    group = parser.add_argument_group("judge (a language model that scores what rules cannot)")
    for field in JUDGE_FIELDS:
        flag = "--judge" if field == "engine" else "--judge-" + ENGINE_FLAGS[field].removeprefix("--")
        if field == "engine":
            group.add_argument(flag, dest="judge", choices=JUDGE_ENGINES, default=None,
                               help="engine of the judge; without it, judge-based metrics are reported as absent")
        else:
            group.add_argument(flag, dest=_dest(field, "judge_"), type=_value_type(field), default=None,
                               help="judge: " + _help(field))


def add_placement_arguments(parser: argparse.ArgumentParser) -> None:
    """--figure-text / --no-figure-text, --no-ocr and --clip NAME, over the placement settings."""
    parser.add_argument("--figure-text", dest="placement_ocr", action="store_true", default=None,
                        help="read the text inside images (OCR) to match them (off by default: slower, no better "
                             "on the benchmark papers)")
    parser.add_argument("--no-figure-text", dest="placement_ocr", action="store_false", default=None,
                        help="do not read the text inside images")
    parser.add_argument("--no-ocr", dest="placement_ocr", action=_NoOcr, help=_NO_OCR_HELP)
    parser.add_argument("--clip", dest="placement_clip", metavar="NAME", default=None,
                        help=_help("clip", PlacementSettings))


# "OCR" means one thing on the command line: running text recognition. Scanned pages are read with it
# wherever a document is read; --no-ocr turns it off everywhere (a scanned PDF is then refused, and text in
# figures is not read). Text in figures alone is --figure-text/--no-figure-text (once --ocr).
_NO_OCR_HELP = ("no OCR at all: a scanned PDF (no text layer) is refused instead of read with OCR, and the text "
                "in figures is not read")


class _NoOcr(argparse.Action):
    """--no-ocr: figure text off (this flag's ``dest``) and ``no_ocr`` set for the document reader."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.pop("nargs", None)
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, False)
        namespace.no_ocr = True


class _DeprecatedFigureText(argparse.Action):
    """The old --ocr (read text in figures): still works, and says what it is called now."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.pop("nargs", None)
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print("mmdocsum: note: --ocr is deprecated; it is now --figure-text (text in figures). Scanned pages "
              "are always read with OCR; --no-ocr turns OCR off.", file=sys.stderr)
        setattr(namespace, self.dest, True)


def wants_ocr(args: argparse.Namespace) -> bool:
    """Whether scanned pages are read with OCR: yes unless --no-ocr was given."""
    return not getattr(args, "no_ocr", False)


def engine_choice(args: argparse.Namespace) -> EngineChoice:
    """The EngineChoice of the parsed engine flags; a value out of range is a one-line error."""
    return _validated({field: getattr(args, _dest(field, "")) for field in ENGINE_FLAGS}, "--")


def judge_choice(args: argparse.Namespace) -> EngineChoice | None:
    """The judge's EngineChoice, or None when no --judge was given (its other flags need it)."""
    if args.judge is None:
        if args.judge_model or args.judge_base_url:
            raise SystemExit("mmdocsum: error: --judge-model/--judge-base-url need --judge llama|openai")
        return None
    return _validated({field: getattr(args, _dest(field, "judge_")) for field in JUDGE_FIELDS}, "--judge-")


def _validated(values: dict[str, Any], prefix: str) -> EngineChoice:
    try:
        return EngineChoice(**values)
    except ValidationError as error:
        first = error.errors()[0]
        field = str(first["loc"][0]) if first.get("loc") else ""
        flag = prefix + ENGINE_FLAGS.get(field, field).removeprefix("--") if field else "a flag"
        raise SystemExit(f"mmdocsum: error: {flag}: {first.get('msg', 'invalid value')}") from None


def placement_settings(args: argparse.Namespace, saved: PlacementSettings) -> PlacementSettings:
    """The saved placement settings with the flags given on top."""
    update = {field: getattr(args, "placement_" + field) for field in PLACEMENT_FLAGS}
    return saved.model_copy(update={k: v for k, v in update.items() if v is not None})
