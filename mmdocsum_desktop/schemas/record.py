"""The base of the records a run keeps beside its result (repairs, engine descriptions, generations).

These records began as plain dicts, each producer writing the keys it knew. Typed, they keep that
shape in their JSON: an optional field nobody set is left out rather than written as ``null``, so the
files written now read like the files written before, and both load.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, SerializerFunctionWrapHandler, model_serializer


class Record(BaseModel):
    """A pydantic model whose JSON holds only the fields it was given (and any extra keys it allows)."""

    @model_serializer(mode="wrap")
    def _given_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        declared = type(self).model_fields
        return {key: value for key, value in data.items() if key in self.model_fields_set or key not in declared}


__all__ = ["Record"]
