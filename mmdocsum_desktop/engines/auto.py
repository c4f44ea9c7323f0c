"""Kept for the names older callers import: the engine factory is :mod:`mmdocsum_desktop.engines.factory`
and what a run asks for is :class:`mmdocsum_desktop.settings.EngineChoice` (``EngineRequest`` is that
same class)."""

from __future__ import annotations

from mmdocsum_desktop.engines.factory import ENGINES, build_engine, choose_engine_name
from mmdocsum_desktop.settings import EngineChoice

EngineRequest = EngineChoice

__all__ = ["ENGINES", "EngineRequest", "build_engine", "choose_engine_name"]
