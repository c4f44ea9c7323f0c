"""From a Document to a four-paragraph interleaved summary with figures and citations.

``summarize_document(document, base_dir, strategy=...)`` does, in order:

1. candidates — the document's figures and tables that have an image crop (placement's
   ``candidates_from_document``); OCR text of each when asked for (by default when the strategy wants it:
   a language model that cannot see images gets it in the prompt);
2. text — the strategy's four paragraphs (:mod:`strategies`: extractive, grounded or full-document);
   a paragraph nothing could fill says so in one sentence (never empty, never another part's text);
3. figures — the strategy's choice: extractive and grounded summaries show a figure only where the
   paragraph's evidence cites it, and a paragraph without one says why; full-document answers go through
   the placement engine's global assignment;
4. captions and citations — per sentence (:mod:`citations`), unless the strategy cited its own sentences.

Cancellation (``control.cancel()``) raises SummaryCancelled whose ``partial`` holds the finished stages
(notes of parts, the answer text so far), which the CLI writes next to the output.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mmdocsum_desktop.document.sections import PROSE_TYPES
from mmdocsum_desktop.engines.base import TextEngine
from mmdocsum_desktop.errors import EmptyDocumentError, JobCancelled
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.placement.candidates import candidates_from_document
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.placement import ImageCandidate
from mmdocsum_desktop.schemas.summary import FigureEntry, Summary, SummaryOptions, SummaryParagraph
from mmdocsum_desktop.summarize import prompt as prompts
from mmdocsum_desktop.summarize.citations import Citer
from mmdocsum_desktop.summarize.extractive import clean_sentence
from mmdocsum_desktop.summarize.roles import absence_sentence
from mmdocsum_desktop.summarize.sentences import Embedder, split_sentences
from mmdocsum_desktop.summarize.strategies.base import SummaryContext, SummaryStrategy
from mmdocsum_desktop.summarize.strategies.choice import choose_strategy

# ----------------------------------------------------------------------------------------- helpers


def has_text(document: Document, include_abstract: bool = True) -> bool:
    """Whether the document has any paragraph or list with text (body or not; the abstract only when
    ``include_abstract``)."""
    return any(
        b.type in PROSE_TYPES and b.text.strip() and (include_abstract or not b.is_abstract)
        for b in document.blocks
    )


def figure_candidates(document: Document, base_dir: str | Path | None) -> list[ImageCandidate]:
    return candidates_from_document(document, base_dir)


def read_figure_text(candidates: list[Any], ocr: Any, control: JobControl) -> list[str]:
    """Fill ``ocr_text`` of each candidate (OCR results are cached by image); returns warnings."""
    warnings: list[str] = []
    for k, candidate in enumerate(candidates):
        control.report(k, len(candidates), "reading text in figures")
        if getattr(candidate, "ocr_text", None) is not None or not candidate.image:
            continue
        try:
            candidate.ocr_text = ocr.read_text(candidate.image, control=control)
        except JobCancelled:
            raise
        except Exception as error:  # noqa: BLE001 — one unreadable crop must not stop the summary
            candidate.ocr_text = ""
            warnings.append(f"OCR of {Path(candidate.image).name} failed: {error}")
    control.report(len(candidates), len(candidates), "reading text in figures")
    return warnings


def _caption_sentence(candidate: Any) -> str:
    # reference markers ("[12]") and ligatures have no place in a caption line either
    caption = clean_sentence(getattr(candidate, "caption", "") or "")
    label = getattr(candidate, "label", None)
    if not caption:
        return label or ""
    first = split_sentences(caption)[0] if split_sentences(caption) else caption
    if len(first.split()) < 4 and len(split_sentences(caption)) > 1:
        first = " ".join(split_sentences(caption)[:2])
    return first if len(first) <= 300 else first[:299].rsplit(" ", 1)[0] + "…"


def figure_entries(candidates: list[Any], base_dir: str | Path | None) -> list[FigureEntry]:
    """The candidates as the summary records them: image paths relative to ``base_dir`` (the
    document's folder), so that the summary stays valid when that folder moves."""
    return [
        FigureEntry(index=k + 1, id=c.source_id, label=c.label, kind=c.kind, caption=c.caption,
                    image=_relative_image(c.image, base_dir), ocr_text=c.ocr_text)
        for k, c in enumerate(candidates)
    ]


def _relative_image(image: str | None, base_dir: str | Path | None) -> str | None:
    if image is None or base_dir is None:
        return image
    try:
        return Path(image).resolve().relative_to(Path(base_dir).resolve()).as_posix()
    except ValueError:  # not inside the document's folder: kept as it is
        return image


# -------------------------------------------------------------------------------------------- main


def summarize_document(
    document: Document,
    base_dir: str | Path | None,
    *,
    strategy: SummaryStrategy | None = None,
    engine: TextEngine | None = None,
    embedder: Embedder | None,
    ocr: Any = None,
    options: SummaryOptions | None = None,
    control: JobControl | None = None,
    on_text: Callable[[str], None] | None = None,
) -> Summary:
    """The summary of ``document``; figure crops are read from ``base_dir`` (where document.json is).

    ``strategy`` writes it; without one, :func:`strategies.choose_strategy` picks it from ``engine``
    (None: the extractive summary) and ``options.llm_mode``."""
    options = options or SummaryOptions()
    control = ensure_control(control)
    strategy = strategy or choose_strategy(engine, embedder=embedder, llm_mode=options.llm_mode)
    timings: dict[str, float] = {}
    warnings: list[str] = list(strategy.warnings)
    started = time.perf_counter()
    if not has_text(document, options.include_abstract):
        what = "no text besides its abstract" if has_text(document, True) else "no text"
        raise EmptyDocumentError(
            f"{Path(document.source).name} has {what} to summarise"
            + (" (a scanned PDF needs OCR first)" if document.kind == "pdf" and not has_text(document, True) else "")
        )
    candidates = figure_candidates(document, base_dir)
    if not candidates:
        warnings.append("the document has no figures or tables with an image; the summary has no images")
    want_ocr = options.ocr if options.ocr is not None else strategy.reads_figure_text()
    if want_ocr and ocr is not None and candidates:
        t = time.perf_counter()
        warnings += read_figure_text(candidates, ocr, control)
        timings["ocr_s"] = time.perf_counter() - t
    context = SummaryContext(document=document, candidates=candidates,
                             slots=prompts.make_slots(candidates, options.shuffle_seed), options=options,
                             control=control, embedder=embedder, ocr=ocr, with_figure_text=want_ocr, on_text=on_text)

    t = time.perf_counter()
    draft = strategy.write(context)
    warnings += draft.warnings
    paragraphs = draft.paragraphs
    for paragraph in paragraphs:
        if not paragraph.text.strip():
            # a paragraph nothing could fill says so in one sentence: never empty, never another part's text
            paragraph.text = absence_sentence(document, paragraph.role)
            paragraph.source = "absent"
            warnings.append(f"{paragraph.title.lower()}: no sentence of the paper can fill it; the summary says so")
    timings["text_s"] = time.perf_counter() - t

    t = time.perf_counter()
    entries = figure_entries(candidates, base_dir)
    repairs = [*draft.repairs, *strategy.choose_figures(draft, entries, context)]
    for paragraph in paragraphs:
        if paragraph.figure is None:
            paragraph.image_caption = ""
        elif paragraph.figure.chosen_by != "model" or not paragraph.image_caption:
            paragraph.image_caption = _caption_sentence(candidates[paragraph.figure.candidate])
    timings["figures_s"] = time.perf_counter() - t

    if options.citations:
        t = time.perf_counter()
        if not strategy.cites_itself:
            _cite(paragraphs, draft.sources, document, embedder, options, context.slots)
        timings["citations_s"] = time.perf_counter() - t
    elif strategy.cites_itself:
        for paragraph in paragraphs:
            paragraph.sentences = []  # the writer's citations are not wanted
    timings["total_s"] = time.perf_counter() - started
    return Summary(
        source=document.source,
        title=document.title,
        language=document.language,  # what the reader-facing strings are rendered in
        engine=strategy.describe(),
        paragraphs=paragraphs,
        figures=entries,
        options=options,
        parse=draft.parse,
        repairs=repairs,
        long_document=draft.long_document,
        generations=draft.generations,
        timings=timings,
        warnings=warnings,
        raw_answer=draft.raw_answer,
        grounding=draft.grounding,
    )


def _cite(paragraphs: list[SummaryParagraph], sources: list[list[Any]], document: Document,
          embedder: Embedder | None, options: SummaryOptions, slots: list[prompts.ImageSlot]) -> None:
    """Each sentence's pages, blocks, figures and tables: a sentence copied from the document cites its
    own block; any other sentence what it names and the document sentences closest to it."""
    tag_labels = {s.tag: s.label for s in slots if s.label}
    citer = Citer(document, embedder, include_abstract=options.include_abstract, tag_labels=tag_labels)
    for paragraph, paragraph_sources in zip(paragraphs, sources or [[] for _ in paragraphs]):
        if paragraph.source == "absent":
            continue  # an absence sentence is the app's, not the paper's: nothing to cite
        if paragraph_sources and all(s is not None for s in paragraph_sources):
            texts = [s.text for s in paragraph_sources if s is not None]
            paragraph.sentences = citer.cite(texts, paragraph_sources)
        else:
            paragraph.sentences = citer.cite(split_sentences(paragraph.text))


__all__ = ["Summary", "SummaryOptions", "SummaryParagraph", "figure_candidates", "figure_entries", "has_text",
           "summarize_document"]
