"""MCiteBench answered through the app's own answering path (``app.ask.ask_sources``, what `mmdocsum ask`
does after reading) with the real models of a Session: MiniLM + the cross-encoder ranking the record's
sources, RapidOCR reading its images."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mmdocsum_desktop.answer.ask import AskOptions, answer_from_evidence
from mmdocsum_desktop.app.ask import retriever, source_passages
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench import splits
from mmdocsum_desktop.bench.metrics.mcite import score_record
from mmdocsum_desktop.bench.suites.mcite import (
    answer_record,
    given_sources,
    response_text,
    sentence_citation_list,
)
from mmdocsum_desktop.errors import EmptyQuestionError
from mmdocsum_desktop.schemas.settings import EngineChoice, Settings

EXTRACTIVE = EngineChoice(engine="extractive")


@pytest.fixture(scope="module")
def session():
    with Session(Settings()) as session:
        yield session


@pytest.fixture(scope="module")
def demo():
    return {record.id: record for record in splits.load_mcite("demo").items}


def test_sources_become_passages_that_map_back_to_their_ids(session, demo):
    record = demo["demo-q1"]
    sources = given_sources(record)
    assert [s.id for s in sources] == list(record.order)
    passages = source_passages(session, sources)
    assert {p.block for p in passages} == set(record.sources)
    for passage in passages:
        if record.sources[passage.block].kind == "text":
            assert passage.labels == () and passage.text in record.sources[passage.block].text
        else:
            # a figure is the text OCR reads in its image, resting on that figure only
            assert passage.labels == (passage.block,) and passage.text.startswith(f"Text in {passage.block}: ")


def test_the_extractive_answer_cites_the_record_sources_in_mcitebench_form(session, demo):
    record = demo["demo-q1"]  # gold: text 1 and Figure 1
    answer = answer_record(session, record, EXTRACTIVE)
    assert answer.engine.engine == "extractive" and not answer.not_in_document
    pairs = sentence_citation_list(record, answer)
    assert pairs and all(set(p["Citation"]) <= set(record.sources) for p in pairs)
    # every sentence quoted is a sentence of the source it cites
    for pair in pairs:
        texts = [record.sources[c].text or "" for c in pair["Citation"] if record.sources[c].kind == "text"]
        assert not texts or any(pair["Sentence"] in t for t in texts)
    # the response text says the same citations as the pairs (the rules read it back identically)
    response = response_text(answer, pairs)
    assert score_record(record, response)["cited"] == score_record(record, response, pairs)["cited"]
    # the passage about the rise times ranks first: the gold text source is cited
    assert "1" in score_record(record, response, pairs)["cited"]


def test_the_same_function_answers_a_document_and_a_record(session, demo):
    record = demo["demo-q1"]
    # without images, a figure is known by its label only
    labelled = [replace(s, image=None) for s in given_sources(record)]
    passages = source_passages(session, labelled)
    assert [p.text for p in passages if p.labels] == [s for s in record.order if record.sources[s].kind != "text"]
    search = retriever(session)
    index = search.index_passages(passages, known_labels=frozenset({"Figure 1", "Figure 2"}))
    evidence = search.search(index, record.question, k=len(passages))
    direct = answer_from_evidence(record.question, evidence, index, None, search,
                                  options=AskOptions(evidence_k=len(passages)))
    no_images = replace(record, sources={key: replace(source, image=None) for key, source in record.sources.items()})
    from_record = answer_record(session, no_images, EXTRACTIVE)
    assert [s.text for s in direct.sentences] == [s.text for s in from_record.sentences]
    # an empty question is refused by the answer module itself, as in `mmdocsum ask`
    with pytest.raises(EmptyQuestionError):
        answer_from_evidence("  ", evidence, index, None, search)
