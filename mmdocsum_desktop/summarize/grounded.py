"""The grounded writer ("extract, then write"): a language model writes each paragraph from its evidence
only, and every sentence it writes is checked against that evidence before a reader sees it.

1. Evidence: per role, the body sentences the extractive stage picked (summarize/evidence.py), numbered,
   with their pages — a short prompt (a few hundred tokens), so a 135M model on two cores writes a
   paragraph in seconds and a 1.5B one in well under half a minute.
2. Writing: one streamed call per paragraph (``on_text`` gets each piece as it comes, for the GUI);
   the remaining time of ``SummaryOptions.time_limit_s`` bounds each call.
3. Checking: each written sentence must be close to the evidence (cosine of MiniLM embeddings, or the
   cross-encoder's relevance when one is given, at least ``support_threshold``), and every number and
   every name (capitalised or mixed-case words, acronyms) in it must occur in the evidence or the title.
   A sentence that fails is dropped and recorded in the summary's repairs with the reason; a sentence cut
   off by the token limit or the time limit is dropped too.
4. Citing: each kept sentence cites the evidence sentences that support it (pages, blocks, and the
   figures and tables those sentences cite).
5. Fallbacks, each recorded in repairs: a paragraph with nothing supported left (the model wrote
   nothing, wrote off topic, failed or ran out of time) is the evidence's own best sentences instead —
   body prose, never back matter; a role with no evidence at all stays empty and says so.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mmdocsum_desktop.document.model import Document
from mmdocsum_desktop.engines.base import MODEL_CALL_PHASES, GenerationOptions, TextEngine
from mmdocsum_desktop.engines.extractive import MAX_WORDS, ROLE_TARGETS, ROLE_TITLES, Embedder, opener
from mmdocsum_desktop.errors import EndpointError, EngineError, SecretError, SummaryCancelled
from mmdocsum_desktop.jobs import JobControl, ensure_control, nested_control
from mmdocsum_desktop.summarize import prompt as prompts
from mmdocsum_desktop.summarize.evidence import EvidenceItem, ParagraphEvidence
from mmdocsum_desktop.summarize.schema import Evidence, SentenceCitation, SummaryOptions, SummaryParagraph
from mmdocsum_desktop.text.sentences import split_answer_sentences

SUPPORT_THRESHOLD = 0.6  # cosine of MiniLM embeddings, sentence vs its best evidence sentence
RERANK_THRESHOLD = 0.5  # sigmoid of the cross-encoder's logit, when a cross-encoder checks instead
MIN_KEPT_WORDS = 20  # fewer supported words than this: the paragraph is the evidence's own sentences
PARAGRAPH_TOKENS = 170  # about 120 words: a paragraph, not an essay
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


@dataclass
class CheckedSentence:
    text: str
    support: float
    items: list[tuple[EvidenceItem, float]]  # the evidence that supports it, best first
    problem: str | None = None  # why it is not supported


@dataclass
class WrittenSummary:
    paragraphs: list[SummaryParagraph]
    used: list[list[EvidenceItem]]  # per paragraph: the evidence its sentences rest on
    repairs: list[dict[str, Any]] = field(default_factory=list)
    generations: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] = field(default_factory=dict)


class GroundedWriter:
    """``GroundedWriter(engine, embedder).write(document, evidence, options)`` → a WrittenSummary."""

    def __init__(self, engine: TextEngine, embedder: Embedder, *, reranker: Any = None,
                 support_threshold: float | None = None, paragraph_tokens: int = PARAGRAPH_TOKENS,
                 temperature: float | None = None) -> None:
        self.engine = engine
        self.embedder = embedder
        self.reranker = reranker
        self.support_threshold = support_threshold if support_threshold is not None else (
            RERANK_THRESHOLD if reranker is not None else SUPPORT_THRESHOLD)
        self.paragraph_tokens = paragraph_tokens
        # greedy by default: what a paragraph of evidence needs is fidelity, not variety (a regenerated
        # paragraph samples, so that each attempt differs)
        self.temperature = 0.0 if temperature is None else temperature

    def write(self, document: Document, evidence: Sequence[ParagraphEvidence], options: SummaryOptions, *,
              control: JobControl | None = None, on_text: Callable[[str], None] | None = None) -> WrittenSummary:
        control = ensure_control(control)
        deadline = None if options.time_limit_s is None else time.perf_counter() + options.time_limit_s
        result = WrittenSummary(paragraphs=[], used=[])
        counts = {"written": 0, "supported": 0, "dropped": 0}
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
            text, generation, failure = "", None, None
            if remaining is not None and remaining <= 0:
                failure = "the time for the summary was used up before this paragraph"
            else:
                try:
                    # the model's token progress fills this paragraph's share of the bar
                    paragraph_control = nested_control(control, k, len(evidence), stage, phases=MODEL_CALL_PHASES)
                    text, generation = self._generate(document, paragraph_evidence, options, remaining,
                                                      paragraph_control, on_text, seed=options.seed + k)
                except SummaryCancelled as cancelled:
                    cancelled.partial = {**cancelled.partial, "paragraphs": [
                        {"role": p.role, "text": p.text} for p in result.paragraphs]}
                    raise
                except (EndpointError, SecretError) as error:
                    # A server that cannot be reached or refuses the key is the user's setup, not a bad
                    # paragraph: said at once instead of a summary quietly made of fallbacks. Once a
                    # paragraph has come back, a later failure is a fallback like any other.
                    if counts["written"] == 0 and not result.generations:
                        raise
                    failure = f"the model failed: {error}"
                except EngineError as error:
                    failure = f"the model failed: {error}"
            if generation is not None:
                result.generations.append({"stage": f"paragraph {k + 1} ({role})", **generation})
            checked = self.check(text, paragraph_evidence, document.title, cut_off=bool(
                generation and generation.get("finish_reason") in ("length", "timeout")))
            counts["written"] += len(checked)
            kept = [c for c in checked if c.problem is None]
            counts["supported"] += len(kept)
            for c in checked:
                if c.problem is not None:
                    counts["dropped"] += 1
                    result.repairs.append({"paragraph": k + 1, "kind": "unsupported sentence dropped",
                                           "reason": c.problem, "text": c.text, "by": "support check"})
            if generation is not None and generation.get("finish_reason") == "timeout":
                result.repairs.append(_repair(k, "timeout", "the model ran out of time in this paragraph",
                                              "its complete, supported sentences are kept"))
            if sum(len(c.text.split()) for c in kept) < MIN_KEPT_WORDS:
                reason = failure or ("the model wrote nothing" if not text.strip() else
                                     "too little of what the model wrote is supported by the evidence")
                paragraph, used = self._fallback(paragraph_evidence)
                result.repairs.append(_repair(k, "paragraph from evidence", reason,
                                              "the evidence's own sentences (body text of the paper)"))
            else:
                paragraph = SummaryParagraph(role=role, text=" ".join(c.text for c in kept), source="model",
                                             sentences=[_citation(c) for c in kept])
                used = list(dict.fromkeys(item for c in kept for item, _ in c.items))
            result.paragraphs.append(paragraph)
            result.used.append(used)
        control.report(len(evidence), len(evidence), "paragraphs written")
        result.record = {
            "writer": "grounded",
            "support": "cross-encoder" if self.reranker is not None else "MiniLM cosine",
            "support_threshold": self.support_threshold,
            **counts,
            "evidence": [e.to_json() for e in evidence],
        }
        return result

    # ------------------------------------------------------------------------------------ the model

    def _generate(self, document: Document, evidence: ParagraphEvidence, options: SummaryOptions,
                  remaining: float | None, control: JobControl, on_text: Callable[[str], None] | None,
                  *, seed: int) -> tuple[str, dict[str, Any]]:
        words = min(MAX_WORDS, ROLE_TARGETS.get(evidence.role, 80) + 20)
        messages = prompts.grounded_messages(evidence, title=document.title, words=words)
        generation_options = GenerationOptions(
            max_tokens=min(self.paragraph_tokens, options.max_tokens), temperature=self.temperature, seed=seed,
            repeat_penalty=options.repeat_penalty, time_limit_s=remaining,
        )
        stream = self.engine.stream(messages, generation_options, control=control)
        try:
            for piece in stream:
                if on_text is not None:
                    on_text(piece)
        except SummaryCancelled as cancelled:
            # what the model wrote of this paragraph is kept for the partial-work file, as in full mode
            raise SummaryCancelled(str(cancelled), partial={"stage": f"paragraph ({evidence.role})",
                                                            "text": stream.text}) from cancelled
        assert stream.result is not None
        return stream.result.text, stream.result.to_json()

    # --------------------------------------------------------------------------------- the checks

    def check(self, text: str, evidence: ParagraphEvidence, title: str | None, *, cut_off: bool = False
              ) -> list[CheckedSentence]:
        """Every sentence of ``text`` with its support; ``problem`` says why one is not supported."""
        text = _HEADING.sub("", (text or "").strip())
        raw = [s for s in split_answer_sentences(text) if _WORDS_RE.search(s)]
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
        scores = self._support(sentences, [i.text for i in items])
        checked: list[CheckedSentence] = []
        seen: list[str] = []
        for row, sentence in enumerate(sentences):
            order = np.argsort(-scores[row]) if len(items) else []
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
            elif support < self.support_threshold:
                problem = f"support {support:.2f} is below {self.support_threshold:.2f}"
            checked.append(CheckedSentence(sentence, support, supporting, problem))
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

    # ------------------------------------------------------------------------------ the fallback

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
        sentences = [SentenceCitation(text=i.text, pages=[i.page] if i.page is not None else [],
                                      figures=[c for c in i.cites if not c.lower().startswith("table")],
                                      tables=[c for c in i.cites if c.lower().startswith("table")],
                                      blocks=[i.block], evidence=[Evidence(block=i.block, page=i.page, score=1.0,
                                                                           how="extracted")])
                     for i in chosen]
        paragraph = SummaryParagraph(role=evidence.role, text=" ".join(i.text for i in chosen),
                                     source="extracted-fallback", sentences=sentences)
        return paragraph, chosen


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


def _repair(k: int, kind: str, reason: str, by: str) -> dict[str, Any]:
    return {"paragraph": k + 1, "kind": kind, "reason": reason, "by": by}
