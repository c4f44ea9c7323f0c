"""The prompts: the document as Markdown with each image introduced by its index tag ([Image 3]), the
task (four paragraphs, one image or "None" each, with a caption that says why), and the prompts of the
long-document path (notes on each part, then notes of notes).

Prompt texts live in ``mmdocsum_desktop/resources/prompts/*.txt`` (``string.Template`` syntax, ``${name}``),
written for this project. Images are shown to vision models at their tag and described to text models by
label, caption and, when read, the text found in them by OCR.
"""

from __future__ import annotations

import os
import random
import string
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from mmdocsum_desktop.engines.base import ImagePart, Message
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.schemas.document import Document, Figure
from mmdocsum_desktop.schemas.summary import ROLE_TITLES
from mmdocsum_desktop.summarize.roles import section_role

PROMPT_FILES = ("system", "summarize", "section_notes", "merge_notes", "grounded_system", "grounded_paragraph",
                "grounded_sentence_system", "grounded_sentence")
# The worked example of the sentence-by-sentence writer (written for this project, not from a paper):
# a small model imitates one shown answer far better than it follows a described one.
SHORTEN_EXAMPLE = (
    "After twelve weeks, the mice that received the compound (10 mg/kg, n = 8) gained 35% less weight than "
    "the untreated control group, as shown in Figure 2.",
    "After twelve weeks, mice given the compound gained 35% less weight than untreated controls.",
)
# What each paragraph of the grounded writer is for (its prompt names it).
ROLE_AIMS = {
    "background": "the problem the paper addresses, why it matters and what was not known",
    "method": "what the authors did and how",
    "results": "the main findings, with their key numbers",
    "conclusion": "what the findings mean and what follows from them",
}
OCR_CHARS = 300  # of OCR text per image in a text-only prompt
CAPTION_CHARS = 600
SUMMARY_CHARS = 1000  # 120 words of English are about 750 characters; the grammar stops runaway text
IMAGE_CAPTION_CHARS = 300


def prompt_dir() -> Path:
    """``MMDOCSUM_PROMPTS`` if set, else the prompts shipped inside the package (found through
    importlib.resources, so an installed wheel and a frozen bundle find them as a checkout does)."""
    override = os.environ.get("MMDOCSUM_PROMPTS")
    if override:
        return Path(override)
    return Path(str(resources.files("mmdocsum_desktop") / "resources" / "prompts"))


@cache
def _load(folder: str, name: str) -> string.Template:
    path = Path(folder) / f"{name}.txt"
    try:
        return string.Template(path.read_text(encoding="utf-8").strip())
    except OSError as error:
        raise MmdocsumError(f"the prompt file {path} is missing ({error}); reinstall mmdocsum-desktop") from error


def load_prompt(name: str) -> string.Template:
    if name not in PROMPT_FILES:
        raise KeyError(name)
    return _load(str(prompt_dir()), name)


# ------------------------------------------------------------------------------------------- images


@dataclass(frozen=True)
class ImageSlot:
    """One image as the model sees it: ``tag`` is the 1-based number in the prompt; ``candidate`` the
    index into the pipeline's candidate list (document order). They differ when images are shuffled."""

    tag: int
    candidate: int
    label: str | None
    caption: str
    kind: str = "figure"
    image: str | None = None
    ocr_text: str | None = None
    source_id: str | None = None

    def description(self, *, with_ocr: bool = True) -> str:
        parts = [f"[Image {self.tag}]"]
        caption = " ".join(self.caption.split())
        if self.label and not caption.lower().startswith(self.label.lower().split()[0][:3]):
            parts.append(f"{self.label}:")
        if caption:
            parts.append(_clip(caption, CAPTION_CHARS))
        elif self.label:
            parts.append("(no caption)")
        else:
            parts.append(f"(an unlabelled {self.kind} without caption)")
        if with_ocr and self.ocr_text and self.ocr_text.strip():
            parts.append(f"Text in the image: {_clip(' '.join(self.ocr_text.split()), OCR_CHARS)}")
        return " ".join(parts)


def make_slots(candidates: list[Any], shuffle_seed: int | None = None) -> list[ImageSlot]:
    """Slots for placement candidates (``ImageCandidate``), optionally in a shuffled order."""
    order = list(range(len(candidates)))
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(order)
    slots = []
    for position, index in enumerate(order):
        candidate = candidates[index]
        slots.append(
            ImageSlot(
                tag=position + 1,
                candidate=index,
                label=getattr(candidate, "label", None),
                caption=getattr(candidate, "caption", "") or "",
                kind=getattr(candidate, "kind", "figure") or "figure",
                image=getattr(candidate, "image", None),
                ocr_text=getattr(candidate, "ocr_text", None),
                source_id=getattr(candidate, "source_id", None),
            )
        )
    return slots


# ----------------------------------------------------------------------------------------- document


@dataclass
class Segment:
    """A piece of the document in reading order: Markdown text, then the images that follow it."""

    section: str | None
    text: str
    images: list[ImageSlot] = field(default_factory=list)
    omitted: bool = False


def document_segments(document: Document, slots: list[ImageSlot], *, include_abstract: bool = True) -> tuple[list[Segment], list[str]]:
    """The document as segments (one per section), plus notes on what was deliberately left out.

    Captions are not repeated as text (each image's tag line carries its caption); reference lists,
    acknowledgements and similar back matter are left out and reported.
    """
    visuals: dict[str, Figure] = {v.id: v for v in document.visuals}
    block_position = {b.id: i for i, b in enumerate(document.blocks)}
    anchor: dict[int, list[ImageSlot]] = {}
    trailing: list[ImageSlot] = []
    last_on_page: dict[int, int] = {}
    for i, block in enumerate(document.blocks):
        if block.page is not None:
            last_on_page[block.page] = i
    for slot in sorted(slots, key=lambda s: s.candidate):
        visual = visuals.get(slot.source_id or "")
        position = None
        if visual is not None:
            if visual.caption_block and visual.caption_block in block_position:
                position = block_position[visual.caption_block]
            elif visual.page is not None and visual.page in last_on_page:
                position = last_on_page[visual.page]
        if position is None:
            trailing.append(slot)
        else:
            anchor.setdefault(position, []).append(slot)

    segments: list[Segment] = []
    omitted: list[str] = []
    current = Segment(section=None, text="")
    lines: list[str] = []

    def flush() -> None:
        nonlocal current, lines
        current.text = "\n\n".join(lines).strip()
        if current.text or current.images:
            segments.append(current)
        lines = []

    skipping = False
    for i, block in enumerate(document.blocks):
        if block.is_abstract and not include_abstract and block.type == "heading":
            pass
        elif block.type == "heading":
            flush()
            skipping = section_role(block.text) == "skip"
            current = Segment(section=block.text, text="", omitted=skipping)
            if skipping:
                omitted.append(block.text.strip()[:60])
            else:
                lines.append(f"## {' '.join(block.text.split())}")
        elif not skipping and block.type in ("paragraph", "list", "equation") and not block.is_translation:
            if block.is_abstract and not include_abstract:
                pass
            else:
                text = " ".join(block.text.split()) if block.type != "list" else block.text.strip()
                if text:
                    lines.append(text)
        for slot in anchor.get(i, []):  # an image follows the block of its caption
            if skipping:
                trailing.append(slot)  # never lose an image with the back matter
                continue
            current.images.append(slot)
            lines.append(_image_marker(slot))
    flush()
    if trailing:
        segments.append(Segment(section=None, text="\n\n".join(_image_marker(s) for s in trailing), images=list(trailing)))
    segments = [s for s in segments if not s.omitted]
    return segments, omitted


_MARKER = "\x00IMG{}\x00"


def _image_marker(slot: ImageSlot) -> str:
    return _MARKER.format(slot.tag)


def render_segments(
    segments: list[Segment], *, vision: bool, with_ocr: bool = True
) -> list[str | ImagePart]:
    """Text and images for a message: each image marker becomes the image's tag line (and, for a vision
    model, the image itself right after its tag)."""
    by_tag = {slot.tag: slot for segment in segments for slot in segment.images}
    text = "\n\n".join(s.text for s in segments if s.text)
    return expand_markers(text, by_tag, vision=vision, with_ocr=with_ocr)


def expand_markers(text: str, by_tag: dict[int, ImageSlot], *, vision: bool, with_ocr: bool = True) -> list[str | ImagePart]:
    parts: list[str | ImagePart] = []
    pieces = text.split("\x00")
    # pieces alternate: text, "IMG<n>", text, ...
    buffer = ""
    for k, piece in enumerate(pieces):
        if k % 2 == 1 and piece.startswith("IMG"):
            slot = by_tag.get(int(piece[3:]))
            if slot is None:
                continue
            if vision and slot.image:
                buffer += f"[Image {slot.tag}]"
                parts.append(buffer)
                buffer = ""
                parts.append(ImagePart(Path(slot.image), label=slot.label or ""))
                buffer += "\n" + slot.description(with_ocr=False)[len(f"[Image {slot.tag}] "):]
            else:
                buffer += slot.description(with_ocr=with_ocr)
        else:
            buffer += piece
    if buffer:
        parts.append(buffer)
    return parts


def plain_text(parts: list[str | ImagePart]) -> str:
    return "".join(p for p in parts if isinstance(p, str))


def image_list(slots: list[ImageSlot], *, vision: bool, with_ocr: bool = True) -> list[str | ImagePart]:
    """All images, one per line, in tag order (for the final prompt of the long-document path)."""
    text = "\n".join(_image_marker(slot) for slot in sorted(slots, key=lambda s: s.tag))
    return expand_markers(text, {s.tag: s for s in slots}, vision=vision, with_ocr=with_ocr)


# ------------------------------------------------------------------------------------------ messages


def system_message() -> Message:
    return Message("system", load_prompt("system").substitute())


def summary_messages(
    content: list[str | ImagePart], *, title: str | None, image_count: int, with_ocr: bool, intro: str | None = None
) -> list[Message]:
    template = load_prompt("summarize")
    before, marker, after = template.safe_substitute(
        image_count=str(image_count),
        ocr_note=" and any text read from it" if with_ocr else "",
        title_line=f" ({title.strip()})" if title and title.strip() else "",
        document="\x01",
    ).partition("\x01")
    if intro:
        before = before.replace("Below is a document converted to Markdown.", intro, 1)
    parts: list[str | ImagePart] = [before, *content, after] if marker else [before]
    return [system_message(), Message("user", _merge_strings(parts))]


def notes_messages(
    content: list[str | ImagePart], *, part: int, parts: int, title: str | None, note_words: int
) -> list[Message]:
    template = load_prompt("section_notes")
    before, _, after = template.safe_substitute(
        part=str(part), parts=str(parts), note_words=str(note_words),
        title_line=f" ({title.strip()})" if title and title.strip() else "", document="\x01",
    ).partition("\x01")
    return [system_message(), Message("user", _merge_strings([before, *content, after]))]


def merge_messages(notes: str, *, title: str | None, note_words: int) -> list[Message]:
    text = load_prompt("merge_notes").substitute(
        note_words=str(note_words), title_line=f" ({title.strip()})" if title and title.strip() else "", document=notes
    )
    return [system_message(), Message("user", text)]


def grounded_messages(evidence: Any, *, title: str | None, words: int, sentences: str = "2 or 3") -> list[Message]:
    """The grounded writer's short prompt for one paragraph: the numbered evidence sentences and the
    paragraph's aim (pages stay out: a small model copies "p. 3" into its sentences). ``evidence`` is a
    summarize.evidence.ParagraphEvidence.

    The system message and the title line come first and are the same for the four paragraphs, so an
    engine that keeps its evaluated prompt reads them once per summary."""
    lines = [f"[{item.number}] {item.text}" for item in evidence.items]
    text = load_prompt("grounded_paragraph").substitute(
        title_line=f": {' '.join(title.split())}" if title else "",
        evidence="\n".join(lines),
        role_title=ROLE_TITLES.get(evidence.role, evidence.role).lower(),
        aim=ROLE_AIMS.get(evidence.role, evidence.role),
        words=words,
        sentences=sentences,
    )
    return [Message("system", load_prompt("grounded_system").substitute()), Message("user", text)]


def sentence_messages(sentence: str) -> list[Message]:
    """The sentence-by-sentence writer's prompt: shorten one evidence sentence. Everything before the
    sentence (system message and the worked example) is the same for every call, so an engine that keeps
    its evaluated prompt reads it once per summary and then only the sentence."""
    template = load_prompt("grounded_sentence")
    example, answer = SHORTEN_EXAMPLE
    return [Message("system", load_prompt("grounded_sentence_system").substitute()),
            Message("user", template.substitute(sentence=example)), Message("assistant", answer),
            Message("user", template.substitute(sentence=" ".join(sentence.split())))]


def _merge_strings(parts: list[str | ImagePart]) -> str | list[str | ImagePart]:
    merged: list[str | ImagePart] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] = merged[-1] + part
        elif part != "":
            merged.append(part)
    if all(isinstance(p, str) for p in merged):
        return "".join(p for p in merged if isinstance(p, str))
    return merged


def answer_schema(image_count: int) -> dict[str, Any]:
    """JSON schema of M-DocSum's answer; with a grammar, image references can only be valid tags."""
    refs = ["None", *[str(i) for i in range(1, image_count + 1)]]
    return {
        "type": "array",
        "minItems": 4,
        "maxItems": 4,
        "items": {
            "type": "object",
            "properties": {
                "summary": {"type": "string", "maxLength": SUMMARY_CHARS},
                "image": {
                    "type": "object",
                    "properties": {
                        "imageRef": {"type": "string", "enum": refs},
                        "imageCaption": {"type": "string", "maxLength": IMAGE_CAPTION_CHARS},
                    },
                    "required": ["imageRef", "imageCaption"],
                },
            },
            "required": ["summary", "image"],
        },
    }


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
