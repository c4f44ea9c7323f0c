"""The grounded writer ("extract, then write"): a language model writes each paragraph from its evidence
only, and every sentence it writes is checked against that evidence before a reader sees it.

1. Evidence: per role, the body sentences the extractive stage picked (summarize/evidence.py), with their
   pages — a fifth more than an extractive paragraph holds.
2. Writing, by sentence (default): the model shortens each evidence sentence in turn, one short streamed
   call each (``on_text`` gets each piece as it comes, for the GUI). The start of the prompt (system
   message and one worked example) is the same for every call and is read once per summary; each call
   is stopped as soon as it begins a second sentence. A 135M model asked for a whole paragraph from a
   list of evidence invents about one sentence in two (numbers, names, "The paper discusses …"); asked
   to shorten one sentence it copies faithfully. ``by_sentence=False`` keeps the one-call paragraph
   writer (at most ``MAX_SENTENCES`` sentences). The remaining time of ``SummaryOptions.time_limit_s``
   bounds each call.
3. Checking: each written sentence must be close to the evidence (cosine of MiniLM embeddings, or the
   cross-encoder's relevance when one is given, at least ``support_threshold``), and every number and
   every name (capitalised or mixed-case words, acronyms) in it must occur in the evidence or the title;
   it must end with a full stop and not repeat an earlier one. A sentence cut off by the token or time
   limit fails too.
4. Citing: each kept sentence cites the evidence sentences that support it (pages, blocks, and the
   figures and tables those sentences cite).
5. Repairs, each recorded in the summary's repairs with the reason, and counted in ``record``
   (written = supported + dropped; ``replaced`` of the dropped ones gave way to evidence): an
   unsupported sentence is replaced by the closest evidence sentence not used yet, cited as extracted
   (never as the model's); a paragraph with nothing supported (the model wrote nothing, wrote off topic,
   failed or ran out of time) is the evidence's own best sentences instead — body prose, never back
   matter; a role with no evidence at all stays empty and says so.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mmdocsum_desktop.engines.base import MODEL_CALL_PHASES, GenerationOptions, TextEngine
from mmdocsum_desktop.errors import (
    EndpointError,
    EngineError,
    ModelProcessError,
    SecretError,
    SummaryCancelled,
)
from mmdocsum_desktop.jobs import JobControl, ensure_control, nested_control
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.summary import (
    ROLE_TITLES,
    Evidence,
    GenerationRecord,
    GroundingRecord,
    Repair,
    SentenceCitation,
    SummaryOptions,
    SummaryParagraph,
)
from mmdocsum_desktop.summarize import prompt as prompts
from mmdocsum_desktop.summarize.evidence import EvidenceItem, ParagraphEvidence
from mmdocsum_desktop.summarize.extractive import MAX_WORDS, ROLE_TARGETS, opener
from mmdocsum_desktop.summarize.sentences import Embedder
from mmdocsum_desktop.text.sentences import split_answer_sentences

SUPPORT_THRESHOLD = 0.6  # cosine of MiniLM embeddings, sentence vs its best evidence sentence
RERANK_THRESHOLD = 0.5  # sigmoid of the cross-encoder's logit, when a cross-encoder checks instead
MIN_KEPT_WORDS = 20  # fewer supported words than this: the paragraph is the evidence's own sentences
PARAGRAPH_TOKENS = 170  # the most one paragraph may take, whatever its role
SENTENCES = "2 or 3"  # what the prompt asks for: a paragraph of the summary, not an essay
MAX_SENTENCES = 3  # the model is stopped when it begins a sentence after this many
EXTRA_WORDS = 10  # the prompt's word limit is the role's extractive length plus this
# Tokens a paragraph may take per word the prompt asks for: scientific English is about 1.4 tokens a
# word for these tokenizers; the rest is room to finish the last sentence rather than be cut off.
TOKENS_PER_WORD = 2.2
CITE_TOP = 2

_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
# Names: a word with a capital after its first letter or a digit inside ("SARS-CoV-2", "IL-6", "pH"),
# an acronym, or a capitalised word inside the sentence ("Australia", "Ross").
_NAME = re.compile(r"\b(?:[A-Za-z]*[A-Z][a-z]*[A-Z0-9][\w-]*|[A-Z]{2,}[\w-]*|[a-z]+[0-9][\w-]*)\b")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,}\b")  # the sentence's first word is not counted
_COMMON_CAPITALS = frozenset("""
the this these those we our it its in on at for from by with however figure fig table study studies
results result method methods conclusion conclusions background research paper overall finally first
second third also moreover furthermore thus therefore here our they there such both each all
""".split())
_LIST_MARK = re.compile(r"^\s*(?:\d{1,2}[.)]|[-•*])\s+")  # "2) The oil…", "- The oil…": a list item's marker
_REF_MARK = re.compile(r"\s*\[(\d+(?:\s*[,;–-]\s*\d+)*)\]")
_HEADING = re.compile(
    r"^\s*(?:#+\s*|\*\*)?(?:paragraph\s*\d*|research background|background|method(?:s|ology)?|results?|"
    r"conclusions?|summary)\s*(?:paragraph)?\s*[:.\-–—]*\**\s*(?=\S)", re.I)
_WORDS_RE = re.compile(r"[^\W_]+")
# The worked example's own content words (prompt.SHORTEN_EXAMPLE): a small model sometimes answers with
# the example instead of the sentence it was given ("After twelve weeks, mice given the compound …" in a
# paper with no mice, seen on the dev half); such words in a sentence whose evidence lacks them are the
# prompt's, never the paper's.
_EXAMPLE_WORDS = frozenset(w for w in _WORDS_RE.findall(" ".join(prompts.SHORTEN_EXAMPLE).lower())
                           if len(w) > 3 and w not in {"after", "than", "less", "given", "that", "with", "received",
                                                       "group", "shown", "figure", "control"})


@dataclass
class CheckedSentence:
    text: str
    support: float
    items: list[tuple[EvidenceItem, float]]  # the evidence that supports it, best first
    problem: str | None = None  # why it is not supported
    ranked: list[tuple[EvidenceItem, float]] = field(default_factory=list)  # all evidence, closest first


@dataclass
class WrittenSummary:
    paragraphs: list[SummaryParagraph]
    used: list[list[EvidenceItem]]  # per paragraph: the evidence its sentences rest on
    repairs: list[Repair] = field(default_factory=list)
    generations: list[GenerationRecord] = field(default_factory=list)
    record: GroundingRecord = field(default_factory=GroundingRecord)


class GroundedWriter:
    """``GroundedWriter(engine, embedder).write(document, evidence, options)`` → a WrittenSummary."""

    def __init__(self, engine: TextEngine, embedder: Embedder, *, reranker: Any = None,
                 support_threshold: float | None = None, paragraph_tokens: int = PARAGRAPH_TOKENS,
                 temperature: float | None = None, by_sentence: bool = True) -> None:
        self.engine = engine
        self.embedder = embedder
        self.reranker = reranker
        self.support_threshold = support_threshold if support_threshold is not None else (
            RERANK_THRESHOLD if reranker is not None else SUPPORT_THRESHOLD)
        self.paragraph_tokens = paragraph_tokens
        # greedy by default: what a paragraph of evidence needs is fidelity, not variety (a regenerated
        # paragraph samples, so that each attempt differs)
        self.temperature = 0.0 if temperature is None else temperature
        # by sentence (default): the model shortens each evidence sentence in turn, one short call each;
        # else it writes the paragraph from all its evidence in one call (freer, and less faithful)
        self.by_sentence = by_sentence

    def write(self, document: Document, evidence: Sequence[ParagraphEvidence], options: SummaryOptions, *,
              control: JobControl | None = None, on_text: Callable[[str], None] | None = None) -> WrittenSummary:
        control = ensure_control(control)
        deadline = None if options.time_limit_s is None else time.perf_counter() + options.time_limit_s
        result = WrittenSummary(paragraphs=[], used=[])
        counts = {"written": 0, "supported": 0, "dropped": 0, "replaced": 0}
        for k, paragraph_evidence in enumerate(evidence):
            role = paragraph_evidence.role
            stage = f"writing the {ROLE_TITLES.get(role, role).lower()} paragraph"
            control.report(k, len(evidence), stage)
            if not paragraph_evidence.items:
                result.paragraphs.append(SummaryParagraph(role=role, text="", source="model"))
                result.used.append([])
                result.repairs.append(_repair(k, "no evidence", "the document has no body sentences for this role",
                                              "the paragraph is left empty"))
                continue
            remaining = None if deadline is None else deadline - time.perf_counter()
            text: str | list[str] = ""
            generation, failure = None, None
            if remaining is not None and remaining <= 0:
                failure = "the time for the summary was used up before this paragraph"
            else:
                try:
                    # the model's token progress fills this paragraph's share of the bar
                    paragraph_control = nested_control(control, k, len(evidence), stage, phases=MODEL_CALL_PHASES)
                    generate = self._shorten if self.by_sentence else self._generate
                    text, generation = generate(document, paragraph_evidence, options, deadline,
                                                paragraph_control, on_text, seed=options.seed + k)
                except SummaryCancelled as cancelled:
                    cancelled.partial = {**cancelled.partial, "paragraphs": [
                        {"role": p.role, "text": p.text} for p in result.paragraphs]}
                    raise
                except (EndpointError, SecretError, ModelProcessError) as error:
                    # A server that cannot be reached or refuses the key, or a model process that crashed,
                    # is the user's setup, not a bad paragraph: said at once instead of a summary quietly
                    # made of fallbacks. Once a paragraph has come back, a later failure is a fallback like
                    # any other (recorded in the repairs; the next paragraph starts a new model process).
                    if counts["written"] == 0 and not result.generations:
                        raise
                    failure = f"the model failed: {error}"
                except EngineError as error:
                    failure = f"the model failed: {error}"
            if generation is not None:
                result.generations.append(GenerationRecord.model_validate({"stage": f"paragraph {k + 1} ({role})",
                                                                           **generation}))
            checked = self.check(text, paragraph_evidence, document.title, cut_off=bool(
                not self.by_sentence and generation and generation.get("finish_reason") in ("length", "timeout")))
            counts["written"] += len(checked)
            kept = [c for c in checked if c.problem is None]
            counts["supported"] += len(kept)
            counts["dropped"] += len(checked) - len(kept)
            if generation is not None and generation.get("finish_reason") == "timeout":
                result.repairs.append(_repair(k, "timeout", "the model ran out of time in this paragraph",
                                              "its complete, supported sentences are kept"))
            # by sentence, each unsupported sentence is replaced by evidence, so one supported sentence is
            # enough; a paragraph written in one call needs MIN_KEPT_WORDS of supported text
            if (not kept if self.by_sentence else sum(len(c.text.split()) for c in kept) < MIN_KEPT_WORDS):
                for c in checked:
                    if c.problem is not None:
                        result.repairs.append(_dropped(k, c, None))
                wrote = text if isinstance(text, str) else " ".join(text)
                timed_out = generation is not None and generation.get("finish_reason") == "timeout"
                reason = failure or ("the model ran out of time before it wrote a supported sentence" if timed_out
                                     else "the model wrote nothing" if not wrote.strip() else
                                     "too little of what the model wrote is supported by the evidence")
                paragraph, used = self._fallback(paragraph_evidence)
                result.repairs.append(_repair(k, "paragraph from evidence", reason,
                                              "the evidence's own sentences (body text of the paper)"))
            else:
                sentences, used = self.assemble(k, checked, paragraph_evidence, result.repairs)
                counts["replaced"] += sum(1 for s in sentences if s.evidence and s.evidence[0].how == "extracted")
                paragraph = SummaryParagraph(role=role, text=" ".join(s.text for s in sentences), source="model",
                                             sentences=sentences)
            result.paragraphs.append(paragraph)
            result.used.append(used)
        control.report(len(evidence), len(evidence), "paragraphs written")
        result.record = GroundingRecord.model_validate({
            "writer": "grounded",
            "support": "cross-encoder" if self.reranker is not None else "MiniLM cosine",
            "support_threshold": self.support_threshold,
            **counts,
            "evidence": [e.to_json() for e in evidence],
        })
        return result

    # ------------------------------------------------------------------------------------ the model

    def _shorten(self, document: Document, evidence: ParagraphEvidence, options: SummaryOptions,
                 deadline: float | None, control: JobControl, on_text: Callable[[str], None] | None,
                 *, seed: int) -> tuple[list[str], dict[str, Any]]:
        """The paragraph as the model's shortened version of each evidence sentence, in order: one short
        call per sentence (the shared start of the prompt is read once), each stopped at its first
        sentence. A small model copies and trims faithfully; asked for a paragraph, it invents."""
        outputs: list[str] = []
        calls: list[dict[str, Any]] = []
        items = evidence.items
        for j, item in enumerate(items):
            remaining = None if deadline is None else deadline - time.perf_counter()
            if remaining is not None and remaining <= 0:
                calls.append({"finish_reason": "timeout", "prompt_tokens": 0, "completion_tokens": 0})
                break
            tokens = round(TOKENS_PER_WORD * len(item.text.split())) + 8
            generation_options = GenerationOptions(
                max_tokens=min(self.paragraph_tokens, options.max_tokens, tokens), temperature=self.temperature,
                seed=seed, repeat_penalty=options.repeat_penalty, time_limit_s=remaining,
                reuse_prompt_prefix=True,  # the system message and the worked example are read once
            )
            sentence_control = nested_control(control, j, len(items), f"sentence {j + 1} of {len(items)}",
                                              phases=MODEL_CALL_PHASES)
            text, generation = self._stream(prompts.sentence_messages(item.text), generation_options,
                                            sentence_control, on_text, role=evidence.role, done=outputs, most=1)
            outputs.append(text.strip())
            calls.append(generation)
            if on_text is not None:
                on_text(" ")
        return [o for o in outputs if o], _merged(calls)

    def _stream(self, messages: list[Any], generation_options: GenerationOptions, control: JobControl,
                on_text: Callable[[str], None] | None, *, role: str, done: Sequence[str], most: int
                ) -> tuple[str, dict[str, Any]]:
        """One streamed call, stopped once it begins a sentence past ``most``."""
        stream = self.engine.stream(messages, generation_options, control=control)
        try:
            for piece in stream:
                if on_text is not None:
                    on_text(piece)
                if _sentences_begun(stream.text) > most:
                    # what was asked for is written: stop as a stop sequence would, rather than let a
                    # small model run on into sentences the token limit then cuts off
                    stream.stop()
        except SummaryCancelled as cancelled:
            # what the model wrote of this paragraph is kept for the partial-work file, as in full mode
            raise SummaryCancelled(str(cancelled), partial={"stage": f"paragraph ({role})",
                                                            "text": " ".join([*done, stream.text])}) from cancelled
        assert stream.result is not None
        text = stream.result.text
        if _sentences_begun(text) > most:
            # the writer stopped the model as the next sentence began: those few words are the stop
            # sequence's, not a sentence the model wrote (the generation record keeps them)
            text = " ".join(split_answer_sentences(_HEADING.sub("", text.strip()))[:most])
        return text, stream.result.to_json()

    def _generate(self, document: Document, evidence: ParagraphEvidence, options: SummaryOptions,
                  deadline: float | None, control: JobControl, on_text: Callable[[str], None] | None,
                  *, seed: int) -> tuple[str, dict[str, Any]]:
        remaining = None if deadline is None else deadline - time.perf_counter()
        words = min(MAX_WORDS, ROLE_TARGETS.get(evidence.role, 80) + EXTRA_WORDS)
        messages = prompts.grounded_messages(evidence, title=document.title, words=words, sentences=SENTENCES)
        generation_options = GenerationOptions(
            max_tokens=min(self.paragraph_tokens, options.max_tokens, round(TOKENS_PER_WORD * words)),
            temperature=self.temperature, seed=seed, repeat_penalty=options.repeat_penalty, time_limit_s=remaining,
            # the four prompts share their system message and title line: llama.cpp reads them once
            reuse_prompt_prefix=True,
        )
        return self._stream(messages, generation_options, control, on_text, role=evidence.role, done=[],
                            most=MAX_SENTENCES)

    # --------------------------------------------------------------------------------- the checks

    def check(self, text: str | Sequence[str], evidence: ParagraphEvidence, title: str | None, *,
              cut_off: bool = False) -> list[CheckedSentence]:
        """Every sentence of ``text`` (one answer, or several split apart: an answer that ends without a
        full stop never runs into the next) with its support; ``problem`` says why one is not supported."""
        answers = [text] if isinstance(text, str) else list(text)
        raw = [s for answer in answers for s in split_answer_sentences(_HEADING.sub("", (answer or "").strip()))
               if _WORDS_RE.search(s)]
        if cut_off and raw and not raw[-1].rstrip("\"'”)").endswith((".", "!", "?")):
            last = raw.pop()
            cut = [CheckedSentence(_clean(last), 0.0, [], "cut off by the token or time limit")]
        else:
            cut = []
        sentences = [_clean(s) for s in raw]
        items = evidence.items
        evidence_text = " ".join(i.text for i in items)
        allowed = evidence_text + " " + (title or "")
        allowed_lower = allowed.lower()
        numbers = set(_NUMBER.findall(allowed))
        allowed_words = set(_WORDS_RE.findall(allowed_lower))
        scores = self._support(sentences, [i.text for i in items])
        checked: list[CheckedSentence] = []
        seen: list[str] = []
        for row, sentence in enumerate(sentences):
            order = np.argsort(-scores[row]) if len(items) else np.zeros(0, dtype=int)
            ranked = [(items[int(j)], float(scores[row, int(j)])) for j in order]
            support = ranked[0][1] if ranked else 0.0
            supporting = [(item, s) for item, s in ranked[:CITE_TOP] if s >= self.support_threshold] or ranked[:1]
            problem = None
            if len(sentence.split()) < 4:
                problem = "a fragment, not a sentence"
            elif not sentence.rstrip("\"'”’)]").endswith((".", "!", "?")):
                problem = "unfinished: no full stop"
            elif any(_same(sentence, other) for other in seen):
                problem = "repeats an earlier sentence"
            elif not checked and opener(sentence) == "pronoun":
                problem = "opens the paragraph pointing at a sentence that is not there"
            elif (missing := [n for n in _NUMBER.findall(sentence) if n not in numbers]):
                problem = f"numbers not in the evidence: {', '.join(missing[:4])}"
            elif (unknown := _unknown_names(sentence, allowed_lower)):
                problem = f"names not in the evidence: {', '.join(unknown[:4])}"
            elif (echoed := sorted(w for w in set(_WORDS_RE.findall(sentence.lower()))
                                   if w in _EXAMPLE_WORDS and w not in allowed_words)):
                problem = f"words of the prompt's worked example, not in the evidence: {', '.join(echoed[:4])}"
            elif support < self.support_threshold:
                problem = f"support {support:.2f} is below {self.support_threshold:.2f}"
            checked.append(CheckedSentence(sentence, support, supporting, problem, ranked))
            if problem is None:
                seen.append(sentence)
        return checked + cut

    def _support(self, sentences: list[str], evidence: list[str]) -> np.ndarray:
        if not sentences or not evidence:
            return np.zeros((len(sentences), len(evidence)), dtype=np.float32)
        if self.reranker is not None:
            logits = self.reranker.score_pairs([(s, e) for s in sentences for e in evidence])
            return (1.0 / (1.0 + np.exp(-logits))).reshape(len(sentences), len(evidence)).astype(np.float32)
        vectors = np.asarray(self.embedder.embed([*sentences, *evidence]), dtype=np.float32)
        return vectors[: len(sentences)] @ vectors[len(sentences):].T

    # ------------------------------------------------------------------------------ the fallbacks

    def assemble(self, k: int, checked: Sequence[CheckedSentence], evidence: ParagraphEvidence,
                  repairs: list[Repair]) -> tuple[list[SentenceCitation], list[EvidenceItem]]:
        """The paragraph's sentences: the model's supported ones, and in place of each unsupported one
        the closest evidence sentence not used yet (a repair, cited as extracted, never as the model's),
        so that a paragraph keeps its length when the model invents a sentence. A sentence that repeats
        an earlier one or is a fragment leaves no gap and is only dropped; the paragraph never grows past
        the role's extractive length plus ``EXTRA_WORDS`` through replacements."""
        limit = ROLE_TARGETS.get(evidence.role, 80) + EXTRA_WORDS
        taken = {item.number for c in checked if c.problem is None for item, _ in c.items[:1]}
        words = sum(len(c.text.split()) for c in checked if c.problem is None)
        sentences: list[SentenceCitation] = []
        used: list[EvidenceItem] = []
        for c in checked:
            if c.problem is None:
                sentences.append(_citation(c))
                used.extend(item for item, _ in c.items if item not in used)
                continue
            replacement = None
            if not c.problem.startswith(("repeats", "a fragment")):
                for item, _ in c.ranked:
                    if item.number in taken or words + len(item.text.split()) > limit:
                        continue
                    if not sentences and opener(item.text) is not None:
                        continue  # "This …" cannot open a paragraph
                    replacement = item
                    break
            repairs.append(_dropped(k, c, replacement))
            if replacement is not None:
                taken.add(replacement.number)
                words += len(replacement.text.split())
                sentences.append(_extracted(replacement))
                if replacement not in used:
                    used.append(replacement)
        return sentences, used

    def _fallback(self, evidence: ParagraphEvidence) -> tuple[SummaryParagraph, list[EvidenceItem]]:
        """The evidence's first sentences in its extractive order, up to the role's length."""
        target = ROLE_TARGETS.get(evidence.role, 80)
        chosen: list[EvidenceItem] = []
        words = 0
        for item in evidence.items:
            if words >= target:
                break
            if chosen and words + len(item.text.split()) > MAX_WORDS:
                continue
            chosen.append(item)
            words += len(item.text.split())
        chosen.sort(key=lambda i: i.number)
        sentences = [_extracted(i) for i in chosen]
        paragraph = SummaryParagraph(role=evidence.role, text=" ".join(i.text for i in chosen),
                                     source="extracted-fallback", sentences=sentences)
        return paragraph, chosen


def _merged(calls: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One paragraph's record of its per-sentence calls: token and second totals, and why it ended (the
    worst of its calls: timeout before length before stop)."""
    merged: dict[str, Any] = {"calls": len(calls)}
    for key in ("prompt_tokens", "completion_tokens", "prompt_seconds", "generation_seconds"):
        merged[key] = round(sum(c.get(key, 0) or 0 for c in calls), 3)
    reasons = [c.get("finish_reason") for c in calls]
    merged["finish_reason"] = next((r for r in ("cancelled", "timeout", "length") if r in reasons), "stop")
    merged["finish_reasons"] = reasons
    merged["counted"] = next((c["counted"] for c in calls if c.get("counted")), "engine")
    return merged


def _sentences_begun(text: str) -> int:
    """How many sentences ``text`` has, the last one possibly unfinished (0 for no words)."""
    return sum(1 for s in split_answer_sentences(_HEADING.sub("", text.strip())) if _WORDS_RE.search(s))


def _clean(sentence: str) -> str:
    """The model's sentence without evidence numbers ("[2]"), markdown emphasis or stray spaces."""
    sentence = _REF_MARK.sub("", sentence).replace("**", "").replace("__", "")
    sentence = _LIST_MARK.sub("", sentence)
    sentence = re.sub(r"\s+([.,;:!?])", r"\1", sentence)
    return " ".join(sentence.split()).strip(" -•*")


def _same(a: str, b: str) -> bool:
    wa, wb = set(_WORDS_RE.findall(a.lower())), set(_WORDS_RE.findall(b.lower()))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= 0.8


def _unknown_names(sentence: str, allowed_lower: str) -> list[str]:
    names = set(_NAME.findall(sentence)) | {m.group(0) for m in _CAPITALISED.finditer(sentence) if m.start() > 0}
    return sorted(n for n in names if n.lower() not in _COMMON_CAPITALS and n.lower() not in allowed_lower)


def _extracted(item: EvidenceItem) -> SentenceCitation:
    """An evidence sentence shown as itself: cited as extracted (score 1), never as the model's."""
    return SentenceCitation(text=item.text, pages=[item.page] if item.page is not None else [],
                            figures=[c for c in item.cites if not c.lower().startswith("table")],
                            tables=[c for c in item.cites if c.lower().startswith("table")],
                            blocks=[item.block], evidence=[Evidence(block=item.block, page=item.page, score=1.0,
                                                                    how="extracted")])


def _dropped(k: int, checked: CheckedSentence, replacement: EvidenceItem | None) -> Repair:
    if replacement is None:
        return Repair(paragraph=k + 1, kind="unsupported sentence dropped", reason=checked.problem or "",
                      text=checked.text, by="support check")
    return Repair(paragraph=k + 1, kind="unsupported sentence replaced by evidence", reason=checked.problem or "",
                  text=checked.text, by="the closest evidence sentence", evidence=replacement.number,
                  replacement=replacement.text)


def _citation(checked: CheckedSentence) -> SentenceCitation:
    citation = SentenceCitation(text=checked.text)
    for item, score in checked.items:
        citation.evidence.append(Evidence(block=item.block, page=item.page, score=score, how="support"))
        if item.block not in citation.blocks:
            citation.blocks.append(item.block)
        if item.page is not None and item.page not in citation.pages:
            citation.pages.append(item.page)
        for label in item.cites:
            target = citation.tables if label.lower().startswith("table") else citation.figures
            if label not in target:
                target.append(label)
    return citation


def _repair(k: int, kind: str, reason: str, by: str) -> Repair:
    return Repair(paragraph=k + 1, kind=kind, reason=reason, by=by)
