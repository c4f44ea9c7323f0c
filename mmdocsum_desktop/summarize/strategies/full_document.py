"""The full-document summary: a language model answers the summary prompt (:mod:`summarize.prompt`) over
the whole document — in one pass when it fits the context, otherwise notes on each part, then notes of
the notes (as many levels as needed), then the answer from the notes; never a silent cut. The answer is
parsed tolerantly (:func:`parse.parse_answer`, recording format issues, rule breaks and its repairs); a
paragraph the model did not write (or wrote twice) is filled with extracted sentences, and that is
recorded.

Figures: the placement engine's global assignment over the paragraphs. ``hybrid`` (default): the
model's valid proposals enter the assignment as a bonus signal and the scorer decides; ``model``: the
model's valid choices are kept and only broken ones (out of range, used twice, missing) are repaired by
the global assignment; ``placement``: the model's proposals are ignored. Every change is recorded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mmdocsum_desktop.engines.base import MODEL_CALL_PHASES, GenerationOptions, Message, TextEngine
from mmdocsum_desktop.errors import EngineError, SummaryCancelled
from mmdocsum_desktop.jobs import JobControl, nested_control
from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.summary import (
    ROLES,
    FigureChoice,
    FigureEntry,
    GenerationRecord,
    LongDocumentRecord,
    NoFigure,
    ParseRecord,
    Repair,
    SummaryOptions,
    SummaryParagraph,
)
from mmdocsum_desktop.summarize import prompt as prompts
from mmdocsum_desktop.summarize.extractive import DraftParagraph, Extractor
from mmdocsum_desktop.summarize.sentences import Embedder, Sentence, split_sentences
from mmdocsum_desktop.summarize.strategies.base import Draft, LanguageModelText, SummaryContext
from mmdocsum_desktop.text.paragraphs import split_paragraphs
from mmdocsum_desktop.text.summary_parse import ParsedAnswer, ParsedParagraph, parse_answer

IMAGE_TOKENS = 300  # what one resized image costs a vision model's context, roughly
MESSAGE_OVERHEAD = 12  # chat-template tokens per message
MAX_NOTE_LEVELS = 6


class FullDocumentStrategy(LanguageModelText):
    name = "full"
    cites_itself = False

    def __init__(self, engine: TextEngine, embedder: Embedder | None) -> None:
        self.engine = engine
        self.embedder = embedder  # extracted sentences for a paragraph the model did not write; captions

    def write(self, context: SummaryContext) -> Draft:
        document, slots, options = context.document, context.slots, context.options
        with_ocr = context.with_figure_text and any((s.ocr_text or "").strip() for s in slots)
        raw_answer, run, long_record, warnings = llm_answer(self.engine, document, slots, options, context.control,
                                                            with_ocr=with_ocr, on_text=context.on_text)
        parsed = parse_answer(raw_answer, len(slots))
        paragraphs, sources, repairs = _paragraphs_from_answer(parsed, document, self.embedder, options,
                                                               context.control)
        draft = Draft(paragraphs=paragraphs, sources=sources, warnings=warnings, repairs=repairs,
                      generations=run.generations, parse=ParseRecord.model_validate(parsed.to_json()),
                      long_document=None if long_record is None else LongDocumentRecord.model_validate(long_record),
                      raw_answer=raw_answer)
        for i, p in enumerate(parsed.paragraphs):
            if p.image_status == "ok" and p.image is not None:
                draft.proposals[i] = slots[p.image - 1].candidate  # tag → document order
                paragraphs[i].proposed_image = draft.proposals[i] + 1
                paragraphs[i].image_caption = p.caption
            elif p.rule_broken:
                draft.broken[i] = _rule_text(p)
        return draft

    def choose_figures(self, draft: Draft, entries: list[FigureEntry], context: SummaryContext) -> list[Repair]:
        repairs = choose_figures(draft.paragraphs, context.candidates, entries, mode=context.options.figure_mode,
                                 proposals=draft.proposals, broken=draft.broken, embedder=self.embedder,
                                 ocr=context.ocr, threshold=context.options.placement_threshold,
                                 control=context.control)
        for paragraph in draft.paragraphs:
            if paragraph.figure is None:
                paragraph.no_figure = NoFigure(kind="no_text" if paragraph.source == "absent"
                                               else "no_match" if context.candidates else "document_has_none")
        return repairs


def _figure_choice(entries: list[FigureEntry], index: int, score: float, chosen_by: str,
                   signals: dict | None = None) -> FigureChoice:
    return FigureChoice.of(entries[index], score=score, chosen_by=chosen_by, signals=signals)


# ------------------------------------------------------------------------------------------ figures


def place_figures(
    texts: list[str],
    candidates: list[Any],
    *,
    embedder: Embedder | None,
    ocr: Any,
    proposals: dict[int, int] | None,
    threshold: float | None,
    control: JobControl,
) -> list[Any]:
    engine = PlacementEngine(embedder=embedder, ocr=ocr, clip=None, threshold=threshold)
    return engine.place(texts, candidates, strategy="global", proposals=proposals or None, control=control)


def choose_figures(
    paragraphs: list[SummaryParagraph],
    candidates: list[Any],
    entries: list[FigureEntry],
    *,
    mode: str,
    proposals: dict[int, int],
    broken: dict[int, str],
    embedder: Embedder | None,
    ocr: Any,
    threshold: float | None,
    control: JobControl,
) -> list[Repair]:
    """Set ``paragraph.figure`` for each paragraph; returns the repairs and changes made."""
    repairs: list[Repair] = []
    if not candidates:
        return repairs
    texts = [p.text for p in paragraphs]
    if mode == "model":
        keep = dict(proposals)
        todo = [i for i in range(len(paragraphs)) if i in broken]
        for i, index in keep.items():
            paragraphs[i].figure = _figure_choice(entries, index, 1.0, "model")
        if todo:
            free = [k for k in range(len(candidates)) if k not in keep.values()]
            if free:
                placements = place_figures([texts[i] for i in todo], [candidates[k] for k in free], embedder=embedder,
                                           ocr=ocr, proposals=None, threshold=threshold, control=control)
                for row, placement in zip(todo, placements):
                    chosen = free[placement.candidate] if placement.candidate is not None else None
                    if chosen is not None:
                        paragraphs[row].figure = _figure_choice(entries, chosen, placement.score, "repair", placement.signals)
                    repairs.append(_repair(row, broken[row], chosen, "global placement over the unused figures"))
            else:
                for row in todo:
                    repairs.append(_repair(row, broken[row], None, "no unused figure left"))
        return repairs
    placements = place_figures(texts, candidates, embedder=embedder, ocr=ocr,
                               proposals=proposals if mode == "hybrid" else None, threshold=threshold, control=control)
    for i, placement in enumerate(placements):
        chosen = placement.candidate
        if chosen is None:
            paragraphs[i].figure = None
        else:
            by = "placement" if mode in ("placement", "extractive") else ("model" if proposals.get(i) == chosen else "hybrid")
            paragraphs[i].figure = _figure_choice(entries, chosen, placement.score, by, placement.signals)
        if i in broken:
            repairs.append(_repair(i, broken[i], chosen, "global placement assignment"))
        elif mode == "hybrid" and i in proposals and proposals[i] != chosen:
            repairs.append(Repair(
                paragraph=i + 1,
                kind="figure reassigned",
                reason="the placement scorer ranked another assignment higher than the model's proposal",
                proposed=proposals[i] + 1,
                chosen=None if chosen is None else chosen + 1,
                by="hybrid global assignment",
            ))
    return repairs


def _repair(row: int, rule: str, chosen: int | None, by: str) -> Repair:
    return Repair(paragraph=row + 1, kind="rule break", reason=rule, chosen=None if chosen is None else chosen + 1, by=by)


# --------------------------------------------------------------------------------------- LLM path


@dataclass
class ModelRun:
    """The model calls of one full-document summary: each call's record, the notes so far (what a
    cancelled run keeps), and the time left of ``SummaryOptions.time_limit_s``."""

    engine: TextEngine
    options: SummaryOptions
    control: JobControl
    generations: list[GenerationRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    on_text: Callable[[str], None] | None = None
    deadline: float | None = None

    def __post_init__(self) -> None:
        if self.options.time_limit_s is not None:
            self.deadline = time.perf_counter() + self.options.time_limit_s

    def generate(self, messages: list[Message], stage: str, max_tokens: int, schema: dict | None = None,
                 *, step: tuple[int, int] | None = None) -> str:
        """``step`` (index, count): the model's token progress fills that step of the job's bar."""
        remaining = None if self.deadline is None else max(self.deadline - time.perf_counter(), 0.0)
        options = GenerationOptions(
            max_tokens=max_tokens, temperature=self.options.temperature, seed=self.options.seed, json_schema=schema,
            repeat_penalty=self.options.repeat_penalty, time_limit_s=remaining,
        )
        control = (self.control if step is None
                   else nested_control(self.control, *step, label=stage, phases=MODEL_CALL_PHASES))
        stream = self.engine.stream(messages, options, control=control)
        try:
            for piece in stream:
                if self.on_text is not None:
                    self.on_text(piece)
        except SummaryCancelled as cancelled:
            raise SummaryCancelled(
                f"cancelled during {stage}",
                partial={"stage": stage, "notes": list(self.notes), "text": stream.text},
            ) from cancelled
        except EngineError as error:
            if self.notes or stream.text:
                error.partial = {"stage": stage, "notes": list(self.notes), "text": stream.text}  # type: ignore[attr-defined]
            raise
        result = stream.result
        assert result is not None
        self.generations.append(result.record(stage))
        return result.text


def _message_tokens(engine: TextEngine, messages: list[Message]) -> int:
    total = 0
    for message in messages:
        total += MESSAGE_OVERHEAD + engine.count_tokens(message.text)
        if engine.supports_images:
            total += IMAGE_TOKENS * len(message.images)
    return total


def _split_to_fit(text: str, engine: TextEngine, budget: int) -> list[str]:
    """Pieces of ``text`` of at most ``budget`` tokens: by paragraphs, then sentences, then words."""
    if engine.count_tokens(text) <= budget:
        return [text]
    units = split_paragraphs(text)
    if len(units) == 1:
        units = split_sentences(text) if len(split_sentences(text)) > 1 else text.split(" ")
        joiner = " "
    else:
        joiner = "\n\n"
    pieces: list[str] = []
    current: list[str] = []
    for unit in units:
        candidate = joiner.join([*current, unit])
        if current and engine.count_tokens(candidate) > budget:
            pieces.append(joiner.join(current))
            current = [unit]
        else:
            current.append(unit)
    if current:
        pieces.append(joiner.join(current))
    result: list[str] = []
    for piece in pieces:
        if engine.count_tokens(piece) > budget and piece != text:
            result.extend(_split_to_fit(piece, engine, budget))
        else:
            result.append(piece)
    return result


def llm_answer(
    engine: TextEngine,
    document: Document,
    slots: list[prompts.ImageSlot],
    options: SummaryOptions,
    control: JobControl,
    *,
    with_ocr: bool,
    on_text: Callable[[str], None] | None = None,
) -> tuple[str, ModelRun, dict[str, Any] | None, list[str]]:
    """The model's raw answer; the run (generations, notes); the long-document record; warnings."""
    warnings: list[str] = []
    run = ModelRun(engine, options, control, on_text=on_text)
    vision = engine.supports_images and any(s.image for s in slots)
    segments, omitted = prompts.document_segments(document, slots, include_abstract=options.include_abstract)
    if omitted:
        warnings.append("left out of the prompt as back matter: " + ", ".join(omitted))
    schema = prompts.answer_schema(len(slots))
    content = prompts.render_segments(segments, vision=vision, with_ocr=with_ocr)
    messages = prompts.summary_messages(content, title=document.title, image_count=len(slots), with_ocr=with_ocr)
    available = engine.context_length - options.max_tokens
    needed = _message_tokens(engine, messages)
    if needed <= available:
        control.report(0, 1, "writing the summary")
        text = run.generate(messages, "summary", options.max_tokens, schema, step=(0, 1))
        control.report(1, 1, "summary written")
        return text, run, None, warnings

    # Long document: notes on parts that fit, then notes of notes, then the answer from the notes.
    note_tokens = max(96, int(options.note_words * 2))
    overhead = _message_tokens(engine, prompts.notes_messages([""], part=99, parts=99, title=document.title,
                                                              note_words=options.note_words))
    chunk_budget = engine.context_length - note_tokens - overhead - 32
    final_images = prompts.image_list(slots, vision=vision, with_ocr=with_ocr)
    final_overhead = _message_tokens(engine, prompts.summary_messages(
        ["\n\nImages of the document:\n", *final_images], title=document.title, image_count=len(slots), with_ocr=with_ocr))
    if vision and final_overhead > available // 2:
        vision = False
        warnings.append("the figures take too much of the context as images; they are described in words instead")
        final_images = prompts.image_list(slots, vision=False, with_ocr=with_ocr)
        final_overhead = _message_tokens(engine, prompts.summary_messages(
            ["\n\nImages of the document:\n", *final_images], title=document.title, image_count=len(slots), with_ocr=with_ocr))
    notes_budget = available - final_overhead - 16
    if chunk_budget < 128 or notes_budget < 96:
        raise EngineError(
            f"the model's context of {engine.context_length} tokens is too small to summarise this document "
            f"(with {options.max_tokens} tokens for the answer); raise n_ctx or lower max_tokens"
        )
    by_tag = {s.tag: s for s in slots}
    text_all = "\n\n".join(s.text for s in segments if s.text)
    expanded = prompts.plain_text(prompts.expand_markers(text_all, by_tag, vision=False, with_ocr=with_ocr))
    chunks = _pack(expanded, engine, chunk_budget)
    record: dict[str, Any] = {
        "strategy": "notes on parts, then notes of notes, then the summary",
        "document_tokens": engine.count_tokens(expanded),
        "context": engine.context_length,
        "parts": len(chunks),
        "levels": 1,
    }
    notes: list[str] = []
    for k, chunk in enumerate(chunks, start=1):
        control.report(k - 1, len(chunks) + 1, f"reading part {k} of {len(chunks)}")
        note = run.generate(
            prompts.notes_messages([chunk], part=k, parts=len(chunks), title=document.title, note_words=options.note_words),
            f"notes {k}/{len(chunks)}", note_tokens, step=(k - 1, len(chunks) + 1),
        ).strip()
        notes.append(note)
        run.notes = list(notes)
    level = 1
    joined = _join_notes(notes)
    while engine.count_tokens(joined) > notes_budget:
        level += 1
        if level > MAX_NOTE_LEVELS:
            raise EngineError(
                f"the notes still do not fit the context of {engine.context_length} tokens after "
                f"{MAX_NOTE_LEVELS - 1} merges; raise n_ctx"
            )
        groups = _pack_notes(notes, engine, chunk_budget)
        if len(groups) == len(notes) and len(notes) > 1:
            groups = [notes[i : i + 2] for i in range(0, len(notes), 2)]  # always make progress
        merged: list[str] = []
        for g, group in enumerate(groups, start=1):
            control.report(g - 1, len(groups), f"merging notes ({g} of {len(groups)}, level {level})")
            merged.append(run.generate(prompts.merge_messages(_join_notes(group), title=document.title, note_words=options.note_words),
                                       f"merge {g}/{len(groups)} (level {level})", note_tokens,
                                       step=(g - 1, len(groups))).strip())
        if len(merged) == 1 and engine.count_tokens(merged[0]) > notes_budget:
            merged = [_split_to_fit(merged[0], engine, notes_budget)[0]]
            warnings.append("the merged notes were still too long; their first part was kept")
            record["notes_cut"] = True
        notes = merged
        run.notes = list(notes)
        joined = _join_notes(notes)
    record["levels"] = level
    control.report(len(chunks), len(chunks) + 1, "writing the summary")
    intro = ("Below are notes on a long document, written part by part, followed by the list of its images "
             "with their tags.")
    messages = prompts.summary_messages([joined, "\n\nImages of the document:\n", *final_images], title=document.title,
                                        image_count=len(slots), with_ocr=with_ocr, intro=intro)
    text = run.generate(messages, "summary", options.max_tokens, schema, step=(len(chunks), len(chunks) + 1))
    control.report(len(chunks) + 1, len(chunks) + 1, "summary written")
    return text, run, record, warnings


def _join_notes(notes: list[str]) -> str:
    return "\n\n".join(f"Part {k}: {note}" for k, note in enumerate(notes, start=1))


def _pack(text: str, engine: TextEngine, budget: int) -> list[str]:
    pieces = _split_to_fit(text, engine, budget)
    packed: list[str] = []
    for piece in pieces:
        if packed and engine.count_tokens(packed[-1] + "\n\n" + piece) <= budget:
            packed[-1] += "\n\n" + piece
        else:
            packed.append(piece)
    return packed


def _pack_notes(notes: list[str], engine: TextEngine, budget: int) -> list[list[str]]:
    groups: list[list[str]] = []
    for note in notes:
        if groups and engine.count_tokens(_join_notes([*groups[-1], note])) <= budget:
            groups[-1].append(note)
        else:
            groups.append([note])
    return groups


def _rule_text(paragraph: ParsedParagraph) -> str:
    return {
        "missing": "no image field",
        "invalid": f"image reference {paragraph.raw_ref!r} is not an index",
        "out_of_range": f"image {paragraph.raw_ref!r} is out of range",
        "duplicate": f"image {paragraph.raw_ref!r} was already used",
    }.get(paragraph.image_status, paragraph.image_status)


def _paragraphs_from_answer(
    parsed: ParsedAnswer, document: Document, embedder: Embedder | None, options: SummaryOptions, control: JobControl
) -> tuple[list[SummaryParagraph], list[list[Sentence | None]], list[Repair]]:
    paragraphs = [SummaryParagraph(role=role, text=p.summary, source="model") for role, p in zip(ROLES, parsed.paragraphs)]
    repairs: list[Repair] = []
    repeated: dict[int, int] = {}
    for i, paragraph in enumerate(paragraphs):
        for k in range(i):
            if paragraph.text.strip() and k not in repeated and _same_text(paragraph.text, paragraphs[k].text):
                repeated[i] = k  # small models often write one paragraph four times
                break
    empty = [i for i, p in enumerate(paragraphs) if not p.text.strip() or i in repeated]
    sources: list[list[Sentence | None]] = [[] for _ in paragraphs]
    if empty and embedder is not None:
        drafts: list[DraftParagraph] = Extractor(embedder).draft(
            document, include_abstract=options.include_abstract, control=control
        ).paragraphs
        for i in empty:
            paragraphs[i].text = drafts[i].text
            paragraphs[i].source = "extracted-fallback"
            sources[i] = list(drafts[i].sentences)
            if i in repeated:
                reason = f"the model repeated paragraph {repeated[i] + 1}"
            else:
                reason = "the model did not write this paragraph" if parsed.ok else "the answer could not be parsed"
            repairs.append(Repair(
                paragraph=i + 1,
                kind="repeated paragraph" if i in repeated else "missing paragraph",
                reason=reason,
                by="extracted sentences for this role",
            ))
    return paragraphs, sources, repairs


def _same_text(a: str, b: str, threshold: float = 0.8) -> bool:
    """Near-identical paragraphs: word-set overlap (Jaccard) of at least ``threshold``."""
    words_a, words_b = set(a.lower().split()), set(b.lower().split())
    if not words_a or not words_b:
        return False
    return len(words_a & words_b) / len(words_a | words_b) >= threshold


def build_engine_messages_preview(document: Document, slots: list[prompts.ImageSlot], *, vision: bool,
                                  with_ocr: bool, include_abstract: bool = True) -> list[Message]:
    """The single-pass prompt, for inspection (``--show-prompt``) and tests."""
    segments, _ = prompts.document_segments(document, slots, include_abstract=include_abstract)
    content = prompts.render_segments(segments, vision=vision, with_ocr=with_ocr)
    return prompts.summary_messages(content, title=document.title, image_count=len(slots), with_ocr=with_ocr)
