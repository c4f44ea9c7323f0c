"""The model layer: which models exist (registry), where they run (devices), and the runtimes for
text embeddings (embed), OCR (ocr) and CLIP (clip).

Importing this package is cheap: onnxruntime, tokenizers, RapidOCR, huggingface_hub and torch are
imported only by the functions that need them, so the rest of the app works when one is missing.
"""
