from tests.engines.conftest import smollm  # noqa: F401 — the SmolLM2 GGUF for the judge's command-line tests
