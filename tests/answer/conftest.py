from tests.engines.conftest import smollm  # noqa: F401 — the real SmolLM2 GGUF
from tests.retrieval.conftest import retriever  # noqa: F401 — real MiniLM + cross-encoder
