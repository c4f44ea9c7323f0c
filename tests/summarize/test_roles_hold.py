"""Roles that hold (issue 45 point 2): a sentence that reports what was done never opens a Conclusion, a Results
sentence reports a finding, and a run-in heading the reader glued to its paragraph is cut from the sentence."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.summarize.extractive import (
    Extractor,
    clean_sentence,
    reports_a_finding,
    reports_what_was_done,
    usable,
)
from mmdocsum_desktop.summarize.sentences import Sentence
from tests.conftest import SAMPLE_PDF


@pytest.mark.parametrize("text, cut", [
    ("Administrative and operational support More than half of the nurses said the rota was too tight.",
     "More than half of the nurses said the rota was too tight."),
    ("Effect of storage time Most of the fruit stayed firm for a week in the cold room.",
     "Most of the fruit stayed firm for a week in the cold room."),
    ("2.3 Statistical analysis Several models were compared by their likelihood on the held-out sites.",
     "Several models were compared by their likelihood on the held-out sites."),
    ("Prevalence of anaemia Of the 120 children examined, 45 had a low haemoglobin level.",
     "Of the 120 children examined, 45 had a low haemoglobin level."),
    ("Barriers to care Some of the mothers walked for two hours to reach the clinic.",
     "Some of the mothers walked for two hours to reach the clinic."),
])
def test_a_run_in_heading_is_cut_from_its_sentence(text, cut):
    assert clean_sentence(text) == cut


@pytest.mark.parametrize("text", [
    "Vitamin A is essential for the growth of young children in these villages.",
    "The treated plants grew taller than the control plants over the whole summer season.",
    "Most of the fruit stayed firm for a week in the cold room.",
    # a heading has no verb or pronoun of its own and does not end on "of", "from", "the"…
    "We used the One Health approach to follow the outbreak in both villages.",
    "Data from The Cancer Genome Atlas were downloaded for all the tumours.",
    "Patients treated with Some of the older drugs relapsed within a year.",
])
def test_a_sentence_without_a_run_in_heading_is_left_whole(text):
    assert clean_sentence(text) == text


@pytest.mark.parametrize("text, done", [
    ("The assays were carried out on the extracts at 0, 1, 2, 5 and 7 days of storage.", True),
    ("We recruited 40 patients from two clinics of the city between 2015 and 2017.", True),
    ("Samples were centrifuged at 3000 rpm and stored at -20 °C until analysis.", True),
    ("The extracts were tested and showed a strong inhibition of the bacteria.", False),
    ("The coating kept the fruit firm for longer than the uncoated controls.", False),
    ("In this study, we evaluated the coating on three kinds of fruit.", False),
    ("These coatings could extend the shelf life of fresh fruit in markets.", False),
])
def test_what_was_done_is_told_from_what_was_found(text, done):
    assert reports_what_was_done(text) is done


@pytest.mark.parametrize("text, found", [
    ("Coated berries stayed firm for six days against three days for the uncoated ones.", True),
    ("The outcome data revealed that the volatile profile of contaminated grains differed from controls.", True),
    ("Mortality was 12% in the treated arm (p < 0.01).", True),
    ("A total of 29 compounds were identified in the headspace of the grains.", True),
    ("The assays were carried out on the extracts at 0, 1, 2, 5 and 7 days of storage.", False),
    ("The volatile metabolites of the samples were considered for time course analysis (Figure 5).", False),
    ("In conclusion, volatile metabolites can indicate the presence of fungi during grain spoilage.", False),
    ("Our study provides the first investigation of volatiles produced by the fungus on wheat.", False),
    ("Further studies are needed to confirm these results in other isolates of the fungus.", False),
])
def test_a_results_sentence_reports_a_finding(text, found):
    assert reports_a_finding(text) is found


def test_a_sentence_cut_inside_a_bracket_is_not_a_candidate():
    def sentence(text: str) -> Sentence:
        return Sentence(text=text, block="b1", page=1, section="Methods", position=0, block_index=0)

    assert not usable(sentence("Durum wheat (Triticum turgidum ssp. durum (Desf.)"))
    assert usable(sentence("Durum wheat (Triticum turgidum) was grown in the field for two seasons."))


def _fruit_paper() -> Document:
    def paragraph(block_id: str, section: str, text: str) -> Block:
        return Block(id=block_id, type="paragraph", text=text, page=1, section=section)

    return Document(source="/tmp/fruit.pdf", kind="pdf", title="Edible coatings keep strawberries firm", blocks=[
        Block(id="h1", type="heading", text="Introduction", page=1),
        paragraph("b1", "Introduction", "Strawberries soften within days of picking and much of the harvest is lost. "
                  "Edible coatings may slow the softening, but few have been tried on soft fruit in markets."),
        Block(id="h2", type="heading", text="Methods", page=1),
        paragraph("b2", "Methods", "We coated strawberries from two farms with a chitosan film of two strengths. "
                  "Firmness was measured with a penetrometer on ten berries of each batch every day."),
        Block(id="h3", type="heading", text="Results", page=1),
        paragraph("b3", "Results", "Coated berries stayed firm for six days against three days for the uncoated ones. "
                  "The stronger film lost less weight than the weaker one over the whole week."),
        Block(id="h4", type="heading", text="Conclusions", page=2),
        paragraph("b4", "Conclusions", "The assays were carried out on the coated strawberries at 0, 1, 2, 5 and 7 days of storage. "
                  "Chitosan coatings kept strawberries firm for twice as long as uncoated fruit. "
                  "Such coatings could cut the losses of soft fruit between the farm and the market."),
    ])


def test_a_conclusion_does_not_open_with_what_was_done(embedder):
    drafted = Extractor(embedder).draft(_fruit_paper(), include_abstract=False)
    conclusion = drafted.paragraphs[3]
    assert conclusion.sentences, conclusion
    assert not reports_what_was_done(conclusion.sentences[0].text)
    assert not conclusion.text.startswith("The assays were carried out")


def test_the_sample_papers_conclusion_opens_with_no_method_sentence(embedder):
    """The README's sample paper (Metabolites 2014): its Conclusion opened with "The assays were carried
    out on … at 0, 1, 2, 5 and 7 days" (issue 45)."""
    from mmdocsum_desktop.document.reader import read_document

    drafted = Extractor(embedder).draft(read_document(SAMPLE_PDF), include_abstract=False)
    conclusion = drafted.paragraphs[3]
    assert conclusion.sentences
    assert not reports_what_was_done(conclusion.sentences[0].text)
    assert "were carried out" not in conclusion.sentences[0].text


def test_the_sample_papers_results_report_findings(embedder):
    """The sample paper's Results opened with two method sentences ("The volatile metabolites … were
    analyzed by SPME-GC/MS. The assays were carried out on …") and closed with "Our study provides the
    first investigation…" (issue 45)."""
    from mmdocsum_desktop.document.reader import read_document

    for include_abstract in (False, True):
        drafted = Extractor(embedder).draft(read_document(SAMPLE_PDF), include_abstract=include_abstract)
        results, conclusion = drafted.paragraphs[2], drafted.paragraphs[3]
        assert results.sentences and conclusion.sentences
        assert all(reports_a_finding(s.text) for s in results.sentences), results.text
        assert not reports_what_was_done(conclusion.sentences[0].text), conclusion.text
