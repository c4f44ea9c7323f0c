"""Extractive candidates are clean body prose: reference markers removed with their brackets, no back matter,
legends, table notes, reference entries or broken glyphs, and no sentence that leans on one that is not there.
The last tests read real papers (committed ones, and a trial protocol of the evaluation corpus's dev half of
pmc/: none of the committed papers is a protocol) and check their summaries sentence by sentence."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.bench.pairs_split import split_of
from mmdocsum_desktop.document.normalize import has_unmapped_glyphs
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.models.embed import TextEmbedder
from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.schemas.summary import ROLES
from mmdocsum_desktop.summarize.extractive import (
    _PROTOTYPES,
    SALIENCE_FEATURES,
    Extractor,
    body_blocks,
    candidates,
    clean_sentence,
    drop_connective,
    junk_reason,
    load_salience_weights,
    opener,
    salience_features,
)
from mmdocsum_desktop.summarize.roles import block_roles, block_serves, section_role
from tests.conftest import CORPUS, model_dirs_in, read_paper

PMC = CORPUS / "pmc"


@pytest.fixture(scope="module")
def embedder(tmp_path_factory):

    with model_dirs_in(tmp_path_factory.mktemp("mmdocsum-dirs")):
        model = TextEmbedder()
        yield model
        model.close()


@pytest.mark.parametrize(("raw", "clean"), [
    ("Dengue is spreading [3].", "Dengue is spreading."),
    ("Dengue is spreading [1–3, 7] in Asia.", "Dengue is spreading in Asia."),
    ("Flows fell (Lane et al., 2005; Brown 2010).", "Flows fell."),
    ("Flows fell (see Lane and Smith, 2005) in winter.", "Flows fell in winter."),
    ("It is a leading cause of death.12 The burden grows.", "It is a leading cause of death. The burden grows."),
    ("ﬁbres of the hip\u00ad pocampal impacts..", "fibres of the hippocampal impacts."),
    ("The rate rose (n = 12) as expected (p < 0.05).", "The rate rose (n = 12) as expected (p < 0.05)."),
    ("Conclusion The results show that oil scavenges radicals.", "The results show that oil scavenges radicals."),
    ("Essential oil scavenging activity on DPPH radical The oil scavenged DPPH.", "The oil scavenged DPPH."),
    ("Patients in the trial received the drug for ten weeks.", "Patients in the trial received the drug for ten weeks."),
    # a structured abstract's label or a run-in heading goes; a colon inside prose stays
    ("Background: Influenza kills many older adults every winter.", "Influenza kills many older adults every winter."),
    ("Case presentation: A 45-year-old man presented with fever.", "A 45-year-old man presented with fever."),
    ("Método: Estudo transversal com 300 pacientes adultos.", "Estudo transversal com 300 pacientes adultos."),
    ("Abstract—We propose a stereo method for video sequences.", "We propose a stereo method for video sequences."),
    ("The ratio: 3 to 1 was seen in all the samples.", "The ratio: 3 to 1 was seen in all the samples."),
    ("Flaxseed oil is rich in tocopherols,2 but in pure form it oxidizes.", "Flaxseed oil is rich in tocopherols, but in pure form it oxidizes."),
    ("Doses of 1,2 and 5 mg were given.", "Doses of 1,2 and 5 mg were given."),
])
def test_reference_markers_go_with_their_brackets_and_spacing_is_repaired(raw, clean):
    assert clean_sentence(raw) == clean


@pytest.mark.parametrize("text", [
    "Competing interests: The authors have declared that no competing interests exist.",
    "Park DJ, Dudas G, Wohl S, Goba A, Whitmer SL, Andersen KG, et al. Ebola virus epidemiology.",
    "Toschi, V.; Lettino, M. Inhibitors of propagation of coagulation: Factors V and X.",
    "M, extracellular messenger; PLC, phospholipase C; IP3, inositol trisphosphate; DAG, diacylglycerol.",
    "Note: Data are median (IQR) or n (%) unless stated otherwise in the table.",
    "Author Contributions: Writing—original draft preparation H.F. and review by all authors.",
    "To cite: MacIntyre CR, Chughtai AA. A rapid systematic review of the efficacy of face masks.",
    "This study is supported by the Swedish Cancer Society and the Norwegian Cancer Society.",
    "The intracellular Ca2\ufffd concentration rose sharply after stimulation of the cells.",
    "Figure 2. Survival of the patients in the two arms of the trial over five years.",
    "The study is registered under ClinicalTrials.gov ID: NCT04627350 since March 2020.",
    "Figure-3: The expression of choline acetyltransferase on the kidney cells before treatment.",
    "The green asterisk indicates the background signal from the Kapton film over the sample.",
    "Supplemental Figure-1: Choline acetyltransferase expression on the endothelial cells after treatment.",
])
def test_what_is_not_body_prose_is_recognised(text):
    assert junk_reason(text) is not None


@pytest.mark.parametrize("text", [
    "Low flows fell by up to sixty percent within ten years of planting in most catchments.",
    "Patients treated with the drug survived longer than those given placebo (p < 0.01).",
    "In this study, we measured oxytocin in weaned grey seal pups kept in pairs.",
])
def test_body_prose_is_kept(text):
    assert junk_reason(text) is None


def test_sentences_that_lean_backwards():
    assert opener("However, the flows fell.") == "connective"
    assert opener("This increase was not seen in winter.") == "pronoun"
    assert opener("These results suggest a role for oxytocin.") == "pronoun"
    assert opener("This study measured oxytocin in seals.") is None
    assert opener("It is important to measure low flows.") is None
    # a connective after the first words leans backwards too ("Here we, however, use…")
    assert opener("Here we, however, use a more elaborate scheme of boundary conditions.") == "pronoun"
    assert opener("The flow fell, as expected, in all ten catchments.") is None
    assert drop_connective("However, the flows fell in all ten catchments.") == "The flows fell in all ten catchments."
    assert drop_connective("Consequently the low flows fell by half.") == "The low flows fell by half."
    # what is left would still point backwards: the connective stays (the caller then needs the predecessor)
    assert drop_connective("Moreover, this was seen in winter only.") == "Moreover, this was seen in winter only."
    # a quotation mark after the connective is kept, and what follows it is capitalised
    assert drop_connective("Otherwise, ‘vana Tulsi’ clustered with haplotype I.") == "‘Vana Tulsi’ clustered with haplotype I."


def test_statistical_analysis_is_method_and_results_and_discussion_is_results():
    assert section_role("2.4. Statistical analysis") == "method"
    assert section_role("Results and Discussion") == "results"
    assert section_role("Competing interests") == "skip"
    assert section_role("Authors' contributions") == "skip"


def _document() -> Document:
    def p(block_id, section, text, **extra):
        return Block(id=block_id, type="paragraph", text=text, section=section, page=1, **extra)

    return Document(source="/tmp/x.pdf", kind="pdf", title="Trees and rivers", blocks=[
        p("front", None, "Department of Hydrology, University of Melbourne, Parkville, Victoria 3010, Australia."),
        p("abs", None, "Afforestation reduces low flows in all catchments that we studied in detail."),
        Block(id="h1", type="heading", text="1. Introduction", section="1. Introduction"),
        p("b1", "1. Introduction",
          "Rivers lose water when pasture is replaced by pine plantations [4]. This loss is largest in dry years. "
          "It grows with the age of the trees."),
        p("b2", "1. Introduction", "These effects were first described in South Africa by several groups of authors."),
        p("glyph", "1. Introduction", "The Ca2\ufffd signal of the trees is never measured in the field studies."),
        p("back", "1. Introduction", "The funders had no role in the design of the study or the analysis.",
          section_kind="back"),
        Block(id="cap", type="caption", text="Figure 1. Flows of the ten catchments over twenty years of records.",
              section="1. Introduction", page=1),
        Block(id="h2", type="heading", text="Acknowledgements", section="Acknowledgements"),
        p("ack", "Acknowledgements", "We thank the water authority of Victoria for the daily flow records of rivers."),
    ])


def test_candidates_are_clean_body_prose_joined_to_what_they_lean_on():
    texts = [c.sentence.text for c in candidates(_document(), include_abstract=False)]
    # the pronoun sentence comes with its predecessor, reference marker gone; the next one leans on a
    # sentence that leans itself, and is left out
    assert "Rivers lose water when pasture is replaced by pine plantations. This loss is largest in dry years." in texts
    assert not any("It grows" in t for t in texts)
    assert not any(t.startswith(("This", "It", "These")) for t in texts)
    joined = " ".join(texts)
    for left_out in ("Department", "Afforestation", "South Africa", "Ca2", "funders", "We thank", "Figure 1"):
        assert left_out not in joined, left_out


def assert_clean_paragraph(paragraph) -> None:
    """A summary paragraph of the paper's own prose: sized, no opener, no junk, no broken glyphs, no
    bracketed references or soft hyphens, nothing from sections the summary skips."""
    assert paragraph.sentences and 30 <= paragraph.words <= 160
    assert opener(paragraph.sentences[0].text) is None
    for sentence in paragraph.sentences:
        assert junk_reason(sentence.text) is None, sentence.text
        assert not has_unmapped_glyphs(sentence.text)
        assert "[" not in sentence.text and "\u00ad" not in sentence.text
        assert section_role(sentence.section) != "skip"


@pytest.mark.parametrize("name", ["PMC2803133.pdf", "PMC4521097.pdf", "wheat-04-00932.pdf"])
def test_committed_papers_give_summaries_without_junk(embedder, name):
    # numbered reference markers in brackets ([21]), author-year ones, and the sample's numbered sections
    document = read_paper(name)
    result = Extractor(embedder).draft(document, include_abstract=False)
    assert [p.role for p in result.paragraphs] == ["background", "method", "results", "conclusion"]
    for paragraph in result.paragraphs:
        assert_clean_paragraph(paragraph)


@pytest.mark.corpus
def test_a_real_paper_gives_a_summary_without_junk(embedder):

    name = "PMC7969308"  # a trial protocol whose PDF ends in funding, consent and contribution statements
    assert split_of(name) == "dev"
    document = read_document(PMC / f"{name}.pdf")
    result = Extractor(embedder).draft(document, include_abstract=False)
    assert [p.role for p in result.paragraphs] == ["background", "method", "results", "conclusion"]
    # a protocol has no results: that paragraph says so instead of borrowing the method's sentences,
    # and the words it would have had go to the parts the paper has
    results = result.paragraphs[2]
    assert not results.sentences and results.text.startswith("The paper has no results section")
    assert sum(p.words for p in result.paragraphs if p.sentences) >= 150
    for paragraph in (p for p in result.paragraphs if p is not results):
        assert_clean_paragraph(paragraph)


def _heading(block_id: str, text: str) -> Block:
    return Block(id=block_id, type="heading", text=text, section=text, page=1)


def _paragraph(block_id: str, section: str | None, text: str) -> Block:
    return Block(id=block_id, type="paragraph", text=text, section=section, page=1)


def test_a_subsection_takes_the_role_of_its_section():
    document = Document(source="/tmp/x.pdf", kind="pdf", title="Garlic oil and mealworms", blocks=[
        _heading("h1", "2. Materials and methods"),
        _heading("h2", "2.1 Plant material"),
        _paragraph("m", "2.1 Plant material", "Garlic bulbs were bought at a market in Viçosa and distilled for oil."),
        _heading("h3", "3. Results"),
        _heading("h4", "3.1 Toxicity to the larvae"),
        _paragraph("r", "3.1 Toxicity to the larvae", "The oil killed half of the larvae at the lowest dose tested."),
    ])
    roles = block_roles(document)
    assert roles["m"] == "method" and roles["r"] == "results"


def test_an_abstract_whose_subheadings_came_out_as_headings_is_not_body():
    sentence = "Mosquito blood meals carry antibodies of the host that a neutralisation test can detect."
    document = Document(source="/tmp/x.pdf", kind="pdf", title="Antibodies in mosquito blood meals", blocks=[
        _heading("h0", "Abstract"),
        _heading("h1", "Background"),
        _paragraph("a1", "Background", "Ross River virus circulates between mosquitoes and many vertebrate hosts."),
        _heading("h2", "Methods"),
        _paragraph("a2", "Methods", "A micro-test was developed and validated on koala sera of known status."),
        _heading("h3", "Conclusions"),
        _paragraph("a3", "Conclusions", "Small blood meals are enough to identify antibodies against the virus."),
        _heading("h4", "Introduction"),
        _paragraph("b1", "Introduction", sentence),
        _paragraph("o", "Introduction", "Objective(s): this line is labelled like an abstract but sits in the body."),
    ])
    kept = body_blocks(document, include_abstract=False)
    assert kept == {"b1", "o"}  # a labelled line outside the paper's opening stays body
    labelled = Document(source="/tmp/y.pdf", kind="pdf", title="Herbs for gingivitis", blocks=[
        _paragraph("l", None, "Objective(s): Periodontal diseases are among prevalent oral health problems."),
        _paragraph("p", None, "Pomegranate, aloe and green tea reduced gingival bleeding in most trials."),
    ])
    assert body_blocks(labelled, include_abstract=False) == {"p"}


def test_a_reference_list_inside_a_paragraph_is_cut_off():
    document = Document(source="/tmp/x.pdf", kind="pdf", title="Thyme oil against bacteria", blocks=[
        _heading("h1", "Discussion"),
        _paragraph("d", "Discussion",
                   "The results demonstrate the effectiveness of thyme oil against the bacteria that we tested. "
                   "References 1. Antimicrobial activity of essential oils and other plant extracts. "
                   "Chemical composition of thyme oils from three species grown in Spain."),
    ])
    texts = [c.sentence.text for c in candidates(document, include_abstract=False)]
    assert texts == ["The results demonstrate the effectiveness of thyme oil against the bacteria that we tested."]


def test_salience_prefers_the_papers_own_claim_to_a_cited_aside(embedder):
    """The fitted salience ranks a "here we show" sentence in the paper's own words above a sentence about
    other work that carries reference markers."""
    title = "Afforestation reduces low flows in Australian catchments"
    claim = ("Here we show that afforestation reduced the low flows of the catchments by up to sixty percent "
             "within ten years.")
    aside = "Comparable soils occur in parts of New Zealand and Chile [12, 13]."
    filler = [
        "Low flows were measured daily in ten afforested catchments of Victoria for twenty years.",
        "The low flows of the catchments fell as the plantations grew older.",
        "Catchments with more afforestation had the largest reductions of low flows.",
    ]
    document = Document(source="/tmp/x.pdf", kind="pdf", title=title, blocks=[
        _heading("h1", "Introduction"),
        _paragraph("b1", "Introduction", " ".join([filler[0], aside])),
        _paragraph("b2", "Introduction", claim),
        _heading("h2", "Results"),
        _paragraph("b3", "Results", " ".join(filler[1:])),
    ])
    engine = Extractor(embedder)
    result = engine.draft(document, include_abstract=False)
    chosen = [s.text for p in result.paragraphs for s in p.sentences]
    assert any(text.startswith("Here we show") for text in chosen)
    pool = candidates(document, include_abstract=False)
    texts = [c.sentence.text for c in pool]
    vectors = embedder.embed(texts)
    anchors = embedder.embed([_PROTOTYPES[r] for r in ROLES] + [title])
    features = salience_features(pool, vectors, vectors @ anchors[-1], anchors[:-1], title)
    assert features.shape == (len(pool), len(SALIENCE_FEATURES))
    weights = load_salience_weights().vector()
    salience = dict(zip(texts, features @ weights))
    assert salience[claim] > salience["Comparable soils occur in parts of New Zealand and Chile."]


def _protocol(with_background_words: bool = True) -> Document:
    """Introduction, Methods and Discussion, no Results: a study protocol."""
    blocks = [_heading("h1", "Introduction"),
              _paragraph("b1", "Introduction", "Influenza kills many older adults in care homes every winter season. "
                         "Little is known about how well masks protect the residents of such homes from it. "
                         "The method of testing masks in homes has never been compared with testing in clinics."),
              _heading("h2", "Methods"),
              _paragraph("b2", "Methods", "We will enrol six hundred residents of forty care homes in three cities. "
                         "Homes will be randomised to masks for staff or to usual care for one whole season."),
              _heading("h3", "Discussion"),
              _paragraph("b3", "Discussion", "This trial will show whether masks worn by staff protect residents. "
                         "Its findings should guide the advice given to care homes during the next season.")]
    return Document(source="/tmp/protocol.pdf", kind="pdf", title="Masks in care homes", blocks=blocks)


def test_a_part_the_paper_lacks_is_said_not_borrowed(embedder):
    document = _protocol()
    result = Extractor(embedder).draft(document, include_abstract=False)
    by_role = {p.role: p for p in result.paragraphs}
    # a paragraph takes sentences only from its own sections: the introduction's sentence about "the
    # method of testing masks" never becomes the Method paragraph, and there are no results to borrow
    assert {s.block for s in by_role["method"].sentences} == {"b2"}
    assert {s.block for s in by_role["background"].sentences} == {"b1"}
    assert {s.block for s in by_role["conclusion"].sentences} == {"b3"}
    assert not by_role["results"].sentences
    assert by_role["results"].text == "The paper has no results section (no heading names one), so this part is not summarised."
    assert any("results" in w and "says so" in w for w in result.warnings)


def test_a_results_and_discussion_section_serves_both_paragraphs():

    document = Document(source="/tmp/x.pdf", kind="pdf", blocks=[
        _heading("h1", "1. Introduction"), _paragraph("b1", "1. Introduction", "Text."),
        _heading("h2", "2. Study catchments"), _paragraph("b2", "2. Study catchments", "Text."),
        _heading("h3", "3. Results and discussion"), _heading("h4", "3.1 Flows"), _paragraph("b4", "3.1 Flows", "Text."),
        _heading("h5", "PLANT GROWTH"), _paragraph("b5", "PLANT GROWTH", "Text.")])
    serves = block_serves(document)
    assert serves["b1"] == {"background"}
    assert serves["b2"] == set(ROLES)  # a numbered top-level section of no known role: any paragraph
    assert serves["b4"] == {"results", "conclusion"}
