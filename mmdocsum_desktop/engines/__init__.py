"""Summary engines behind one small protocol (:class:`engines.base.TextEngine`: ``stream``/``generate``
with cancellation through JobControl and token counts, ``count_tokens``, ``describe``, ``close``).

* ``extractive.ExtractiveEngine(embedder).draft(document)`` — no model file; the default;
* ``llama.LlamaEngine(LlamaConfig(model=..., mmproj=...))`` — GGUF text or vision models;
* ``openai.OpenAIEngine(OpenAIConfig(base_url=..., ...))`` — any OpenAI-compatible endpoint;
* ``factory.build_engine(EngineChoice(...), settings.engines, embedder=...)`` — the one the user configured.

Heavy imports (llama_cpp) happen only when an engine is built.
"""
