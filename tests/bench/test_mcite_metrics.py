"""MCiteBench scoring by hand, on the benchmark's own sample records (the evaluation corpus's
mcitebench_sample: those tests are marked corpus) and on records written here."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from mmdocsum_desktop.bench import splits
from mmdocsum_desktop.bench.metrics.mcite import (
    aggregate,
    citations_in,
    score_record,
    sentence_citations,
    source_scores,
)
from mmdocsum_desktop.bench.splits import record_from_json
from mmdocsum_desktop.bench.suites.mcite import judge_record
from mmdocsum_desktop.judge.sources import Judge
from mmdocsum_desktop.text.sentences import split_answer_sentences


@dataclass
class Reply:
    text: str


class ScriptedEngine:
    """A stand-in language model: answers from a function of the prompt text (for exact arithmetic)."""

    name = "scripted"
    model_name = "script"

    def __init__(self, answer, supports_images: bool = True):
        self.answer = answer
        self.supports_images = supports_images
        self.prompts: list[str] = []

    def generate(self, messages, options, *, control=None, on_text=None):
        text = "\n".join(m.text for m in messages)
        self.prompts.append(text)
        return Reply(self.answer(text))

    def describe(self):
        return {"engine": self.name}


@pytest.fixture(scope="module")
def sample(corpus):
    """The MCiteBench sample records of the evaluation corpus (a test using them is a corpus test)."""
    loaded = splits.load_mcite(corpus / "mcitebench_sample")
    assert not [s for s in loaded.skipped if "missing" not in s.reason], loaded.skipped
    return {record.pdf_id[:4]: record for record in loaded.items}


@pytest.mark.corpus
def test_sample_gold_sources_are_normalised(sample):
    assert sample["67e2"].gold == ["Table 2", "Table 6"]
    assert sample["67e2"].category == "explanation_multi"
    assert sample["3116"].gold == ["Figure 1"]
    assert sample["10fb"].gold == ["Figure 1"] and sample["10fb"].category == "locating_single"
    # every source of the record is listed: text ids, figures, tables
    assert set(sample["67e2"].sources) == {"1", "2", "Table 1", "Table 2", "Table 6"}
    assert not sample["67e2"].missing


@pytest.mark.corpus
def test_partial_citations_source_f1(sample):
    record = sample["67e2"]  # gold {Table 2, Table 6}
    response = "GROD beats the baselines in every task (Table 2). Gaussian noise was tested as well [1]."
    row = score_record(record, response)
    # cited {Table 2, 1}: 1 of 2 gold found, 1 of 2 cited is gold -> recall 1/2, precision 1/2, F1 1/2
    assert row["cited"] == ["1", "Table 2"]
    assert row["source_recall"] == 0.5 and row["source_precision"] == 0.5
    assert row["source_f1"] == 0.5 and row["source_em"] == 0.0
    exact = score_record(record, "It is better (Table 2, Table 6).")
    assert exact["source_f1"] == 1.0 and exact["source_em"] == 1.0
    assert score_record(record, "No citations here.")["uncited"] is True


def test_source_scores_edge_cases():
    assert source_scores([], []) == {"source_recall": 0.0, "source_precision": 0.0, "source_f1": 0.0, "source_em": 0.0}
    assert source_scores(["1"], [])["source_f1"] == 0.0
    # recall 1/3, precision 1/1 -> F1 = 2 * (1/3) / (4/3) = 0.5
    assert source_scores(["1", "2", "Figure 1"], ["1", "1"])["source_f1"] == pytest.approx(0.5)


def test_citation_forms():
    assert citations_in("This is observed [1][2].") == ["1", "2"]
    assert citations_in("Both agree [1, 3].") == ["1", "3"]
    assert citations_in("Seen in [2-4].") == ["2", "3", "4"]
    assert citations_in("As Figure 3(a) and Fig. 4 show, with Table II") == ["Figure 3", "Figure 4"]
    assert citations_in("see Image 2 and [Table 5]") == ["Figure 2", "Table 5"]
    assert split_answer_sentences("First claim [1]. Second claim (Figure 2). Third.") == [
        "First claim [1].",
        "Second claim (Figure 2).",
        "Third.",
    ]
    assert split_answer_sentences("A claim.[3] Another one.") == ["A claim [3].", "Another one."]
    pairs = sentence_citations("A claim [1]. No citation here. Another (Table 2).")
    assert pairs == [("A claim [1].", ["1"]), ("Another (Table 2).", ["Table 2"])]


def _scripted_judge(support: dict[str, int], relevance: dict[tuple[str, str], int], rating: int) -> Judge:
    def answer(prompt: str) -> str:
        statement = prompt.rsplit("Statement:", 1)[-1].split("\n")[0].strip() if "Statement:" in prompt else ""
        if "taken together" in prompt:
            return json.dumps({"rating": support[statement]})
        if "contains at least some key information" in prompt:
            source = next(key for (s, key) in relevance if s == statement and f"{key}:" in prompt or f"[{key}]" in prompt)
            return json.dumps({"rating": relevance[(statement, source)]})
        return f"```json\n{{\"rating\": {rating}}}\n```"

    return Judge(ScriptedEngine(answer))


@pytest.mark.corpus
def test_citation_f1_with_a_judge(sample):
    record = sample["67e2"]
    s1, s2 = "GROD beats the baselines (Table 2).", "Gaussian noise was tested [1]."
    judge = _scripted_judge({s1: 2, s2: 1}, {(s1, "Table 2"): 1, (s2, "1"): 0}, rating=1)
    result = judge_record(record, f"{s1} {s2}", judge)
    # recall: supports 2 and 1 -> (1 + 0.5) / 2 = 0.75; precision: relevance 1 and 0 -> 0.5
    # F1 = 2 * 0.75 * 0.5 / 1.25 = 0.6; answer rating 1 (read from a fenced JSON answer)
    assert result["citation_recall"] == 0.75
    assert result["citation_precision"] == 0.5
    assert result["citation_f1"] == pytest.approx(0.6)
    assert result["answer_rating"] == 1 and result["judge_failures"] == []


@pytest.mark.corpus
def test_citing_a_source_that_does_not_exist_scores_zero(sample):
    record = sample["67e2"]
    judge = _scripted_judge({}, {}, rating=0)
    result = judge_record(record, "Made up [9] (Figure 7).", judge)
    # no cited source exists: support 0, relevance 0 and 0, no judge call needed for them
    assert result["citation_recall"] == 0.0 and result["citation_precision"] == 0.0 and result["citation_f1"] == 0.0


@pytest.mark.corpus
def test_garbage_judge_is_recorded_and_the_record_goes_on(sample):
    judge = Judge(ScriptedEngine(lambda prompt: "I think this answer is quite good, maybe 1 or 2."))
    result = judge_record(sample["67e2"], "GROD wins (Table 2).", judge)
    assert result["citation_f1"] is None and result["answer_rating"] is None
    assert len(result["judge_failures"]) == 3  # support, relevance, answer rating
    assert "could not read" in result["judge_failures"][0]


@pytest.mark.corpus
def test_a_judge_that_cannot_see_images_does_not_guess(sample):
    judge = Judge(ScriptedEngine(lambda prompt: '{"rating": 2}', supports_images=False))
    result = judge_record(sample["67e2"], "GROD wins (Table 2).", judge)
    assert result["citation_f1"] is None
    assert any("cannot see images" in f for f in result["judge_failures"])
    assert result["answer_rating"] == 2


def test_aggregate_answer_accuracy_and_categories():
    rows = [
        {"category": "explanation_single", "source_f1": 1.0, "source_em": 1.0, "citation_f1": 0.5, "answer_rating": 2},
        {"category": "explanation_multi", "source_f1": 0.5, "source_em": 0.0, "citation_f1": None, "answer_rating": 1},
        {"category": "locating_single", "source_f1": 0.0, "source_em": 0.0, "citation_f1": 0.0, "answer_rating": None, "uncited": True},
    ]
    result = aggregate(rows)
    assert result["source_f1"] == 0.5 and result["source_em"] == pytest.approx(1 / 3)
    assert result["citation_f1"] == 0.25  # mean over the two judged records
    assert result["answer_accuracy"] == 0.75  # (2 + 1) / (2 * 2)
    assert result["n_uncited"] == 1 and result["n_judged_answers"] == 2
    assert result["by_category"]["explanation_single"]["answer_accuracy"] == 1.0


@pytest.mark.corpus
def test_given_sentence_citation_pairs_are_scored_as_given(sample):
    record = sample["67e2"]  # gold {Table 2, Table 6}
    # the quoted sentence mentions Fig. 4, but MCiteBench's pairs say what it cites
    pairs = [{"Sentence": "Results are shown in Fig. 4.", "Citation": ["Table 2"]},
             {"Sentence": "A notice.", "Citation": []}]
    row = score_record(record, "Results are shown in Fig. 4 (Table 2). A notice.", pairs)
    assert row["cited"] == ["Table 2"] and row["source_f1"] == pytest.approx(2 / 3)
    assert row["sentences"] == [{"sentence": "Results are shown in Fig. 4.", "citations": ["Table 2"]}]
    # without the pairs the rules read the text and count the figure it mentions too
    assert score_record(record, "Results are shown in Fig. 4 (Table 2).")["cited"] == ["Figure 4", "Table 2"]


def test_bad_records_are_skipped_with_reasons(tmp_path):
    # a good record: the first question of the bundled pmc-test split
    good = json.loads((splits.bundled("pmc-test").folder / "mcite.jsonl").read_text().splitlines()[0])
    lines = [json.dumps(good), "{not json", json.dumps({"question_id": "q"}), json.dumps(good), "[1, 2]"]
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(lines) + "\n")
    loaded = splits.load_mcite(path, images_root=tmp_path / "nowhere")
    assert len(loaded.items) == 1
    reasons = [(s.line, s.reason) for s in loaded.skipped]
    assert any(line == 2 and "malformed JSON" in r for line, r in reasons)
    assert any(line == 3 and "no question" in r for line, r in reasons)
    assert any(line == 4 and "duplicate" in r for line, r in reasons)
    assert any(line == 5 and "not an object" in r for line, r in reasons)
    assert any(line == 1 and "image files missing" in r for line, r in reasons)
    # a record whose images are missing is still usable; the sources are shown as unavailable
    # (the record, PMC5301171-table-1, offers the paper's Figures 1-2 and Tables 1-6 as sources)
    assert good["question_id"] == "PMC5301171-table-1"
    assert record_from_json(good, tmp_path).missing == ["Figure 1", "Figure 2", *(f"Table {k}" for k in range(1, 7))]
