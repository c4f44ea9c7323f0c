"""One Repair for summaries and answers: the answers' "detail" and the summaries' "reason" both load."""

from __future__ import annotations

import json

from mmdocsum_desktop.schemas.answer import Answer
from mmdocsum_desktop.schemas.repair import Repair
from mmdocsum_desktop.schemas.summary import Summary


def test_an_answer_file_written_before_loads_its_repairs():
    """`mmdocsum ask --format json` wrote "detail" for the reason."""
    before = {
        "format": "mmdocsum-answer", "version": 1, "source": "paper.pdf", "question": "What was measured?",
        "sentences": [{"text": "Enzymes were measured.", "source": "model", "pages": [3], "figures": [],
                       "tables": [], "blocks": ["b9"], "evidence": [1], "support": 0.81}],
        "repairs": [{"kind": "unknown-evidence-number-dropped", "detail": "[9] names no passage that was shown",
                     "text": "Enzymes were measured [9]."},
                    {"kind": "question-truncated", "detail": "the question had 2400 characters", "text": None}],
        "engine": {"engine": "llama", "model": "SmolLM2", "retrieval": {"reranker": True, "passages": 41}},
        "generation": {"prompt_tokens": 300, "completion_tokens": 20, "finish_reason": "stop",
                       "prompt_seconds": 1.5, "generation_seconds": 0.4, "prompt_tokens_per_s": 200.0,
                       "generation_tokens_per_s": 47.5, "counted": "engine"},
    }
    answer = Answer.model_validate(before)
    assert [r.reason for r in answer.repairs] == ["[9] names no passage that was shown",
                                                  "the question had 2400 characters"]
    assert answer.repairs[0].text == "Enzymes were measured [9]." and answer.repairs[1].text is None
    assert answer.engine.retrieval is not None and answer.engine.retrieval.passages == 41
    assert answer.generation is not None and answer.generation.completion_tokens == 20
    written = json.loads(answer.model_dump_json())
    assert written["repairs"][0] == {"kind": "unknown-evidence-number-dropped",
                                     "reason": "[9] names no passage that was shown",
                                     "text": "Enzymes were measured [9]."}
    assert written["engine"] == before["engine"] and written["generation"] == before["generation"]
    assert Answer.model_validate(written) == answer


def test_summaries_and_answers_share_the_repair():
    summary = Summary.model_validate({"repairs": [{"paragraph": 2, "kind": "figure", "reason": "index out of range"}]})
    answer = Answer(question="q", repairs=[Repair(kind="citation-added", reason="it rests on passage [2]")])
    assert type(summary.repairs[0]) is type(answer.repairs[0]) is Repair
    assert summary.repairs[0].line() == "paragraph 2: figure (index out of range)"
    assert answer.repairs[0].line() == "citation-added (it rests on passage [2])"


def test_a_repair_writes_only_what_it_was_given():
    repair = Repair(paragraph=3, kind="rule break", reason="image 7 does not exist", chosen=None, by="placement")
    assert repair.model_dump(mode="json") == {"kind": "rule break", "reason": "image 7 does not exist",
                                              "paragraph": 3, "by": "placement", "chosen": None}
    assert Repair().model_dump() == {} and Repair().line() == "repair ()"
