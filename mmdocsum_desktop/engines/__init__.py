"""Text generators behind one small protocol (:class:`engines.base.TextEngine`: ``stream``/``generate``
with cancellation through JobControl and token counts, ``count_tokens``, ``describe``, ``close``).

* ``llama.LlamaEngine(LlamaConfig(model=..., mmproj=...))`` — GGUF text or vision models (in this
  process); ``llama_process.LlamaProcessEngine`` runs one in a child process, as the app does;
* ``openai.OpenAIEngine(OpenAIConfig(base_url=..., ...))`` — any OpenAI-compatible endpoint;
* ``factory.build_engine(EngineChoice(...), settings.engines)`` — the one the user configured (None for
  ``extractive``: that summary needs no language model; summary strategies live in
  ``summarize.strategies``).

Heavy imports (llama_cpp) happen only when an engine is built.
"""
