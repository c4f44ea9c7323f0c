"""Messages in the OpenAI chat form, the one conversion used by the llama.cpp and the server engines.

llama-cpp-python's chat handlers and OpenAI-compatible servers read the same shape: a plain string
content for text-only messages, a list of ``text`` / ``image_url`` parts (images as data URLs) when the
engine can see and the message carries images.
"""

from __future__ import annotations

from typing import Any

from mmdocsum_desktop.engines.base import Message, image_data_url


def openai_chat_messages(
    messages: list[Message], *, with_images: bool, image_max_side: int
) -> list[dict[str, Any]]:
    """``messages`` as OpenAI chat dicts; images are inlined only when ``with_images`` (a vision engine)."""
    converted: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message.content, str) or not message.images or not with_images:
            converted.append({"role": message.role, "content": message.text})
            continue
        parts: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, str):
                if part:
                    parts.append({"type": "text", "text": part})
            else:
                parts.append(
                    {"type": "image_url", "image_url": {"url": image_data_url(part.path, image_max_side)}}
                )
        converted.append({"role": message.role, "content": parts})
    return converted
