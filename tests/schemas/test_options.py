"""The typed doors of the application layer: a misspelled option or a mode that does not exist is refused
where the request is built, with a message naming it, instead of a summary written with the defaults."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from mmdocsum_desktop.schemas.answer import AskOptions
from mmdocsum_desktop.schemas.judgement import Judgement
from mmdocsum_desktop.schemas.options import OptionsError, build
from mmdocsum_desktop.schemas.summary import Summary, SummaryOptions, SummaryRequest


def test_a_misspelled_summary_option_is_refused_naming_it():
    with pytest.raises(ValidationError, match="include_abstact"):
        SummaryOptions(include_abstact=False)
    with pytest.raises(ValidationError, match="include_abstact"):
        SummaryRequest(include_abstact=False)


def test_a_mode_that_does_not_exist_is_refused():
    with pytest.raises(ValidationError, match="llm_mode"):
        SummaryOptions(llm_mode="nonsense")
    with pytest.raises(ValidationError, match="figure_mode"):
        SummaryOptions(figure_mode="random")
    assert SummaryOptions(llm_mode="full", figure_mode="placement").llm_mode == "full"


def test_build_gives_one_line_naming_the_field_and_the_one_it_was_meant_to_be():
    with pytest.raises(OptionsError) as misspelled:
        build(SummaryRequest, {"include_abstact": False}, what="summary option")
    assert str(misspelled.value) == "unknown summary option 'include_abstact' (did you mean 'include_abstract'?)"
    with pytest.raises(OptionsError) as out_of_range:
        build(SummaryRequest, {"time_limit_s": -1.0}, labels={"time_limit_s": "--time-limit"})
    message = str(out_of_range.value)
    assert "\n" not in message and message.startswith("option --time-limit: ") and "-1.0" in message
    assert OptionsError.exit_code == 2


def test_the_request_sets_only_its_own_fields_of_the_summary_options():
    request = SummaryRequest(include_abstract=False, shuffle_seed=3)
    engine_values = {"figure_mode": "model", "max_tokens": 300, "llm_mode": "full"}
    options = SummaryOptions.model_validate({**engine_values, **request.option_values()})
    assert (options.include_abstract, options.shuffle_seed, options.citations) == (False, 3, True)
    assert (options.figure_mode, options.max_tokens, options.llm_mode) == ("model", 300, "full")
    assert options.note_words == SummaryOptions().note_words  # not set by the request: the default stays


def test_a_stored_summary_still_reads_options_an_older_version_wrote():
    stored = {"options": {"shuffle_images": 5, "include_abstract": False, "dropped_since": True}}
    summary = Summary.model_validate(stored)
    assert summary.options.shuffle_seed == 5 and summary.options.include_abstract is False


def test_ask_options_refuse_unknown_fields_and_are_frozen():
    with pytest.raises(ValidationError, match="evidence_kk"):
        AskOptions(evidence_kk=3)
    options = AskOptions(max_tokens=48)
    with pytest.raises(ValidationError):
        options.max_tokens = 10  # type: ignore[misc]
    assert options.model_copy(update={"temperature": 0.5}).temperature == 0.5


def test_a_judgement_is_a_typed_record_of_the_judge_json():
    result = Judgement.model_validate({
        "overall": 3.5, "judge": "llama (SmolLM2.gguf)", "figures_as_text": True, "calls": 2, "seconds": 1.2,
        "prompt_tokens": 900, "completion_tokens": 40, "missing": [],
        "aspects": {"helpfulness": {"score": 3.5, "explanation": "clear", "status": "ok", "error": None,
                                    "samples": [{"score": 3.5, "explanation": "clear", "problem": None,
                                                 "raw": '{"score": 3.5}', "seconds": 0.6, "prompt_tokens": 450}]}},
        "aspect_titles": {"helpfulness": "Helpfulness"},
    })
    assert result.aspects["helpfulness"].samples[0].prompt_tokens == 450
    with pytest.raises(ValidationError, match="status"):
        Judgement.model_validate({"aspects": {"helpfulness": {"status": "fine"}}})
