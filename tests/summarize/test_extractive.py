"""The extractive engine and the whole pipeline on real papers: faithful, 35–120 words a paragraph
(the method shortest), roles from the right sections, figures chosen once, citations to pages and blocks."""

from __future__ import annotations

import re

import pytest
from PIL import Image

from mmdocsum_desktop.errors import EmptyDocumentError, JobCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Block, Document, Figure
from mmdocsum_desktop.schemas.summary import FigureEntry
from mmdocsum_desktop.summarize.evidence import EvidenceItem, ParagraphEvidence, assign_evidence_figures
from mmdocsum_desktop.summarize.extractive import Extractor, clean_sentence, usable
from mmdocsum_desktop.summarize.pipeline import SummaryOptions, summarize_document
from mmdocsum_desktop.summarize.render import to_markdown
from mmdocsum_desktop.summarize.roles import section_role
from mmdocsum_desktop.summarize.sentences import Sentence, split_sentences
from mmdocsum_desktop.summarize.strategies.extractive import ExtractiveStrategy


@pytest.fixture(scope="module")
def demo1(exported, embedder):
    document, folder = exported("wheat-04-00932.pdf")  # the sample: 14 pages, 5 figures, 1 table
    summary = summarize_document(document, folder, strategy=ExtractiveStrategy(embedder), embedder=embedder)
    return document, folder, summary


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def test_four_paragraphs_of_the_documents_own_words(demo1):
    document, _, summary = demo1
    assert [p.role for p in summary.paragraphs] == ["background", "method", "results", "conclusion"]
    blocks = {b.id: set(_words(clean_sentence(b.text))) for b in document.blocks}
    for paragraph in summary.paragraphs:
        assert 35 <= paragraph.words <= 120, (paragraph.role, paragraph.words)
        assert paragraph.source == "extracted"
        for sentence in paragraph.sentences:
            # faithful by construction: the sentence's words are its block's (reference markers and a
            # leading "However," may be gone, nothing is added)
            assert sentence.evidence[0].how == "extracted"
            assert set(_words(sentence.text)) <= blocks[sentence.evidence[0].block]
            assert sentence.pages and sentence.blocks


def test_sentences_come_from_the_sections_of_their_role(exported, embedder):
    document, _ = exported("PMC2803133.pdf")  # flat sections: Introduction, Materials and Methods, Results, Discussion
    result = Extractor(embedder).draft(document, include_abstract=False)
    roles = {p.role: [section_role(s.section) for s in p.sentences] for p in result.paragraphs}
    assert sum(r == "results" for r in roles["results"]) >= len(roles["results"]) - 1
    assert sum(r in ("conclusion",) for r in roles["conclusion"]) >= len(roles["conclusion"]) - 1
    assert sum(r in ("background", "related") for r in roles["background"]) >= len(roles["background"]) - 1
    texts = [s.text for p in result.paragraphs for s in p.sentences]
    assert len(texts) == len(set(texts)), "no sentence twice"


def test_no_abstract_leaves_the_abstract_out(exported, embedder):
    document, folder = exported("PMC2803133.pdf")
    abstract = {b.id for b in document.blocks if b.is_abstract}
    assert abstract
    summary = summarize_document(document, folder, strategy=ExtractiveStrategy(embedder), embedder=embedder,
                                 options=SummaryOptions(include_abstract=False))
    cited = {b for p in summary.paragraphs for s in p.sentences for b in s.blocks}
    assert not cited & abstract


def test_figures_are_placed_once_each_where_their_sentences_cite_them(demo1):
    document, folder, summary = demo1
    chosen = [p.figure.index for p in summary.paragraphs if p.figure is not None]
    assert chosen, "an interleaved summary shows at least one figure"
    assert len(chosen) == len(set(chosen))
    blocks = {b.id: b.text for b in document.blocks}
    for paragraph in summary.paragraphs:
        if paragraph.figure is not None:
            assert (folder / paragraph.figure.image).exists() or paragraph.figure.image.startswith(str(folder))
            assert paragraph.figure.chosen_by == "evidence"
            assert paragraph.image_caption
            # the figure is cited by the paragraph's sentences or by the passages they come from
            cited = " ".join(blocks[b] for s in paragraph.sentences for b in s.blocks)
            assert paragraph.figure.label.split()[-1] in cited
    labels = {c.label for c in summary.figures}
    mentioned = [f for p in summary.paragraphs for s in p.sentences for f in s.figures + s.tables]
    assert set(mentioned) <= labels


def test_sentence_splitter_keeps_abbreviations_together():
    text = "As Fig. 3 shows (Lane et al. 2005), flows drop by 3.5 mm. J. Smith agreed, e.g. in Table 2. Next."
    assert split_sentences(text) == [
        "As Fig. 3 shows (Lane et al. 2005), flows drop by 3.5 mm.",
        "J. Smith agreed, e.g. in Table 2.",
        "Next.",
    ]


def test_usable_filters_fragments_and_front_matter():
    def sentence(text):
        return Sentence(text, "b0", 1, None, 0, 0)

    assert usable(sentence("The afforestation of pasture reduced the annual flow in all ten catchments."))
    assert not usable(sentence("Corresponding author. E-mail address: someone@example.org (P. Lane)."))
    assert not usable(sentence("and the remaining catchments were excluded from the analysis here."))
    assert not usable(sentence("Masters Thesis, University of Stuttgart, Germany, 2001, pp. 134 and more."))


def _tiny_document(with_figure: bool) -> Document:
    blocks = [
        Block(id="b0", type="heading", text="1. Introduction", section="1. Introduction", page=1),
        Block(id="b1", type="paragraph", page=1, section="1. Introduction",
              text="Rivers lose water when pasture is replaced by pine plantations in dry regions. "
                   "Little is known about how low flows respond to this change over many years."),
        Block(id="b2", type="heading", text="2. Methods", section="2. Methods", page=1),
        Block(id="b3", type="paragraph", page=1, section="2. Methods",
              text="We fitted a simple rainfall model to the daily flow records of ten catchments. "
                   "The model separates the climate signal from the effect of the growing trees, as Fig. 1 shows."),
        Block(id="b4", type="heading", text="3. Results", section="3. Results", page=2),
        Block(id="b5", type="paragraph", page=2, section="3. Results",
              text="Low flows fell by up to sixty percent within ten years of planting in most catchments. "
                   "High flows changed much less than low flows in every catchment we studied."),
        Block(id="b6", type="heading", text="4. Conclusion", section="4. Conclusion", page=2),
        Block(id="b7", type="paragraph", page=2, section="4. Conclusion",
              text="In conclusion, planting trees reduces low flows far more than high flows in these regions. "
                   "Water planners should therefore consider the whole flow regime before afforestation."),
    ]
    figures = []
    if with_figure:
        blocks.append(Block(id="b8", type="caption", page=1, text="Fig. 1. The rainfall model of the daily flows."))
        figures.append(Figure(id="fig1", index=1, label="Figure 1", caption="Fig. 1. The rainfall model of the daily flows.",
                              caption_block="b8", page=1, image="figures/fig1.png"))
    return Document(source="/tmp/tiny.md", kind="markdown", title="Trees and rivers", blocks=blocks, figures=figures)


def test_short_document_without_figures_gives_a_summary_without_images(embedder, tmp_path):
    document = _tiny_document(with_figure=False)
    summary = summarize_document(document, tmp_path, strategy=ExtractiveStrategy(embedder), embedder=embedder)
    assert all(p.figure is None for p in summary.paragraphs)
    assert any("no figures" in w for w in summary.warnings)
    assert any("only" in w and "words" in w for w in summary.warnings)  # too short for 60 words: said so
    assert all(p.text for p in summary.paragraphs)


def test_figure_mentioned_in_the_method_goes_with_the_method(embedder, tmp_path):

    (tmp_path / "figures").mkdir()
    Image.new("RGB", (40, 30), "white").save(tmp_path / "figures" / "fig1.png")
    document = _tiny_document(with_figure=True)
    summary = summarize_document(document, tmp_path, strategy=ExtractiveStrategy(embedder), embedder=embedder)
    method = summary.paragraphs[1]
    assert method.figure is not None and method.figure.label == "Figure 1"
    assert any("Figure 1" in s.figures for s in method.sentences)


def test_document_without_text_is_refused(embedder, tmp_path):
    document = Document(source="/tmp/empty.pdf", kind="pdf", blocks=[Block(id="b0", type="heading", text="Title")])
    with pytest.raises(EmptyDocumentError, match="no text"):
        summarize_document(document, tmp_path, strategy=ExtractiveStrategy(embedder), embedder=embedder)
    only_abstract = Document(source="/tmp/a.pdf", kind="pdf", blocks=[
        Block(id="b0", type="paragraph", text="An abstract that is all there is to this document.", is_abstract=True)])
    with pytest.raises(EmptyDocumentError, match="besides its abstract"):
        summarize_document(only_abstract, tmp_path, strategy=ExtractiveStrategy(embedder), embedder=embedder,
                           options=SummaryOptions(include_abstract=False))


def test_cancellation_stops_the_extractive_engine(embedder, tmp_path):
    control = JobControl()
    control.cancel()
    with pytest.raises(JobCancelled):
        summarize_document(_tiny_document(False), tmp_path, strategy=ExtractiveStrategy(embedder), embedder=embedder,
                           control=control)


def test_no_reference_list_sentences(demo1):
    _, _, summary = demo1
    for paragraph in summary.paragraphs:
        assert not re.search(r"\b(Thesis|Proceedings|J\. Hydrol)\b", paragraph.text)


def _item(n: int, *, cites=(), passage=(), section=(), part=()):

    return EvidenceItem(n, f"Sentence {n} of the paper.", f"b{n}", 1, None, tuple(cites), tuple(passage),
                        tuple(section), tuple(part))


def test_the_figures_illustrate_the_most_paragraphs_and_each_without_one_says_why():

    entries = [FigureEntry(index=1, label="Figure 1", caption="Flows."), FigureEntry(index=2, label="Figure 2", caption="Rain.")]
    evidence = [
        # the strongest tie (Figure 1 cited by the sentence itself) would leave the method without a figure
        ParagraphEvidence("background", [_item(1, cites=["Figure 1"], passage=["Figure 1", "Figure 2"])]),
        ParagraphEvidence("method", [_item(2, part=["Figure 1"])]),
        ParagraphEvidence("results", [_item(3)]),
        ParagraphEvidence("conclusion", [_item(4, passage=["Table 3"])]),
    ]
    texts = ["Background text.", "Method text.", "Results text.", "Conclusion text."]
    chosen = assign_evidence_figures(evidence, [e.items for e in evidence], entries, texts, None)
    assert [c.label if c else None for c, _ in chosen] == ["Figure 2", "Figure 1", None, None]
    assert [n.kind if n else None for _, n in chosen] == [None, None, "not_cited", "no_image"]
    assert chosen[3][1].labels == ["Table 3"] and "Table 3" in chosen[3][1].message
    # two paragraphs that discuss only one figure: one shows it, the other says where it is
    both = [ParagraphEvidence("method", [_item(1, cites=["Figure 1"])]),
            ParagraphEvidence("results", [_item(2, passage=["Figure 1"])])]
    shown, elsewhere = assign_evidence_figures(both, [e.items for e in both], entries[:1], texts[:2], None)
    assert shown[0].label == "Figure 1" and elsewhere[0] is None
    assert elsewhere[1].kind == "shown_elsewhere" and elsewhere[1].labels == ["Figure 1"]
    assert elsewhere[1].message == "Figure 1, cited here, is shown with another paragraph."
    nothing = assign_evidence_figures(both, [e.items for e in both], [], texts[:2], None)
    assert [n.kind for _, n in nothing] == ["document_has_none", "document_has_none"]


def test_a_paragraph_without_a_figure_says_why_in_the_summary(demo1):

    _, folder, summary = demo1
    markdown = to_markdown(summary, base_dir=folder)
    for paragraph in summary.paragraphs:
        assert (paragraph.figure is None) == (paragraph.no_figure is not None)
        if paragraph.no_figure is not None:
            assert f"*{paragraph.no_figure.message}*" in markdown
    again = type(summary).model_validate_json(summary.model_dump_json())
    assert [p.no_figure for p in again.paragraphs] == [p.no_figure for p in summary.paragraphs]
