"""The typed doors of the application layer: how a front end turns what a person typed into a request.

Every request and options model of ``app/`` forbids unknown fields and spells its modes as ``Literal``s,
so ``include_abstact=False`` or ``llm_mode="nonsense"`` is refused where it is built instead of being
ignored. :func:`build` is how the CLI, the window and the benchmarks build them: a value a person gave
that does not fit becomes one :class:`OptionsError` line (exit code 2 in the CLI) naming the field and,
for a misspelled one, the field it was probably meant to be.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from mmdocsum_desktop.errors import MmdocsumError

ModelT = TypeVar("ModelT", bound=BaseModel)


class OptionsError(MmdocsumError):
    """A request or options value that does not fit its model (a misspelled name, a mode that does not
    exist, a number out of range)."""


def nearest(name: str, known: Iterable[str]) -> str | None:
    """The known name ``name`` was probably meant to be (difflib's closest, or None)."""
    found = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return found[0] if found else None


def describe_error(error: ValidationError, model: type[BaseModel], what: str,
                   labels: Mapping[str, str] | None = None) -> str:
    """The first problem of ``error`` as one line: "unknown summary option 'include_abstact' (did you mean
    'include_abstract'?)", "summary option llm_mode: Input should be 'grounded' or 'full' (got 'nonsense')".
    ``labels`` names fields as the person set them (a command-line flag for a field)."""
    problem = error.errors()[0]
    location = ".".join(str(part) for part in problem["loc"])
    location = (labels or {}).get(location, location)
    if problem["type"] == "extra_forbidden":
        guess = nearest(str(problem["loc"][-1]), model.model_fields)
        hint = f" (did you mean {guess!r}?)" if guess else f" (known: {', '.join(sorted(model.model_fields))})"
        return f"unknown {what} {location!r}{hint}"
    return f"{what} {location}: {problem['msg']} (got {problem.get('input')!r})"


def build(model: type[ModelT], values: Mapping[str, object] | None = None, *, what: str = "option",
          labels: Mapping[str, str] | None = None) -> ModelT:
    """``model`` from ``values``; an :class:`OptionsError` of one line when they do not fit."""
    try:
        return model.model_validate(dict(values or {}))
    except ValidationError as error:
        raise OptionsError(describe_error(error, model, what, labels)) from None


__all__ = ["OptionsError", "build", "describe_error", "nearest"]
