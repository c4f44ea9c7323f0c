"""The grounded writer with the real SmolLM2-135M GGUF and the real MiniLM embedder on committed papers:
evidence from body prose only, one short streamed prompt per paragraph, every kept sentence supported by
and cited to its evidence, figures only where the evidence cites them, and every fallback recorded —
for a model cut short, a model out of time, and papers without figures or with little prose."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.schemas.summary import FigureEntry, Repair, SummaryOptions
from mmdocsum_desktop.summarize import prompt as prompts
from mmdocsum_desktop.summarize.evidence import (
    EvidenceItem,
    ParagraphEvidence,
    choose_evidence_figures,
    select_evidence,
)
from mmdocsum_desktop.summarize.extractive import junk_reason
from mmdocsum_desktop.summarize.grounded import MAX_SENTENCES, GroundedWriter
from mmdocsum_desktop.summarize.pipeline import summarize_document
from mmdocsum_desktop.summarize.render import to_markdown

# runs a real language model (SmolLM2 or a tiny random GGUF): left out of `pytest -m "not slow"`
pytestmark = pytest.mark.slow

PAPER = "pymupdf_test_3780.pdf"  # Sci. Rep., 5 pages, "Figure 1 | ..." captions


@pytest.fixture(scope="module")
def grounded(exported, embedder, smollm_engine):
    document, folder = exported(PAPER)
    pieces: list[str] = []
    summary = summarize_document(document, folder, engine=smollm_engine, embedder=embedder,
                                 options=SummaryOptions(include_abstract=False, max_tokens=120), on_text=pieces.append)
    return document, summary, pieces


def test_each_paragraph_is_written_from_its_evidence_in_a_short_streamed_prompt(grounded):
    _, summary, pieces = grounded
    assert [p.role for p in summary.paragraphs] == ["background", "method", "results", "conclusion"]
    assert summary.grounding.writer == "grounded"
    written = [g for g in summary.generations if g.stage.startswith("paragraph")]
    assert 1 <= len(written) <= 4
    # one short call per evidence sentence; what all calls share is read once, then the sentence only
    evidence_items = sum(len(e.items) for e in summary.grounding.evidence)
    assert sum(g.calls for g in written) <= evidence_items
    assert sum(g.prompt_tokens for g in written) < 250 + 90 * evidence_items
    assert "".join(pieces).strip() and sum(g.completion_tokens for g in written) >= len(written)
    evidence = summary.grounding.evidence
    assert [e.role for e in evidence] == ["background", "method", "results", "conclusion"]
    for paragraph_evidence in evidence:
        for item in paragraph_evidence.items:
            assert junk_reason(item.text) is None
            assert item.page is not None


def test_every_sentence_shown_is_supported_and_cited(grounded):
    document, summary, _ = grounded
    record = summary.grounding
    assert record.written == record.supported + record.dropped
    dropped = [r for r in summary.repairs if r.kind.startswith("unsupported sentence")]
    assert len(dropped) == record.dropped and all(r.reason and r.text for r in dropped)
    replaced = [r for r in dropped if r.kind == "unsupported sentence replaced by evidence"]
    assert len(replaced) == record.replaced
    blocks = {b.id: b for b in document.blocks}
    evidence_texts = {item.text for e in record.evidence for item in e.items}
    items_per_role = {e.role: len(e.items) for e in record.evidence}
    assert sum(p.source != "absent" for p in summary.paragraphs) >= 2
    for k, paragraph in enumerate(summary.paragraphs, start=1):
        if paragraph.source == "absent":  # a role the paper has no body sentences for: one sentence says so
            assert paragraph.text.startswith("The paper") and not paragraph.sentences
            assert not items_per_role[paragraph.role]
            assert any(r.paragraph == k and r.kind == "no evidence" for r in summary.repairs)
            continue
        assert " ".join(s.text for s in paragraph.sentences).split() == paragraph.text.split()
        for sentence in paragraph.sentences:
            assert sentence.pages and sentence.blocks and all(b in blocks for b in sentence.blocks)
            if paragraph.source == "model" and sentence.evidence[0].how == "support":
                assert sentence.evidence[0].score >= record.support_threshold
            elif paragraph.source == "model":  # an evidence sentence in place of an unsupported one: said so
                assert sentence.evidence[0].how == "extracted" and sentence.text in evidence_texts
                assert any(r.replacement == sentence.text and r.paragraph == k for r in replaced)
            else:  # a fallback paragraph is the evidence's own sentences, and says why in repairs
                assert paragraph.source == "extracted-fallback"
                assert any(r.kind == "paragraph from evidence" and r.paragraph == k for r in summary.repairs)
        if paragraph.source == "model":
            # one sentence per evidence sentence: each call is stopped as its second sentence begins
            assert sum(s.evidence[0].how == "support" for s in paragraph.sentences) <= items_per_role[paragraph.role]


def test_figures_are_those_the_evidence_cites(grounded):
    document, summary, _ = grounded
    shown = [p for p in summary.paragraphs if p.figure is not None]
    assert len({p.figure.index for p in shown}) == len(shown)
    blocks = {b.id: b.text for b in document.blocks}
    for paragraph in shown:
        label = paragraph.figure.label
        number = label.split()[-1]
        cited = " ".join(blocks[b] for s in paragraph.sentences for b in s.blocks)
        assert number in cited and ("Fig" in cited or "Table" in cited), label
    markdown = to_markdown(summary)
    for paragraph in shown:  # never "Figure 2: Figure 2 ..." in the caption line
        assert f"{paragraph.figure.label}: {paragraph.figure.label}" not in markdown


def test_the_checker_drops_numbers_names_and_off_topic_sentences(embedder, smollm_engine):
    evidence = ParagraphEvidence("results", [
        EvidenceItem(1, "Low flows fell by 60 percent within ten years of planting pine trees.", "b1", 3, "Results"),
        EvidenceItem(2, "High flows changed much less than low flows in the ten catchments.", "b2", 3, "Results"),
    ])
    writer = GroundedWriter(smollm_engine, embedder)
    checked = writer.check(
        "Low flows fell by 60 percent within ten years after pine trees were planted. "
        "Low flows fell by 85 percent within ten years of planting pine trees. "
        "Researchers in Brazil found that low flows fell after planting pine trees. "
        "Bananas are yellow fruits that grow in warm tropical countries. "
        "High flows changed much less than low flows did in these ten catchments. "
        "2) Low flows fell in ten catchments of the plantation family (Euphorbiaceae). "
        "High flows changed much less than",
        evidence, "Trees and rivers", cut_off=True)
    problems = [c.problem for c in checked]
    assert checked[5].text.startswith("Low flows") and "Euphorbiaceae" in problems[5]
    problems.pop(5)
    checked.pop(5)
    assert problems[0] is None and checked[0].items[0][0].number == 1
    assert "numbers not in the evidence: 85" in problems[1]
    assert "names not in the evidence: Brazil" in problems[2]
    assert problems[3].startswith("support")
    assert problems[4] is None and checked[4].items[0][0].number == 2
    assert problems[5].startswith("cut off")


def test_the_checker_drops_a_sentence_that_echoes_the_worked_example(embedder, smollm_engine):
    evidence = ParagraphEvidence("results", [
        EvidenceItem(1, "Low flows fell by 60 percent within ten years of planting pine trees.", "b1", 3, "Results"),
    ])
    writer = GroundedWriter(smollm_engine, embedder)
    checked = writer.check(["After twelve weeks, low flows fell by 60 percent in catchments given the compound.",
                            "Low flows fell by 60 percent within ten years after pine trees were planted."],
                           evidence, "Trees and rivers")
    assert checked[0].problem.startswith("words of the prompt's worked example") and "twelve" in checked[0].problem
    assert checked[1].problem is None


def test_an_unsupported_sentence_is_replaced_by_the_closest_unused_evidence_and_says_so(embedder, smollm_engine):
    evidence = ParagraphEvidence("results", [
        EvidenceItem(1, "Low flows fell by 60 percent within ten years of planting pine trees.", "b1", 3, "Results"),
        EvidenceItem(2, "High flows changed much less than low flows in the ten catchments.", "b2", 4, "Results",
                     ("Figure 2",)),
        EvidenceItem(3, "Streams in the driest catchments stopped flowing in summer after the planting.", "b3", 5,
                     "Results"),
    ])
    writer = GroundedWriter(smollm_engine, embedder)
    checked = writer.check(
        "Low flows fell by 60 percent within ten years after pine trees were planted. "
        "High flows changed by 85 percent in the ten catchments. "
        "Low flows fell by 60 percent within ten years after pine trees were planted.",
        evidence, "Trees and rivers")
    assert [c.problem is None for c in checked] == [True, False, False]
    repairs: list[Repair] = []
    sentences, used = writer.assemble(0, checked, evidence, repairs)
    # the invented number gives way to the evidence sentence closest to it; the repeat leaves no gap
    assert [s.text for s in sentences] == [checked[0].text, evidence.items[1].text]
    assert sentences[0].evidence[0].how == "support" and sentences[1].evidence[0].how == "extracted"
    assert sentences[1].pages == [4] and sentences[1].figures == ["Figure 2"]
    assert [r.kind for r in repairs] == ["unsupported sentence replaced by evidence", "unsupported sentence dropped"]
    assert repairs[0].replacement == evidence.items[1].text and "85" in repairs[0].reason
    assert repairs[0].text == checked[1].text and "repeats" in repairs[1].reason
    assert used[0] == evidence.items[0] and evidence.items[1] in used and evidence.items[2] not in used


def test_the_figure_choice_prefers_figures_outside_results_and_uses_each_once(embedder):
    def item(n, text, cites):
        return EvidenceItem(n, text, f"b{n}", 1, None, cites, cites)

    evidence = [
        ParagraphEvidence("method", [item(1, "We measured flows in ten catchments (Fig. 1, Table 1).", ("Figure 1", "Table 1"))]),
        ParagraphEvidence("results", [item(2, "Flows fell by half (Table 1, Fig. 1).", ("Table 1", "Figure 1"))]),
        ParagraphEvidence("conclusion", [item(3, "Planting trees lowers low flows.", ())]),
    ]
    entries = [FigureEntry(index=1, label="Figure 1", kind="figure", caption="Flows of ten catchments"),
               FigureEntry(index=2, label="Table 1", kind="table", caption="Flows per catchment")]
    chosen = choose_evidence_figures(evidence, [e.items for e in evidence], entries,
                                     ["method text", "results text", "conclusion text"], embedder)
    assert chosen[0].label == "Figure 1" and chosen[1].label == "Table 1" and chosen[2] is None
    assert all(c.chosen_by == "evidence" for c in chosen if c)


def test_a_model_cut_short_and_a_model_out_of_time_still_give_a_summary(exported, embedder, smollm_engine):
    document, folder = exported(PAPER)
    evidence, _ = select_evidence(document, embedder, include_abstract=False)
    with_evidence = [bool(e.items) for e in evidence]
    assert sum(with_evidence) >= 2
    # one token per call: nothing the model writes is a sentence; each paragraph falls back, recorded
    cut = GroundedWriter(smollm_engine, embedder, paragraph_tokens=1).write(document, evidence, SummaryOptions())
    assert [p.source == "extracted-fallback" and bool(p.text) for p in cut.paragraphs] == with_evidence
    assert sum(r.kind == "paragraph from evidence" for r in cut.repairs) == sum(with_evidence)
    assert sum(r.kind == "no evidence" for r in cut.repairs) == 4 - sum(with_evidence)
    # almost no time: the first call stops at its first piece, later ones do not start
    late = summarize_document(document, folder, engine=smollm_engine, embedder=embedder,
                              options=SummaryOptions(include_abstract=False, time_limit_s=0.01))
    assert [p.source != "absent" for p in late.paragraphs] == with_evidence
    reasons = [r.reason for r in late.repairs if r.kind == "paragraph from evidence"]
    assert len(reasons) == sum(with_evidence) and any("time" in r for r in reasons)


def test_the_one_call_paragraph_writer_stops_after_its_sentences(exported, embedder, smollm_engine):
    document, _ = exported(PAPER)
    evidence, _ = select_evidence(document, embedder, include_abstract=False)
    written = GroundedWriter(smollm_engine, embedder, by_sentence=False).write(document, evidence, SummaryOptions())
    calls = [g for g in written.generations if g.stage and g.stage.startswith("paragraph")]
    assert len(calls) == sum(bool(e.items) for e in evidence) and all(g.calls is None for g in calls)
    assert written.record.written == written.record.supported + written.record.dropped
    for paragraph in written.paragraphs:
        if paragraph.source == "model":
            assert sum(s.evidence[0].how == "support" for s in paragraph.sentences) <= MAX_SENTENCES


def test_no_figures_and_a_short_letter(pages_without_figures, two_figure_pages, embedder, smollm_engine):
    summaries = [summarize_document(document, folder, engine=smollm_engine, embedder=embedder,
                                    options=SummaryOptions(include_abstract=False, max_tokens=48))
                 for document, folder in (pages_without_figures, two_figure_pages)]
    for summary in summaries:
        assert len(summary.paragraphs) == 4
        assert any(p.text for p in summary.paragraphs)
        for k, paragraph in enumerate(summary.paragraphs, start=1):  # an empty paragraph says why
            assert paragraph.text or any(r.paragraph == k and r.kind == "no evidence" for r in summary.repairs)
    assert all(p.figure is None for p in summaries[0].paragraphs)


def test_a_body_of_references_and_tables_never_fills_paragraphs_with_them(embedder, smollm_engine, tmp_path):
    references = [Block(id=f"r{k}", type="paragraph", section="References", page=2,
                        text=f"Smith J{k}, Brown K, Lee T. Flow of rivers. J Hydrol. 20{k:02d};{k}:1-9.")
                  for k in range(30)]
    table_rows = [Block(id=f"t{k}", type="paragraph", section="Results", page=2,
                        text=f"Catchment {k} 12.{k} 45.{k} 0.{k} ± 0.1 ± 0.2 ± 0.3") for k in range(20)]
    document = Document(source="/tmp/refs.pdf", kind="pdf", title="Trees and rivers", blocks=[
        Block(id="h", type="heading", text="Introduction", section="Introduction"),
        Block(id="b1", type="paragraph", section="Introduction", page=1,
              text="Rivers lose water when pasture is replaced by pine plantations in dry regions of Australia."),
        *table_rows,
        Block(id="hr", type="heading", text="References", section="References"),
        *references,
    ])
    summary = summarize_document(document, tmp_path, engine=smollm_engine, embedder=embedder,
                                 options=SummaryOptions(include_abstract=False, max_tokens=48))
    text = " ".join(p.text for p in summary.paragraphs)
    assert "J Hydrol" not in text and "±" not in text
    assert any(r.kind == "no evidence" for r in summary.repairs)


def test_the_grounded_prompt_is_short(exported, embedder, smollm_engine):
    document, _ = exported(PAPER)
    evidence, _ = select_evidence(document, embedder, include_abstract=False)
    for paragraph in evidence:
        messages = prompts.grounded_messages(paragraph, title=document.title, words=90)
        tokens = sum(smollm_engine.count_tokens(m.text) for m in messages)
        assert tokens < 800
        assert all(f"[{item.number}] {item.text}" in messages[1].text for item in paragraph.items)
