"""The PDF + JATS pairs benchmark (``mmdocsum bench pairs --pairs DIR [--split dev|test|all] -o OUT``).

For every pair (``NAME.pdf`` beside ``NAME.xml``) the app's own ingestion reads the PDF and the JATS gives
the gold (``bench/pairs_gold.py``); the metrics are pure functions (``bench/metrics/pairs.py``). Four
stages, each resumable on its own (``OUT/<stage>/<NAME>.json``), each runnable alone (``stages``):

- ``figures``: label recall and precision, caption match, regions shared by two captions, crops that are
  blank or mostly body text;
- ``text``: body paragraphs recovered, body text that JATS puts in back matter / captions / tables (leaks),
  abstract and references found, characters that should not survive, headings;
- ``flow``: FTII flow insertion on the JATS paragraphs with citations removed (gold = the figure a
  paragraph is first to cite; pool = the figures the app extracted), and on the app's own paragraphs;
- ``summary``: a summary written without the abstract, scored against the abstract (and eLife digest),
  and per role against a structured abstract's sections (Background / Methods / Results / Conclusions);
  where each sentence comes from, whether each paragraph's figure is cited where its sentences come from;
  what a reader meets: words per 1,000 the JATS never uses (broken and glued words), empty paragraphs,
  abstract labels ("Background:"), paragraphs illustrated, and paragraphs without a figure that do not say
  why. The text stage also checks the title against ``<article-title>`` and the body's foreign words.

A JATS file without a PDF (eLife) runs the text and summary stages on the JATS reader's Document.
A malformed XML, an unreadable PDF or a PDF of another article is reported per item and skipped.

The document read from each PDF is kept in ``OUT/documents/`` so stages share one reading; the run's
settings include a fingerprint of the ingestion code, so a resumed run never mixes two versions of it.
"""

from __future__ import annotations

import hashlib
import html
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmdocsum_desktop.app.extract import export
from mmdocsum_desktop.app.pages import PdfPages
from mmdocsum_desktop.app.placement import figure_candidates
from mmdocsum_desktop.app.placement import place as app_place
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.app.summary import section_role  # the app's heading → summary role rule
from mmdocsum_desktop.app.summary import summarize as app_summarize
from mmdocsum_desktop.bench.glue import current_session
from mmdocsum_desktop.bench.metrics import pairs as m
from mmdocsum_desktop.bench.metrics.rouge import rouge
from mmdocsum_desktop.bench.pairs_gold import GoldError, PairGold, read_gold, strip_citations
from mmdocsum_desktop.bench.pairs_split import PairFiles, pairs_in
from mmdocsum_desktop.bench.runner import RunFolder, run_stage
from mmdocsum_desktop.errors import BenchError, InputNotFoundError, JobCancelled, MmdocsumError
from mmdocsum_desktop.fileio import write_json_atomic, write_text_atomic
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.schemas.placement import ImageCandidate
from mmdocsum_desktop.schemas.settings import EngineChoice
from mmdocsum_desktop.schemas.summary import SummaryRequest
from mmdocsum_desktop.text.paragraphs import split_paragraphs
from mmdocsum_desktop.text.sentences import split_sentences

STAGES = ("figures", "text", "flow", "summary")
SUITE = "pairs"
DOCUMENTS = "documents"
# A crop "mostly body text": more than this share of its words is running text of the article.
BODY_CROP_SHARE = 0.5

# Each paragraph's section titles (outermost first), or None where not known
Sections = Sequence[Sequence[str] | str | None]
# (paragraphs, candidates, their sections) → the chosen candidate index or None per paragraph. The
# paragraphs as `mmdocsum place` receives them: a Markdown text (its headings read; the answer is per
# paragraph of split_paragraphs(text)), or a list — a JSON list (sections None: no headings) or a paper's
# own paragraphs with their sections
Placer = Callable[[str | list[str], list[ImageCandidate], Sections | None], list[int | None]]
# (document, folder of its figure crops) → per paragraph, in role order (background, method, results,
# conclusion): (text, figure label or None[, why no figure or None[, source]]); source "absent": the
# paragraph says the paper has no such part (its words are the app's, not the paper's)
Summarizer = Callable[[Document, Path], list[tuple[Any, ...]]]


class PairSkipped(BenchError):
    """This pair cannot be scored (malformed XML, unreadable PDF, PDF of another article)."""


@dataclass
class PairsHooks:
    """What the suite measures besides ingestion; the placement and summary work plug in their own."""

    placer: Placer | None = None
    summarizer: Summarizer | None = None
    placer_name: str = "app.place with the session's settings, the paragraphs' sections given"
    summarizer_name: str = "app.summarize, extractive, no abstract"


# ------------------------------------------------------------------------------------------ defaults


def default_placer(session: Session | None = None) -> tuple[Placer, str]:
    """``app.place`` with the run's session (its settings), as `mmdocsum place` and the Authoring view place,
    given the section each paragraph sits under (a paper's own text knows them)."""
    session = session or current_session()

    def place(paragraphs: str | list[str], candidates: list[ImageCandidate], sections: Sections | None) -> list[int | None]:
        # a list without sections is `mmdocsum place` with a JSON list: paragraphs only, no headings
        plain = not isinstance(paragraphs, str) and sections is None
        run = app_place(session, paragraphs, candidates, sections=sections, headings=not plain)
        return [p.candidate for p in run.placements]

    return place, "app.place with the session's settings and models (as `mmdocsum place`), paragraphs' sections given"


@dataclass
class UserText:
    """Paragraphs in the form a user gives `mmdocsum place`, and where each original paragraph went."""

    text: str | list[str]
    rows: list[int | None]  # per paragraph placement answers for: the original paragraph's index (None: heading)

    def per_paragraph(self, chosen: Sequence[int | None], count: int) -> list[int | None]:
        out: list[int | None] = [None] * count
        for row, choice in zip(self.rows, chosen):
            if row is not None:
                out[row] = choice
        return out


def _one_line(text: str) -> str:
    return " ".join((text or "").split())


def user_forms(paragraphs: Sequence[str], sections: Sections, title: str | None = None) -> list[tuple[str, UserText]]:
    """("markdown", the paragraphs under Markdown headings typed from their section titles — ``##`` for a
    top section, ``###`` inside it, the title as ``#``), ("list", the paragraphs as a JSON list). Each
    paragraph is one block (its blank lines folded); empty paragraphs are left out of both, as a writer
    would, and score as "no image"."""
    blocks: list[str] = []
    rows: list[int | None] = []
    if title and _one_line(title):
        blocks.append("# " + _one_line(title))
        rows.append(None)
    previous: tuple[str, ...] = ()
    kept: list[int] = []
    for index, (text, path) in enumerate(zip(paragraphs, sections)):
        body = "\n".join(line for line in (text or "").strip().splitlines() if line.strip())
        if not body:
            continue
        if body.lstrip().startswith("#"):
            body = body.lstrip("# ")  # a paragraph is not a heading because its first word is "#1"
        titles = tuple(_one_line(t) for t in ((path,) if isinstance(path, str) else (path or ())) if _one_line(t))
        common = 0
        while common < min(len(titles), len(previous)) and titles[common] == previous[common]:
            common += 1
        for depth in range(common, len(titles)):
            blocks.append("#" * min(depth + 2, 6) + " " + titles[depth])
            rows.append(None)
        previous = titles
        blocks.append(body)
        rows.append(index)
        kept.append(index)
    markdown = "\n\n".join(blocks) + "\n"
    # The CLI splits a .md file as the Authoring view does; where that would split a block differently
    # (a paragraph that is only an image line), the view's already-split list stands in for the text
    given: str | list[str] = markdown if split_paragraphs(markdown) == blocks else list(blocks)
    listed = [("\n".join(line for line in (paragraphs[i] or "").strip().splitlines() if line.strip())) for i in kept]
    return [("markdown", UserText(given, rows)), ("list", UserText(listed, list(kept)))]


def default_summarizer(session: Session | None = None) -> tuple[Summarizer, str]:
    """The extractive summary through the application's use case (``app.summarize``, the session's
    settings), abstract left out: what `mmdocsum summarize --engine extractive --no-abstract` writes."""
    session = session or current_session()
    choice = EngineChoice(engine="extractive")

    def summarize(document: Document, assets: Path) -> list[tuple[Any, ...]]:
        summary = app_summarize(session, document, assets, choice=choice,
                                options=SummaryRequest(include_abstract=False, citations=False))
        return [(p.text, p.figure.label if p.figure is not None else None,
                 p.no_figure.kind if p.no_figure is not None else None, p.source) for p in summary.paragraphs]

    return summarize, "extractive engine through app.summarize (the session's settings), no abstract"


# the reader's code (mmdocsum_desktop/document/), whose version a run's saved documents depend on
INGESTION_CODE = Path(__file__).resolve().parents[2] / "document"


def ingestion_fingerprint() -> str:
    """sha256 over the ingestion code: a resumed run must not mix documents read by two versions."""
    digest = hashlib.sha256()
    for path in sorted(INGESTION_CODE.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


# ---------------------------------------------------------------------------------------------- items


def body_blocks(document: Document) -> list[Block]:
    """The blocks the app treats as body text: not captions, not the abstract, not back matter or
    furniture (blocks ingestion marked so; a Document without the marks counts every block)."""
    return [
        b
        for b in document.blocks
        if b.type != "caption" and not b.is_abstract and getattr(b, "section_kind", None) in (None, "body")
    ]


def flagged(block: Block) -> bool:
    return bool(getattr(block, "unmapped_glyphs", False))


@dataclass
class LoadedPair:
    pair: PairFiles
    gold: PairGold
    document: Document
    read_s: float
    pages: int


@dataclass
class PairsRun:
    pairs_dir: Path
    out: Path
    hooks: PairsHooks = field(default_factory=PairsHooks)
    documents_from: Path | None = None  # score the documents an earlier run saved instead of reading PDFs
    # the run's session: read, place and summarise as the commands do (one session, its models loaded once)
    session: Session = field(default_factory=current_session)
    _index_cache: dict[str, m.PartIndex] = field(default_factory=dict)

    # --------------------------------------------------------------------------------- loading

    def load(self, pair: PairFiles, control: JobControl) -> LoadedPair:
        try:
            gold = read_gold(pair.xml)
        except GoldError as error:
            raise PairSkipped(str(error)) from error
        cache = (self.documents_from or self.out / DOCUMENTS) / f"{pair.name}.json"
        if pair.pdf is None:
            document, read_s = self._read(pair.xml, control)
            return LoadedPair(pair, gold, document, read_s, 0)
        if cache.exists():
            try:
                saved = json.loads(cache.read_text(encoding="utf-8"))
                document = Document.model_validate(saved["document"])
                return LoadedPair(pair, gold, document, float(saved["read_s"]), int(saved["pages"]))
            except (OSError, ValueError, KeyError):
                pass  # a damaged cache entry is read again
        if self.documents_from is not None:
            raise PairSkipped(f"{pair.name}: no saved document in {self.documents_from}")
        document, read_s = self._read(pair.pdf, control)
        first_pages = " ".join([document.title or "", *(b.text for b in document.blocks if (b.page or 1) <= 2)])
        if not m.title_matches(gold.title, first_pages):
            letters = [c for c in first_pages if c.isalpha()]
            if letters and sum(c.isascii() for c in letters) < 0.5 * len(letters) and gold.title.isascii():
                raise PairSkipped(
                    f"{pair.pdf.name}: its text layer does not decode to readable text (fonts with their own "
                    f"encoding and no Unicode map); the title {gold.title[:50]!r} cannot be found"
                )
            raise PairSkipped(
                f"{pair.pdf.name} is not the article of {pair.xml.name} (title {gold.title[:60]!r} not on its first pages)"
            )
        write_json_atomic(cache, {"read_s": read_s, "pages": document.page_count or 0, "document": document.model_dump(mode="json")})
        return LoadedPair(pair, gold, document, read_s, document.page_count or 0)

    def _read(self, path: Path, control: JobControl) -> tuple[Document, float]:
        started = time.perf_counter()
        try:
            # the session's reader, as every command reads: scanned pages with OCR
            document = self.session.read(path, control=control)
        except MmdocsumError as error:
            raise PairSkipped(str(error)) from error
        return document, time.perf_counter() - started

    def index(self, loaded: LoadedPair) -> m.PartIndex:
        key = loaded.pair.name
        if key not in self._index_cache:
            self._index_cache.clear()  # one paper at a time: keep memory flat
            self._index_cache[key] = m.gold_parts(loaded.gold)
        return self._index_cache[key]

    # ---------------------------------------------------------------------------------- stages

    def figures(self, pair: PairFiles, control: JobControl) -> dict[str, Any]:
        loaded = self.load(pair, control)
        started = time.perf_counter()
        gold, document = loaded.gold, loaded.document
        result: dict[str, Any] = {"read_s": round(loaded.read_s, 4), "pages": loaded.pages}
        if pair.pdf is None:
            return {**result, "applicable": False}
        gold_by_label = {v.key: v for v in gold.visuals if v.key}
        found_by_label: dict[str, Any] = {}
        for visual in document.visuals:
            if visual.label and not visual.continues:
                found_by_label.setdefault(visual.label.lower(), visual)
        labels = m.label_scores(gold_by_label, found_by_label)
        f1s = {key: m.caption_f1(found_by_label[key].caption, gold_by_label[key].caption) for key in labels.matched}
        regions = [(v.id, v.page, v.bbox) for v in document.visuals]
        continued = {(v.id, v.continues) for v in document.visuals if v.continues}
        shared = [p for p in m.shared_regions(regions) if p not in continued and p[::-1] not in continued]
        crops = self._crop_checks(loaded)
        kinds = {}
        for kind in ("figure", "table"):
            kind_scores = m.label_scores(
                [k for k, v in gold_by_label.items() if v.kind == kind],
                [k for k, v in found_by_label.items() if v.kind == kind],
            )
            kinds[kind] = {"recall": kind_scores.recall, "precision": kind_scores.precision}
        return {
            **result,
            "applicable": True,
            "n_gold": len(gold_by_label),
            "n_found": len(found_by_label),
            "n_matched": len(labels.matched),
            "label_recall": labels.recall,
            "label_precision": labels.precision,
            "missed": labels.missed,
            "spurious": labels.spurious,
            "by_kind": kinds,
            "caption_f1": {k: round(v, 4) for k, v in f1s.items()},
            "captions_matched": sum(v >= m.CAPTION_MATCH_F1 for v in f1s.values()),
            "shared_regions": [list(p) for p in shared],
            "uncaptioned": sum(1 for v in document.visuals if not v.label),
            "crops": crops,
            "seconds": round(time.perf_counter() - started, 4),
        }

    def _crop_checks(self, loaded: LoadedPair) -> dict[str, Any]:
        """Each region's words (is it mostly body text?) and a tiny rendering (is it blank?)."""
        if loaded.pair.pdf is None:  # an article without its PDF has no crops (figures() said so already)
            return {}
        index = self.index(loaded)
        rows = {}
        # the page service holds the PyMuPDF lock for each call (PyMuPDF loads with the first PDF opened)
        with PdfPages(loaded.pair.pdf) as pdf:
            for visual in loaded.document.visuals:
                if visual.bbox is None or visual.page is None:
                    continue
                clip = pdf.clip(visual.page - 1, visual.bbox)
                if clip is None:
                    rows[visual.id] = {"blank": True, "body_share": 0.0}
                    continue
                text = " ".join(w[4] for w in pdf.words(visual.page - 1, clip=clip))
                samples = pdf.render(visual.page - 1, clip=clip, dpi=18, gray=True).samples
                blank = not samples or max(samples) - min(samples) < 16
                rows[visual.id] = {"blank": blank, "body_share": round(m.body_text_share(text, index), 4)}
        return rows

    def text(self, pair: PairFiles, control: JobControl) -> dict[str, Any]:
        loaded = self.load(pair, control)
        started = time.perf_counter()
        gold, document = loaded.gold, loaded.document
        index = self.index(loaded)
        body = body_blocks(document)
        body_texts = [b.text for b in body]
        chars = sum(len(t) for t in body_texts)
        parts: dict[str, int] = {}
        for text in body_texts:
            part = index.part_of(text)
            parts[part] = parts.get(part, 0) + len(text)
        worst_leaks = sorted(
            ((index.part_of(t), t) for t in body_texts if index.part_of(t) in m.LEAK_PARTS),
            key=lambda pt: -len(pt[1]),
        )[:5]
        shown = [b for b in document.blocks if b in body or b.type == "caption" or b.is_abstract]
        broken = {k: 0 for k in m.broken_characters("")}
        broken_flagged = dict(broken)
        written = "\n".join([gold.abstract, *(p.text for p in gold.paragraphs), *gold.caption_texts, *gold.table_texts])
        for block in shown:
            target = broken_flagged if flagged(block) else broken
            for kind, count in m.broken_characters(block.text, written).items():
                target[kind] += count
        headings = [b.text for b in document.blocks if b.type == "heading"]
        vocabulary = m.jats_vocabulary(gold)
        body_words = sum(len(m.letter_words(t)) for t in body_texts)
        foreign = [w for t in body_texts for w in m.foreign_words(t, vocabulary)]
        references = any(getattr(b, "section_kind", None) == "references" for b in document.blocks) or any(
            m.words(h)[:1] in (["references"], ["bibliography"], ["literature"]) for h in headings
        )
        return {
            "read_s": round(loaded.read_s, 4),
            "pages": loaded.pages,
            "body_chars": chars,
            "part_chars": parts,
            "leak_examples": [{"part": p, "text": t[:160]} for p, t in worst_leaks],
            "paragraph_recall": m.paragraph_recall([p.text for p in gold.paragraphs], "\n".join(body_texts)),
            "heading_recall": m.heading_recall(gold.section_titles, headings),
            "abstract_recall": m.text_recall(gold.abstract, document.abstract or "") if gold.abstract else None,
            "references_found": references,
            "broken": broken,
            "broken_flagged": broken_flagged,
            "flagged_blocks": sum(flagged(b) for b in document.blocks),
            "title": document.title,
            "title_f1": round(m.title_f1(gold.title, document.title), 4),
            "title_correct": m.title_correct(gold.title, document.title),
            "body_words": body_words,
            "body_foreign": len(foreign),
            "body_foreign_examples": sorted(set(foreign))[:12],
            "seconds": round(time.perf_counter() - started, 4),
        }

    def flow(self, pair: PairFiles, control: JobControl) -> dict[str, Any]:
        loaded = self.load(pair, control)
        started = time.perf_counter()
        gold, document = loaded.gold, loaded.document
        if self.hooks.placer is None:
            self.hooks.placer, self.hooks.placer_name = default_placer(self.session)
        candidates = figure_candidates(document, None, include_tables=False, require_image=False)
        for candidate in candidates:
            # FTII gives the placer captions only: the PDF's citing sentences would hand it the answer
            candidate.context = []
        keys = [(c.label or f"#{c.order}").lower() for c in candidates]
        gold_ids = gold.first_citations(("figure",))
        label_of = {v.id: (v.label or v.id).lower() for v in gold.visuals}
        gold_keys = [label_of.get(g) if g else None for g in gold_ids]
        paragraphs = [p.flow_text for p in gold.paragraphs]
        sections = [tuple(p.section_path) or None for p in gold.paragraphs]
        result: dict[str, Any] = {"read_s": round(loaded.read_s, 4), "pool": len(candidates)}
        chosen = self.hooks.placer(paragraphs, candidates, sections) if candidates else [None] * len(paragraphs)
        predicted = [keys[c] if c is not None else None for c in chosen]
        result["jats"] = m.flow_scores(gold_keys, predicted).to_dict()
        result["jats_predicted"] = predicted
        result["jats_gold"] = gold_keys
        # the user's path: the same paragraphs as `mmdocsum place` receives them — a Markdown text whose
        # headings a writer typed from the JATS section titles, and a plain JSON list (no sections)
        for variant, given in user_forms(paragraphs, sections, gold.title):
            picked = self.hooks.placer(given.text, candidates, None) if candidates else []
            chosen_here = given.per_paragraph(picked, len(paragraphs))
            result[f"jats_{variant}"] = m.flow_scores(
                gold_keys, [keys[c] if c is not None else None for c in chosen_here]).to_dict()
        # the second variant: the paragraphs the app itself read from the PDF, mentions removed
        own = [b for b in body_blocks(document) if b.type == "paragraph"]
        own_texts = [strip_citations(b.text) for b in own]
        matches = m.match_paragraphs(own_texts, [p.text for p in gold.paragraphs])
        own_gold = m.transfer_gold(matches, gold_keys)
        own_sections = [b.section for b in own]
        own_chosen = (self.hooks.placer(own_texts, candidates, own_sections) if candidates and own_texts
                      else [None] * len(own_texts))
        own_predicted = [keys[c] if c is not None else None for c in own_chosen]
        result["own"] = m.flow_scores(own_gold, own_predicted).to_dict()
        for variant, given in user_forms(own_texts, [(s,) if s else None for s in own_sections], None):
            picked = self.hooks.placer(given.text, candidates, None) if candidates and own_texts else []
            chosen_here = given.per_paragraph(picked, len(own_texts))
            result[f"own_{variant}"] = m.flow_scores(
                own_gold, [keys[c] if c is not None else None for c in chosen_here]).to_dict()
        result["own_unmatched"] = sum(x is None for x in matches)
        result["seconds"] = round(time.perf_counter() - started, 4)
        return result

    def summary(self, pair: PairFiles, control: JobControl) -> dict[str, Any]:
        loaded = self.load(pair, control)
        started = time.perf_counter()
        gold, document = loaded.gold, loaded.document
        if self.hooks.summarizer is None:
            self.hooks.summarizer, self.hooks.summarizer_name = default_summarizer(self.session)
        assets = self.out / "crops" / pair.name
        if document.kind == "pdf":
            # the figure crops the summary shows, written as every command writes them (small: 72 dpi)
            export(document, assets, dpi=72, control=control)
        paragraphs = self.hooks.summarizer(document, assets)

        texts = [p[0] or "" for p in paragraphs]
        figures = [p[1] for p in paragraphs]
        notes = [p[2] if len(p) > 2 else None for p in paragraphs]
        absent = [len(p) > 3 and p[3] == "absent" for p in paragraphs]
        text = "\n".join(t.strip() for t in texts if t.strip())
        index = self.index(loaded)
        gold_texts = [p.text for p in gold.paragraphs]
        top = [p.section_path[0] if p.section_path else None for p in gold.paragraphs]
        citing: dict[str, set[str]] = {}
        label_of = {v.id: (v.label or v.id).lower() for v in gold.visuals}
        for paragraph, section in zip(gold.paragraphs, top):
            for rid in paragraph.cites:
                if rid in label_of and section:
                    citing.setdefault(label_of[rid], set()).add(section)
        sources: dict[str, int] = {}
        groundings: list[bool | None] = []
        broken = {k: 0 for k in m.broken_characters("")}
        labels: list[str] = []
        for paragraph_text, figure in zip(texts, figures):
            sentences = split_sentences(paragraph_text)
            labels += m.run_in_labels(sentences)
            matches = m.match_paragraphs(sentences, gold_texts, min_share=0.5)
            for sentence, match in zip(sentences, matches):
                part = "body" if match is not None else m.provenance(sentence, index)
                sources[part] = sources.get(part, 0) + 1
            sections = [top[x] for x in matches if x is not None]
            groundings.append(m.grounded(figure.lower() if figure else None, sections, citing))
            for kind, count in m.broken_characters(paragraph_text).items():
                broken[kind] += count
        result: dict[str, Any] = {
            "read_s": round(loaded.read_s, 4),
            "sentences": sources,
            "grounded": [g for g in groundings],
            "broken": broken,
            "figures": figures,
        }
        vocabulary = m.jats_vocabulary(gold)
        paper_texts = [t for t, said in zip(texts, absent) if not said]
        foreign = [w for t in paper_texts for w in m.foreign_words(t, vocabulary)]
        result.update(
            words=sum(len(m.letter_words(t)) for t in paper_texts),
            absent=[role for role, said in zip(m.ROLE_ORDER, absent) if said],
            foreign=len(foreign),
            foreign_examples=sorted(set(foreign))[:12],
            empty_paragraphs=m.empty_paragraphs(texts),
            run_in_labels=labels,
            no_figure=notes,
            cited_visuals=len(m.cited_visuals(gold)),
            illustratable=len(m.illustratable_roles(
                (section_role(p.section_path[0]) if p.section_path else None, bool(p.cites)) for p in gold.paragraphs)),
            visuals_offered=sum(1 for v in document.visuals if v.label) if document.kind == "pdf" else 0,
            **m.illustration(figures, notes),
        )
        by_role = m.abstract_by_role(gold.abstract_sections)
        if by_role:
            result["rouge_roles"] = {
                role: round(rouge(texts[k], by_role[role])["rouge1"], 4)
                for k, role in enumerate(m.ROLE_ORDER) if role in by_role and k < len(texts)
            }
        if gold.abstract:
            result["rouge_abstract"] = {k: round(v, 4) for k, v in rouge(text, gold.abstract).items() if k in ("rouge1", "rouge2", "rougeL")}
        if gold.digest:
            result["rouge_digest"] = {k: round(v, 4) for k, v in rouge(text, gold.digest).items() if k in ("rouge1", "rouge2", "rougeL")}
        result["seconds"] = round(time.perf_counter() - started, 4)
        return result


# ------------------------------------------------------------------------------------------ the run


def run_pairs(
    pairs_dir: str | Path,
    out: str | Path,
    *,
    split: str = "all",
    stages: Sequence[str] = STAGES,
    hooks: PairsHooks | None = None,
    restart: bool = False,
    documents_from: str | Path | None = None,
    control: JobControl | None = None,
) -> dict[str, Any]:
    """Run the asked stages over the pairs of ``split`` in ``pairs_dir``; write metrics.json and reports.

    ``documents_from``: the ``documents/`` folder of an earlier run — score the documents it read (with
    this version of the metrics) instead of reading the PDFs again; "before" numbers stay comparable."""
    folder_path = Path(pairs_dir)
    if not folder_path.is_dir():
        raise InputNotFoundError(f"{folder_path}: no such folder of PDF + JATS pairs")
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise BenchError(f"unknown stage(s) {', '.join(unknown)}: choose from {', '.join(STAGES)}")
    items = pairs_in(folder_path, split)
    if not items:
        raise InputNotFoundError(
            f"{folder_path}: no pairs in the {split} split (expected NAME.xml, with NAME.pdf beside it)"
            if split != "all" else f"{folder_path}: no PDF + JATS pairs (expected NAME.xml, with NAME.pdf beside it)"
        )
    control = ensure_control(control)
    out_path = Path(out)
    hooks = hooks or PairsHooks()
    settings = {
        "suite": SUITE,
        "pairs": str(folder_path.resolve()),
        "split": split,
        "ingestion": f"documents of {Path(documents_from).resolve()}" if documents_from else ingestion_fingerprint(),
        "placer": hooks.placer_name,
        "summarizer": hooks.summarizer_name,
    }
    folder = RunFolder(out_path, settings, restart=restart)
    if restart and (out_path / DOCUMENTS).is_dir():
        for cached in (out_path / DOCUMENTS).glob("*.json"):
            cached.unlink()
    run = PairsRun(folder_path, out_path, hooks, Path(documents_from) if documents_from else None)
    results: dict[str, dict[str, dict[str, Any]]] = {}
    failed: dict[str, dict[str, str]] = {}
    stage_seconds: dict[str, float] = {}
    for stage in stages:
        outcome = run_stage(folder, stage, items, lambda p: p.name, getattr(run, stage), control=control, label=stage)
        results[stage] = outcome.results
        failed[stage] = outcome.failed
        stage_seconds[stage] = round(outcome.seconds, 3)
        if outcome.cancelled:
            break
    metrics = summarise(items, results, failed, stage_seconds, settings)
    write_json_atomic(out_path / "metrics.json", metrics)
    write_text_atomic(out_path / "report.md", to_markdown(metrics))
    write_text_atomic(out_path / "report.html", to_html(metrics))
    if control.cancelled:
        raise JobCancelled("the pairs benchmark was stopped; run the same command again to continue")
    return metrics


# --------------------------------------------------------------------------------------- aggregation


def _pooled(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Headline numbers of one half: pooled over figures, characters and slots; means over papers."""
    out: dict[str, Any] = {}
    fig = [r["figures"] for r in rows if r.get("figures", {}).get("applicable")]
    if fig:
        gold = sum(r["n_gold"] for r in fig)
        found = sum(r["n_found"] for r in fig)
        matched = sum(r["n_matched"] for r in fig)
        crops = [c for r in fig for c in r["crops"].values()]
        out.update(
            papers_figures=len(fig),
            label_recall=matched / gold if gold else None,
            label_precision=matched / found if found else None,
            caption_match=sum(r["captions_matched"] for r in fig) / matched if matched else None,
            caption_f1_mean=m.mean(v for r in fig for v in r["caption_f1"].values()),
            shared_regions=sum(len(r["shared_regions"]) for r in fig),
            crops=len(crops),
            blank_crops=sum(c["blank"] for c in crops),
            body_text_crops=sum(c["body_share"] > BODY_CROP_SHARE for c in crops),
        )
    text = [r["text"] for r in rows if "text" in r]
    if text:
        chars = sum(r["body_chars"] for r in text) or 1
        part = {p: sum(r["part_chars"].get(p, 0) for r in text) / chars for p in (*m.PARTS, "nowhere")}
        out.update(
            papers_text=len(text),
            paragraph_recall=m.mean(r["paragraph_recall"] for r in text),
            heading_recall=m.mean(r["heading_recall"] for r in text),
            leak_back=part["back"],
            leak_caption=part["caption"],
            leak_table=part["table"],
            leaks=part["back"] + part["caption"] + part["table"],
            front_share=part["front"],
            nowhere_share=part["nowhere"],
            abstract_found=m.mean(
                (r["abstract_recall"] >= 0.5) if r["abstract_recall"] is not None else None for r in text
            ),
            references_found=m.mean(float(r["references_found"]) for r in text),
            clean_papers=m.mean(float(sum(r["broken"].values()) == 0) for r in text),
            broken_chars=sum(sum(r["broken"].values()) for r in text),
            broken_chars_flagged=sum(sum(r["broken_flagged"].values()) for r in text),
            titles_correct=m.mean(
                float(r["title_correct"]) if r.get("title_correct") is not None else None for r in text
            ),
            body_foreign_per_1000=m.per_thousand(sum(r.get("body_foreign", 0) for r in text),
                                                 sum(r.get("body_words", 0) for r in text)),
        )
        kinds: dict[str, int] = {}
        for r in text:
            for k, v in r["broken"].items():
                kinds[k] = kinds.get(k, 0) + v
        out["broken_by_kind"] = kinds
    flow = [r["flow"] for r in rows if "flow" in r]
    if flow:
        jats = m.pool_flow_scores(m.FlowScores(**r["jats"]) for r in flow)
        own = m.pool_flow_scores(m.FlowScores(**r["own"]) for r in flow)
        out.update(
            flow_acc_b=jats.acc_b, flow_acc_i=jats.acc_i, flow_acc_ni=jats.acc_ni, flow_within_one=jats.within_one,
            flow_slots=jats.n_slots,
            own_acc_b=own.acc_b, own_acc_i=own.acc_i, own_acc_ni=own.acc_ni, own_within_one=own.within_one,
        )
        for variant in ("jats_markdown", "jats_list", "own_markdown", "own_list"):
            found = [r[variant] for r in flow if variant in r]
            if found:  # the user's path (issue 39): Markdown with headings, and a plain JSON list
                pooled = m.pool_flow_scores(m.FlowScores(**r) for r in found)
                out.update({f"{variant}_acc_i": pooled.acc_i, f"{variant}_acc_ni": pooled.acc_ni,
                            f"{variant}_acc_b": pooled.acc_b})
    summaries = [r["summary"] for r in rows if "summary" in r]
    if summaries:
        sentences: dict[str, int] = {}
        for r in summaries:
            for k, v in r["sentences"].items():
                sentences[k] = sentences.get(k, 0) + v
        total = sum(sentences.values()) or 1
        grounded = [g for r in summaries for g in r["grounded"] if g is not None]
        out.update(
            rouge1=m.mean(r.get("rouge_abstract", {}).get("rouge1") for r in summaries),
            rouge2=m.mean(r.get("rouge_abstract", {}).get("rouge2") for r in summaries),
            rougeL=m.mean(r.get("rouge_abstract", {}).get("rougeL") for r in summaries),
            digest_rouge1=m.mean(r.get("rouge_digest", {}).get("rouge1") for r in summaries),
            digest_rouge2=m.mean(r.get("rouge_digest", {}).get("rouge2") for r in summaries),
            digest_rougeL=m.mean(r.get("rouge_digest", {}).get("rougeL") for r in summaries),
            sentence_sources={k: v / total for k, v in sorted(sentences.items())},
            figure_grounding=sum(grounded) / len(grounded) if grounded else None,
            summary_broken_chars=sum(sum(r["broken"].values()) for r in summaries),
            **_reader_view(summaries, [r["pdf"] for r in rows if "summary" in r]),
        )
    # pages per second of the PDF reader only: JATS files have no pages
    pages = sum(r.get("pages", 0) for r in rows if r["pdf"])
    read = sum(r.get("read_s", 0.0) for r in rows if r["pdf"])
    out.update(papers=len(rows), pages=pages, read_s=round(read, 3), pages_per_s=pages / read if read and pages else None)
    return out


# "Illustrated" is asked of papers whose JATS body cites at least this many figures and tables.
MANY_VISUALS = 4


def _reader_view(summaries: list[dict[str, Any]], from_pdf: list[bool]) -> dict[str, Any]:
    """What a reader of the summaries meets (issue 24): foreign words, empty paragraphs, abstract labels,
    paragraphs illustrated (PDFs only: a JATS without its PDF has no figure images), per-role ROUGE-1."""
    if "words" not in summaries[0]:
        return {}  # an earlier run's rows, scored before these numbers existed
    pdf = [r for r, is_pdf in zip(summaries, from_pdf) if is_pdf]
    many = [r for r in pdf if r["cited_visuals"] >= MANY_VISUALS]
    out: dict[str, Any] = {
        "summary_foreign_per_1000": m.per_thousand(sum(r["foreign"] for r in summaries),
                                                   sum(r["words"] for r in summaries)),
        "empty_paragraphs": sum(r["empty_paragraphs"] for r in summaries),
        "run_in_labels": sum(len(r["run_in_labels"]) for r in summaries),
        "absent_paragraphs": sum(len(r.get("absent", [])) for r in summaries),
    }
    if pdf:
        out.update(
            illustrated_per_paper=m.mean(float(r["illustrated"]) for r in pdf),
            papers_without_figures=sum(1 for r in pdf if r["illustrated"] == 0),
            unexplained_no_figure=sum(r["unexplained"] for r in pdf),
            papers_many_visuals=len(many),
            illustrated_many_visuals=m.mean(float(r["illustrated"]) for r in many),
            three_illustrated_share=m.mean(float(r["illustrated"] >= 3) for r in many),
            # of those, the papers whose JATS sections of three roles or more cite a figure or table: where
            # three illustrated paragraphs can all be grounded
            papers_three_illustratable=sum(1 for r in many if r.get("illustratable", 0) >= 3),
            three_illustrated_where_possible=m.mean(float(r["illustrated"] >= 3) for r in many
                                                    if r.get("illustratable", 0) >= 3),
        )
    structured = [r["rouge_roles"] for r in summaries if r.get("rouge_roles")]
    out["papers_structured_abstract"] = len(structured)
    for role in m.ROLE_ORDER:
        out[f"rouge1_{role}"] = m.mean(r.get(role) for r in structured)
    return out


def badness(row: dict[str, Any]) -> float:
    """How badly one paper fares (higher is worse): the report lists the worst first."""
    score = 0.0
    fig = row.get("figures") or {}
    if fig.get("applicable"):
        score += (1 - (fig["label_recall"] if fig["label_recall"] is not None else 1)) * 3
        score += (1 - (fig["label_precision"] if fig["label_precision"] is not None else 1)) * 3
        if fig["n_matched"]:
            score += (1 - fig["captions_matched"] / fig["n_matched"]) * 2
        score += len(fig["shared_regions"])
    text = row.get("text") or {}
    if text:
        chars = text["body_chars"] or 1
        score += sum(text["part_chars"].get(p, 0) for p in m.LEAK_PARTS) / chars * 10
        score += 1 - (text["paragraph_recall"] or 0)
        score += min(1.0, sum(text["broken"].values()) / 5)
    return round(score, 4)


def summarise(
    items: Sequence[PairFiles],
    results: dict[str, dict[str, dict[str, Any]]],
    failed: dict[str, dict[str, str]],
    stage_seconds: dict[str, float],
    settings: dict[str, Any],
) -> dict[str, Any]:
    rows = []
    skipped: dict[str, str] = {}
    for reasons in failed.values():
        for name, reason in reasons.items():
            skipped.setdefault(name, reason)
    for item in items:
        row: dict[str, Any] = {"id": item.name, "split": item.split, "pdf": item.pdf is not None}
        for stage, by_id in results.items():
            if item.name in by_id:
                row[stage] = {k: v for k, v in by_id[item.name].items() if k != "id"}
                row["read_s"] = row[stage].get("read_s", row.get("read_s", 0.0))
                row["pages"] = row[stage].get("pages", row.get("pages", 0))
        if len(row) > 3:
            row["badness"] = badness(row)
            rows.append(row)
    by_split = {
        name: _pooled([r for r in rows if r["split"] == name]) for name in ("dev", "test") if any(r["split"] == name for r in rows)
    }
    by_split["all"] = _pooled(rows)
    rows.sort(key=lambda r: -r.get("badness", 0.0))
    return {
        "suite": SUITE,
        "settings": settings,
        "stages": list(results),
        "by_split": by_split,
        "papers": rows,
        "skipped": [{"id": k, "reason": v} for k, v in sorted(skipped.items())],
        "timings": {**{f"{k}_s": v for k, v in stage_seconds.items()}, "total_s": round(sum(stage_seconds.values()), 3)},
    }


# -------------------------------------------------------------------------------------------- reports

HEADLINE = (
    ("label_recall", "figure/table label recall"),
    ("label_precision", "label precision"),
    ("caption_match", f"caption match (F1 ≥ {m.CAPTION_MATCH_F1})"),
    ("shared_regions", "regions shared by two captions"),
    ("blank_crops", "blank crops"),
    ("body_text_crops", f"crops > {BODY_CROP_SHARE:.0%} body text"),
    ("paragraph_recall", "body paragraphs recovered"),
    ("leaks", "leaks: back matter + captions + tables in body text"),
    ("leak_back", "  of which back matter"),
    ("leak_caption", "  of which captions"),
    ("leak_table", "  of which tables"),
    ("nowhere_share", "body text found nowhere in the JATS"),
    ("abstract_found", "abstract found"),
    ("references_found", "references found"),
    ("heading_recall", "section headings recovered"),
    ("clean_papers", "papers with 0 broken characters"),
    ("broken_chars", "broken characters (unflagged blocks)"),
    ("broken_chars_flagged", "broken characters in blocks flagged as unmapped"),
    ("flow_acc_b", "flow (JATS paragraphs) Acc_b"),
    ("flow_acc_i", "flow Acc_i"),
    ("flow_acc_ni", "flow Acc_ni"),
    ("flow_within_one", "flow: gold figures within one paragraph"),
    ("jats_markdown_acc_i", "flow via `place`, Markdown with headings: Acc_i"),
    ("jats_markdown_acc_ni", "  Acc_ni"),
    ("jats_list_acc_i", "flow via `place`, plain JSON list: Acc_i"),
    ("jats_list_acc_ni", "  Acc_ni"),
    ("own_list_acc_i", "own PDF paragraphs via `place`, plain list: Acc_i"),
    ("own_acc_b", "flow (own PDF paragraphs) Acc_b"),
    ("own_acc_i", "own Acc_i"),
    ("own_acc_ni", "own Acc_ni"),
    ("own_within_one", "own: within one paragraph"),
    ("rouge1", "ROUGE-1 vs abstract"),
    ("rouge2", "ROUGE-2 vs abstract"),
    ("rougeL", "ROUGE-Lsum vs abstract"),
    ("digest_rouge1", "ROUGE-1 vs eLife digest"),
    ("digest_rougeL", "ROUGE-Lsum vs eLife digest"),
    ("figure_grounding", "summary figures grounded"),
    ("summary_broken_chars", "broken characters in summaries"),
    ("titles_correct", "titles right (F1 ≥ 0.9 against <article-title>)"),
    ("body_foreign_per_1000", "body words per 1,000 the JATS never uses"),
    ("summary_foreign_per_1000", "summary words per 1,000 the JATS never uses"),
    ("empty_paragraphs", "empty summary paragraphs"),
    ("run_in_labels", "run-in labels in summaries (\"Background:\")"),
    ("absent_paragraphs", "paragraphs saying the paper has no such part"),
    ("illustrated_per_paper", "illustrated paragraphs per paper (PDFs)"),
    ("papers_without_figures", "papers whose summary shows no figure"),
    ("unexplained_no_figure", "paragraphs without a figure and without a note why"),
    ("papers_many_visuals", f"papers citing ≥ {MANY_VISUALS} figures/tables"),
    ("illustrated_many_visuals", "  illustrated paragraphs per paper on them"),
    ("three_illustrated_share", "  share with ≥ 3 of 4 paragraphs illustrated"),
    ("papers_three_illustratable", "  of them, sections of ≥ 3 roles cite a visual"),
    ("three_illustrated_where_possible", "  share with ≥ 3 illustrated among those"),
    ("papers_structured_abstract", "papers with a structured abstract"),
    ("rouge1_background", "  ROUGE-1 background vs its abstract section"),
    ("rouge1_method", "  ROUGE-1 method vs its abstract section"),
    ("rouge1_results", "  ROUGE-1 results vs its abstract section"),
    ("rouge1_conclusion", "  ROUGE-1 conclusion vs its abstract section"),
    ("pages_per_s", "ingestion pages/s (without crops)"),
)


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def headline_rows(metrics: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    splits = list(metrics["by_split"])
    header = ["metric", *splits]
    rows = []
    for key, label in HEADLINE:
        values = [metrics["by_split"][s].get(key) for s in splits]
        if all(v is None for v in values):
            continue
        rows.append([label, *(_fmt(v) for v in values)])
    return header, rows


def _paper_rows(metrics: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    header = ["paper", "split", "badness", "recall", "precision", "captions", "shared", "leaks", "paragraphs", "broken", "why"]
    rows = []
    for r in metrics["papers"]:
        fig = r.get("figures") or {}
        text = r.get("text") or {}
        chars = text.get("body_chars") or 0
        leaks = sum(text.get("part_chars", {}).get(p, 0) for p in m.LEAK_PARTS) / chars if chars else None
        why = []
        if fig.get("missed"):
            why.append("missed " + ", ".join(fig["missed"][:4]))
        if fig.get("spurious"):
            why.append("spurious " + ", ".join(fig["spurious"][:4]))
        if fig.get("shared_regions"):
            why.append("shared " + ", ".join("+".join(p) for p in fig["shared_regions"][:3]))
        for example in (text.get("leak_examples") or [])[:1]:
            why.append(f"{example['part']} leak: {example['text'][:70]!r}")
        broken = {k: v for k, v in (text.get("broken") or {}).items() if v}
        if broken:
            why.append("broken " + ", ".join(f"{k} {v}" for k, v in broken.items()))
        if text.get("title_correct") is False:
            why.append(f"title {str(text.get('title'))[:60]!r}")
        summary = r.get("summary") or {}
        if summary.get("foreign_examples"):
            why.append("summary words not in the JATS: " + ", ".join(summary["foreign_examples"][:5]))
        if summary.get("empty_paragraphs"):
            why.append(f"{summary['empty_paragraphs']} empty paragraph(s)")
        if summary.get("run_in_labels"):
            why.append("labels " + ", ".join(summary["run_in_labels"][:3]))
        captions = f"{fig['captions_matched']}/{fig['n_matched']}" if fig.get("applicable") else "—"
        rows.append([
            r["id"], r["split"], _fmt(r.get("badness")), _fmt(fig.get("label_recall")), _fmt(fig.get("label_precision")),
            captions, str(len(fig.get("shared_regions", []))) if fig.get("applicable") else "—", _fmt(leaks),
            _fmt(text.get("paragraph_recall")), str(sum(broken.values())) if text else "—", "; ".join(why),
        ])
    return header, rows


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def to_markdown(metrics: dict[str, Any]) -> str:
    parts = ["# Pairs benchmark (PDF + JATS)", ""]
    settings = metrics["settings"]
    parts.append(f"Pairs: `{settings['pairs']}` · split: {settings['split']} · stages: {', '.join(metrics['stages'])} · "
                 f"ingestion {settings['ingestion']}")
    parts += ["", "Numbers per half of the fixed split (bench/pairs_split.py); fit on dev, report test.", ""]
    parts.append(_md_table(*headline_rows(metrics)))
    parts += ["", "## Papers, worst first", "", _md_table(*_paper_rows(metrics))]
    if metrics["skipped"]:
        parts += ["", "## Skipped", ""] + [f"- {s['id']}: {s['reason']}" for s in metrics["skipped"]]
    parts += ["", "## Timings", ""] + [f"- {k}: {v}" for k, v in metrics["timings"].items()]
    return "\n".join(parts) + "\n"


def to_html(metrics: dict[str, Any]) -> str:
    def table(header: list[str], rows: list[list[str]]) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    skipped = "".join(f"<li>{html.escape(s['id'])}: {html.escape(s['reason'])}</li>" for s in metrics["skipped"])
    timings = "".join(f"<li>{html.escape(k)}: {v}</li>" for k, v in metrics["timings"].items())
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Pairs benchmark</title><style>"
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
        "padding:2px 6px;font-size:13px;text-align:left}</style></head><body><h1>Pairs benchmark (PDF + JATS)</h1>"
        f"<p>split {html.escape(metrics['settings']['split'])}; stages {html.escape(', '.join(metrics['stages']))}</p>"
        + table(*headline_rows(metrics))
        + "<h2>Papers, worst first</h2>"
        + table(*_paper_rows(metrics))
        + (f"<h2>Skipped</h2><ul>{skipped}</ul>" if skipped else "")
        + f"<h2>Timings</h2><ul>{timings}</ul></body></html>\n"
    )
