"""Ask the paper: question → evidence → an answer whose every sentence cites its page, figure or table.

Without a language model the answer is **extractive**: the best evidence passages themselves, each with
the figures and tables it rests on (a sentence citing "Fig. 3" rests on Figure 3, a sentence in a
paragraph about it too; a caption or a table row on its own visual). The search also says which figure
or table answers the question (``retrieval/visuals.py``, fitted on dev questions): when no quoted
passage rests on it, its best passage is quoted second, and the answer's ``visual`` names it, so an
answer cites a figure or table whenever the document has one that fits. A question that names a
visual ("What does Figure 5 show?", "Table II") is answered with that visual's caption and the best
passage about it; a visual the document does not have is said so in the notes.

With a language model (any :class:`~mmdocsum_desktop.engines.base.TextEngine`: llama.cpp GGUF or an
OpenAI-compatible server) the answer is written from the retrieved evidence only, in a short prompt that
numbers the passages; it streams to ``on_text``; then every sentence is checked:

* its ``[n]`` citations must name passages that were shown (others are dropped, and the repair noted);
* it must be supported: the cross-encoder's relevance of the sentence to the passages it cites (the
  embedding cosine without a cross-encoder) reaches ``support_threshold``, and every number in it
  appears in the evidence; a sentence citing nothing is matched to its best passage instead;
* a figure or table it names that the document does not have is dropped from the sentence and noted.

Unsupported sentences are dropped and recorded. When nothing survives, the extractive answer is given
instead (``model-answer-replaced``). When even the best evidence is weak, the answer is "The document
does not say." — from either engine.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from mmdocsum_desktop.document.injection import is_injection
from mmdocsum_desktop.document.labels import find_mentions
from mmdocsum_desktop.document.language import question_language
from mmdocsum_desktop.engines.base import MODEL_CALL_PHASES, GenerationOptions, Message, TextEngine
from mmdocsum_desktop.errors import EmptyDocumentError, EmptyQuestionError
from mmdocsum_desktop.jobs import JobControl, ensure_control, nested_control
from mmdocsum_desktop.retrieval.passages import FIGURE_TEXT_KINDS, Passage, figure_text_quote
from mmdocsum_desktop.retrieval.search import Evidence, EvidenceIndex, Retriever, SearchResult
from mmdocsum_desktop.retrieval.visuals import CITE_MIN_PROBABILITY
from mmdocsum_desktop.schemas.answer import (
    NOT_IN_DOCUMENT,
    Answer,
    AnswerEvidence,
    AnswerSentence,
    AskOptions,
)
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.engine import EngineInfo, RetrievalInfo
from mmdocsum_desktop.schemas.repair import Repair
from mmdocsum_desktop.text.attribution import cited_authors, reports_other_work
from mmdocsum_desktop.text.reader_strings import reader_strings
from mmdocsum_desktop.text.sentences import split_answer_sentences

MAX_QUESTION_CHARS = 2000
_REF = re.compile(r"\[\s*(\d{1,2}(?:\s*[,;–-]\s*\d{1,2})*)\s*\]")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w])")
_NOT_SAID = re.compile(r"\b(?:document|paper|evidence|text)\s+(?:does not|doesn't|do not)\s+(?:say|mention|state|answer)", re.I)


def prepare_question(question: str) -> tuple[str, list[Repair]]:
    """The question as asked, whitespace-normalised; an empty one is refused, a paste too long is cut."""
    text = " ".join((question or "").split())
    if not text:
        raise EmptyQuestionError("the question is empty: ask something about the document")
    repairs: list[Repair] = []
    if len(text) > MAX_QUESTION_CHARS:
        repairs.append(Repair(
            kind="question-truncated",
            reason=f"the question had {len(text)} characters; only its first {MAX_QUESTION_CHARS} were used",
        ))
        text = text[:MAX_QUESTION_CHARS].rsplit(" ", 1)[0]
    return text, repairs


def answer_question(
    document: Document,
    question: str,
    engine: TextEngine | None,
    retriever: Retriever,
    control: JobControl | None = None,
    *,
    options: AskOptions | None = None,
    on_text: Callable[[str], None] | None = None,
    figure_text: dict[str, str] | None = None,
    keep: Callable[[Passage], bool] | None = None,
) -> Answer:
    """Answer ``question`` from ``document``; ``engine`` None → extractive. See the module docstring.

    ``figure_text``: OCR text of figures by figure id, when the caller has it. ``keep``: a filter on
    passages (benchmarks hide the sentence a claim was taken from)."""
    options = options or AskOptions()
    control = ensure_control(control)
    started = time.perf_counter()
    query, _ = prepare_question(question)
    # one bar for the whole question: reading the document into passages, searching, then answering
    # (each step fills its own share, so the bar never runs back when the next stage counts from zero)
    index = retriever.index(document, figure_text, control=nested_control(control, 0, 3, "reading"))
    if not index.passages:
        raise EmptyDocumentError(
            f"{_name(document)} has no text to answer from (a scanned PDF needs OCR first: read it with --ocr)"
        )
    notes = list(retriever.notes)
    if not document.visuals:
        notes.append("the document has no figures or tables: answers cite pages and passages only")
    found = retriever.find(index, query, k=options.evidence_k, keep=keep,
                           control=nested_control(control, 1, 3, "searching"))
    for label in found.unknown_named:
        notes.append(f"the document has no {label}: the answer comes from the rest of the document")
    answering = nested_control(control, 2, 3, "answering")
    answer = answer_from_evidence(
        question, found.evidence, index, engine, retriever, answering,
        options=options, on_text=on_text, source=document.source, notes=notes, started=started, found=found,
        language=question_language(query, document.language),
    )
    answering.report(1, 1, "done")
    return answer


def answer_from_evidence(
    question: str,
    evidence: list[Evidence],
    index: EvidenceIndex,
    engine: TextEngine | None,
    retriever: Retriever,
    control: JobControl | None = None,
    *,
    options: AskOptions | None = None,
    on_text: Callable[[str], None] | None = None,
    source: str = "",
    notes: list[str] | None = None,
    started: float | None = None,
    found: SearchResult | None = None,
    language: str | None = None,
) -> Answer:
    """The answer written from evidence already found, best first: what :func:`answer_question` does
    after its search, and what a benchmark that gives the evidence itself (MCiteBench's sources) calls.

    ``index`` is the one the evidence came from (its labels are the figures a model may cite);
    ``retriever`` rescores a model's sentences against the evidence; ``started`` (``perf_counter``) is
    when the caller began, so the timings count its search too. ``found``: the search's result, when
    the caller searched (the visual it names or chose, and its best passage). ``language``: what the
    answer's own words are written in (the question's; None: English): its notice that the document does
    not say, and what the model is asked to write in."""
    options = options or AskOptions()
    control = ensure_control(control)
    started = time.perf_counter() if started is None else started
    question, repairs = prepare_question(question)
    # text addressed to a model is never the paper's content, whatever the source (the reader took it out
    # of documents; evidence handed in by a caller did not pass through the reader)
    evidence = [item for item in evidence if not is_injection(item.text)]
    retrieval_s = time.perf_counter() - started
    answer = Answer(
        source=source,
        question=question,
        language=language,
        evidence=[_shown(i + 1, e) for i, e in enumerate(evidence)],
        repairs=repairs,
        notes=list(notes if notes is not None else retriever.notes),
        engine=EngineInfo(engine="extractive") if engine is None else _describe(engine),
    )
    answer.engine.retrieval = RetrievalInfo(reranker=retriever.uses_reranker, passages=len(index.passages))
    answer.timings["retrieval_s"] = retrieval_s

    named = list(found.named) if found is not None else []
    visual = _answering_visual(found, evidence, options)
    weak = not evidence or (evidence[0].support < options.weak_threshold and not named
                            and max(e.dense for e in evidence) < options.weak_cosine)
    if weak:
        answer.not_in_document = True
        answer.sentences = [AnswerSentence(text=reader_strings(answer.language).not_in_document, source="notice")]
    elif engine is None and named:
        answer.sentences = named_visual_sentences(evidence, named, options)
    elif engine is None:
        answer.sentences = extractive_sentences(evidence, options, visual=visual)
    else:
        _write_with_model(answer, engine, evidence, index, retriever, options, control, on_text, started)
    if not answer.not_in_document:
        answer.notes += other_work_notes(answer)
        cited = {label for sentence in answer.sentences for label in sentence.labels}
        chosen = named[0] if named else visual
        answer.visual = chosen if chosen in cited else next(iter(answer.cited_labels), None)
        if answer.visual is not None and found is not None:
            answer.visual_probability = next(
                (round(v.probability, 4) for v in found.visuals if v.label == answer.visual), None)
    answer.timings["total_s"] = time.perf_counter() - started
    return answer


def other_work_notes(answer: Answer) -> list[str]:
    """A note for each answer sentence whose passage reports another study's finding ("Scott et al.
    found…", "[12]", "previous studies showed"), judged on the passage as the document has it: a reader
    must not take it for this paper's own finding (issue 35)."""
    shown = {item.number: item for item in answer.evidence}
    notes: list[str] = []
    for sentence in answer.sentences:
        for number in sentence.evidence:
            item = shown.get(number)
            found = reports_other_work(item.text) if item is not None else None
            if found is None:
                continue
            who = cited_authors(item.text) if item is not None else None
            opening = " ".join(sentence.text.split()[:8])
            notes.append(f"\u201c{opening}\u2026\u201d reports another study's finding"
                         f" ({who or found.evidence}), not this paper's own")
            break
    return notes


def _answering_visual(found: SearchResult | None, evidence: list[Evidence], options: AskOptions) -> str | None:
    """The label the answer should rest on: the scorer's likeliest visual when it is likely enough or
    its passage ranks among the evidence anyway (see ``retrieval.visuals.CITE_MIN_PROBABILITY``)."""
    if found is None or found.visual is None:
        return None
    choice = found.visual
    among = any(choice.label in e.labels for e in evidence[: options.evidence_k])
    return choice.label if among or choice.probability >= CITE_MIN_PROBABILITY else None


# ------------------------------------------------------------------------------------- extractive


def _shown_as(chosen: list[Evidence], evidence: list[Evidence], answering: set[int]) -> list[tuple[Evidence, str]]:
    """Each chosen passage with the text the answer shows: figure text as a quote where it answers the
    question (``answering``: ids of such passages), else the caption of its figure when that is not
    shown already, else nothing."""
    shown: list[tuple[Evidence, str]] = []
    for item in chosen:
        if item.kind not in FIGURE_TEXT_KINDS:
            shown.append((item, item.text))
            continue
        quote = figure_text_quote(item.text) if id(item) in answering else None
        if quote is not None:
            shown.append((item, quote))
            continue
        caption = next((e for e in evidence if e.kind == "caption" and e.labels and e.labels == item.labels), None)
        if caption is not None and all(caption is not e for e, _ in shown) and caption not in chosen:
            shown.append((caption, caption.text))
    if not shown:  # figure text alone, unreadable: the best passage that is not figure text
        shown = [(item, item.text) for item in evidence if item.kind not in FIGURE_TEXT_KINDS][:1]
    return shown


def extractive_sentences(
    evidence: list[Evidence], options: AskOptions, *, visual: str | None = None
) -> list[AnswerSentence]:
    """The best passages, each citing its page, block and the figures/tables it rests on; when
    ``visual`` (the figure or table that answers the question) is not among them, its best passage is
    quoted after the best one."""
    best = evidence[0]
    chosen = [best]
    for item in evidence[1:]:
        if len(chosen) >= options.max_sentences:
            break
        if item.support >= max(options.weak_threshold, best.support - options.margin):
            chosen.append(item)
    if visual is not None and not any(visual in item.labels for item in chosen):
        showing = next((e for e in evidence if visual in e.labels), None)
        if showing is not None:
            chosen = [*chosen[: max(1, options.max_sentences - 1)], showing]
    if not any(item.labels for item in chosen):
        # the answer should rest on a figure or table when one is in the evidence at all
        with_label = next((e for e in evidence if e.labels and e not in chosen), None)
        if with_label is not None and with_label.support >= options.weak_threshold:
            chosen = [*chosen[: max(1, options.max_sentences - 1)], with_label]
    number = {id(e): i + 1 for i, e in enumerate(evidence)}
    return [_cite(AnswerSentence(text=text, source="extracted", support=round(e.support, 4)), [(number[id(e)], e)])
            for e, text in _shown_as(chosen, evidence, {id(best)})]


def named_visual_sentences(evidence: list[Evidence], named: list[str], options: AskOptions) -> list[AnswerSentence]:
    """A question naming a figure or table: its caption (or its best passage when it has none), then
    the best other passage about it (a sentence citing it, a row of the table), then the best
    evidence resting on a second named visual when the question names two."""
    number = {id(e): i + 1 for i, e in enumerate(evidence)}
    chosen: list[Evidence] = []
    for label in named[:2]:
        own = [e for e in evidence if label in e.labels and e not in chosen]
        captions = [e for e in own if e.kind == "caption"]
        others = sorted((e for e in own if e.kind != "caption"), key=lambda e: -e.support)
        picked = (captions[:1] + others[:1]) if label == named[0] else (captions or others)[:1]
        chosen += [e for e in picked if e not in chosen]
    if not chosen:
        chosen = evidence[:1]
    chosen = chosen[: max(options.max_sentences, len(named[:2]) + 1)]
    answering = {id(e) for e in chosen if set(e.labels) & set(named[:2])}
    return [_cite(AnswerSentence(text=text, source="extracted", support=round(e.support, 4)), [(number[id(e)], e)])
            for e, text in _shown_as(chosen, evidence, answering)]


def _cite(sentence: AnswerSentence, items: list[tuple[int, Evidence]]) -> AnswerSentence:
    for number, item in items:
        if number not in sentence.evidence:
            sentence.evidence.append(number)
        if item.page is not None and item.page not in sentence.pages:
            sentence.pages.append(item.page)
        if item.block and item.block not in sentence.blocks:
            sentence.blocks.append(item.block)
        for label in item.labels:
            _add_label(sentence, label)
    return sentence


def _add_label(sentence: AnswerSentence, label: str) -> None:
    target = sentence.tables if label.startswith("Table") else sentence.figures
    if label not in target:
        target.append(label)


# ------------------------------------------------------------------------------------- with a model


SYSTEM_PROMPT = (
    "You answer questions about one document using only the numbered evidence passages given. "
    "Write one to three short sentences. End each sentence with the numbers of the passages it uses, "
    "in brackets, like [2]. Name a figure or table only if a passage you cite names it. "
    f"If the passages do not answer the question, write exactly: {NOT_IN_DOCUMENT}"
)


def build_messages(question: str, evidence: list[Evidence], options: AskOptions,
                   language: str | None = None) -> list[Message]:
    """The prompt: numbered evidence and the question; an answer in ``language`` is asked for when that is
    not English (the passages may be in another language than the question)."""
    lines = []
    for number, item in enumerate(evidence[: options.prompt_evidence], start=1):
        where = [f"page {item.page}"] if item.page is not None else []
        where += list(item.labels)
        text = item.text if len(item.text) <= options.prompt_passage_chars else item.text[: options.prompt_passage_chars].rsplit(" ", 1)[0] + " …"
        lines.append(f"[{number}] ({', '.join(where) or 'text'}) {text}")
    user = "Evidence:\n" + "\n".join(lines) + f"\n\nQuestion: {question}\nAnswer:"
    strings = reader_strings(language)
    system = SYSTEM_PROMPT
    if strings.code != "en":
        system = (SYSTEM_PROMPT.replace(NOT_IN_DOCUMENT, strings.not_in_document)
                  + f" Write the answer in {strings.english_name}.")
    return [Message("system", system), Message("user", user)]


def _write_with_model(
    answer: Answer,
    engine: TextEngine,
    evidence: list[Evidence],
    index: EvidenceIndex,
    retriever: Retriever,
    options: AskOptions,
    control: JobControl,
    on_text: Callable[[str], None] | None,
    started: float,
) -> None:
    messages = build_messages(answer.question, evidence, options, answer.language)
    generation_options = GenerationOptions(
        max_tokens=options.max_tokens,
        temperature=options.temperature,
        repeat_penalty=1.1,
        time_limit_s=options.time_limit_s,
    )
    # writing (prompt, then tokens) and checking the sentences are two halves of this call's bar
    stream = engine.stream(messages, generation_options,
                           control=nested_control(control, 0, 2, "writing", phases=MODEL_CALL_PHASES))
    first: float | None = None
    for piece in stream:
        if first is None:
            first = time.perf_counter() - started
        if on_text is not None:
            on_text(piece)
    result = stream.result
    answer.timings["first_token_s"] = first if first is not None else time.perf_counter() - started
    answer.model_text = stream.text
    if result is not None:
        answer.generation = result.record()
    shown = evidence[: options.prompt_evidence]
    checking = nested_control(control, 1, 2, "checking")
    sentences = check_model_answer(stream.text, shown, evidence, index, retriever, options, answer.repairs, checking,
                                   language=answer.language)
    checking.report(1, 1, "done")
    said_not = says_not_in_document(stream.text or "", answer.language)
    if sentences:
        answer.sentences = sentences
    elif said_not and evidence[0].support < 0.5:
        answer.not_in_document = True
        answer.sentences = [AnswerSentence(text=reader_strings(answer.language).not_in_document, source="notice")]
    else:
        answer.repairs.append(Repair(
            kind="model-answer-replaced",
            reason="no sentence of the model's answer was supported by the evidence; the best evidence is quoted instead",
            text=(stream.text or "").strip()[:2000] or None,
        ))
        answer.sentences = extractive_sentences(evidence, options)


def says_not_in_document(text: str, language: str | None) -> bool:
    """The model wrote that the document does not say: in English, or in the answer's language as the
    prompt asked ("O documento não diz.")."""
    if _NOT_SAID.search(text):
        return True
    localized = reader_strings(language).not_in_document.rstrip(".").lower()
    return localized in " ".join(text.lower().split())


def check_model_answer(
    text: str,
    shown: list[Evidence],
    evidence: list[Evidence],
    index: EvidenceIndex,
    retriever: Retriever,
    options: AskOptions,
    repairs: list[Repair],
    control: JobControl | None = None,
    language: str | None = None,
) -> list[AnswerSentence]:
    """The model's sentences that survive the checks, each cited; what was dropped goes to ``repairs``."""
    kept: list[AnswerSentence] = []
    evidence_text = " ".join(e.text for e in evidence)
    evidence_numbers = set(_NUMBER.findall(evidence_text))
    for raw in split_answer_sentences(text or ""):
        if says_not_in_document(raw, language):
            continue  # handled by the caller: "does not say" is an answer only when evidence is weak
        numbers, bad_numbers = _evidence_refs(raw, len(shown))
        for bad in bad_numbers:
            repairs.append(Repair(kind="unknown-evidence-number-dropped",
                                  reason=f"[{bad}] names no passage that was shown", text=raw))
        sentence_text, unknown = _drop_unknown_labels(_REF.sub("", raw), index.known_labels)
        for label in unknown:
            repairs.append(Repair(kind="unknown-figure-citation-dropped",
                                  reason=f"the document has no {label}; the citation was removed", text=raw))
        sentence_text = " ".join(sentence_text.replace(" .", ".").replace(" ,", ",").split())
        if len(sentence_text) < 3 or not re.search(r"[^\W\d_]{2}", sentence_text):
            continue
        cited = [(n, shown[n - 1]) for n in numbers]
        pool = cited or list(enumerate(shown, start=1))
        scores = retriever.rescore(sentence_text, [item.text for _, item in pool], control=control)
        best = int(scores.argmax()) if len(scores) else -1
        support = float(scores[best]) if best >= 0 else 0.0
        missing_numbers = [n for n in _NUMBER.findall(sentence_text) if n not in evidence_numbers]
        if support < options.support_threshold or missing_numbers:
            why = (f"numbers not in the evidence: {', '.join(missing_numbers)}" if missing_numbers
                   else f"support {support:.2f} is below {options.support_threshold:.2f}")
            repairs.append(Repair(kind="unsupported-sentence-dropped", reason=why, text=raw))
            continue
        sentence = AnswerSentence(text=sentence_text, source="model", support=round(support, 4))
        if not cited:
            cited = [pool[best]]
            repairs.append(Repair(kind="citation-added", reason=f"the sentence cited nothing; it rests on passage [{pool[best][0]}]",
                                  text=raw))
        _cite(sentence, cited)
        # a figure the sentence names itself (and the document has) is cited too
        for _kind, label in find_mentions(sentence_text):
            if label in index.known_labels:
                _add_label(sentence, label)
        kept.append(sentence)
    return kept


def _evidence_refs(sentence: str, shown: int) -> tuple[list[int], list[int]]:
    good: list[int] = []
    bad: list[int] = []
    for group in _REF.findall(sentence):
        for piece in re.split(r"[,;]", group):
            span = re.fullmatch(r"\s*(\d+)\s*[–-]\s*(\d+)\s*", piece)
            values = range(int(span.group(1)), int(span.group(2)) + 1) if span else [int(piece)]
            for value in values:
                target = good if 1 <= value <= shown else bad
                if value not in target:
                    target.append(value)
    return good, bad


def _drop_unknown_labels(text: str, known: frozenset[str]) -> tuple[str, list[str]]:
    """Remove citations of figures/tables the document does not have: "(Figure 9)", "[Table 7]", or the
    bare "Figure 9" words; returns the text and the labels removed."""
    unknown = [label for _kind, label in find_mentions(text) if label not in known]
    for label in unknown:
        word, number = label.split(" ", 1)
        stem = {"Figure": r"(?:Figures?|Figs?\.?)", "Table": r"(?:Tables?|Tab\.)"}.get(word, re.escape(word))
        pattern = rf"{stem}\s*{re.escape(number)}[a-z]?"
        text = re.sub(rf"\s*[(\[]\s*(?:see\s+)?{pattern}\s*[)\]]", "", text)
        text = re.sub(rf"\b{pattern}\b", "", text)
    return text, unknown


def _shown(number: int, item: Evidence) -> AnswerEvidence:
    return AnswerEvidence(
        number=number,
        kind=item.kind,
        text=item.text,
        page=item.page,
        block=item.block,
        labels=list(item.labels),
        support=round(item.support, 4),
    )


def _describe(engine: TextEngine) -> EngineInfo:
    try:
        info = EngineInfo.model_validate(engine.describe()).model_copy()
    except Exception:  # noqa: BLE001 — a description is information, never a reason to fail the answer
        info = EngineInfo()
    if not info.engine:
        info.engine = getattr(engine, "name", "model")
    if not info.model:
        info.model = getattr(engine, "model_name", "")
    return info


def _name(document: Document) -> str:
    return Path(document.source).name or "the document"
