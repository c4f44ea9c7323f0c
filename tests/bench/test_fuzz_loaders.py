"""The split loaders on hostile files: mutated and truncated real splits, wrong types, missing keys,
paths out of the split's folder, non-UTF-8 bytes, huge numbers and deep nesting. A loader returns its
items and the reasons for what it skipped, or raises a one-line MmdocsumError — nothing else. The
strategies and checks live in tests/fuzzing.py; the long run is tests/fuzz_inputs.py."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from mmdocsum_desktop.bench.splits import (
    load_flow_insertion,
    load_ftii_predictions,
    load_mcite,
    load_mdocsum,
    load_rouge,
    load_single_choice,
    read_prediction_file,
)
from mmdocsum_desktop.schemas.bench import BenchDataError
from tests.fuzzing import LOADERS, check_loader, loader_inputs

BOUNDED = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("loader", LOADERS)
def test_fuzzed_split_files_load_or_fail_cleanly(loader):
    @BOUNDED
    @given(loader_inputs(loader))
    def property_holds(split):
        check_loader(split, seconds=20)

    property_holds()


# ------------------------------------------------------------------ regressions found by the fuzzing

GOLD = [{"summary": "A b c.", "image": {"imageRef": "None", "imageCaption": ""}}] * 4
DEEP = "[" * 100_000 + "]" * 100_000
HUGE_NUMBER = "9" * 5000  # json.loads refuses integers of over 4300 digits with a plain ValueError


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("bad_line", [DEEP, HUGE_NUMBER, '{"id": ' + HUGE_NUMBER + "}"])
def test_jsonl_lines_json_cannot_read_are_skipped(tmp_path, bad_line):
    good = json.dumps({"id": "ok", "gold": GOLD})
    split = load_mdocsum(_write(tmp_path, "split.jsonl", f"{bad_line}\n{good}\n"))
    assert [item.id for item in split.items] == ["ok"]
    assert split.skipped[0].line == 1 and split.skipped[0].reason.startswith("malformed JSON")
    assert load_rouge(_write(tmp_path, "rouge.jsonl", bad_line + "\n")).skipped[0].line == 1


@pytest.mark.parametrize("body", [DEEP, HUGE_NUMBER, '{"data": 5}'])
def test_json_split_that_is_not_a_list_of_records_is_reported(tmp_path, body):
    split = load_mdocsum(_write(tmp_path, "split.json", body))
    assert split.items == [] and len(split.skipped) == 1 and "split.json" in split.skipped[0].reason


def test_document_path_with_a_nul_is_skipped_with_its_reason(tmp_path):
    lines = [json.dumps({"id": "nul", "gold": GOLD, "document": "a\x00b.pdf"}),
             json.dumps({"id": "list", "gold": GOLD, "document": ["a.pdf"]}),
             json.dumps({"id": "ok", "gold": GOLD, "document": "a.pdf"})]
    split = load_mdocsum(_write(tmp_path, "split.jsonl", "\n".join(lines)))
    assert [item.id for item in split.items] == ["ok"] and split.items[0].document == (tmp_path / "a.pdf").resolve()
    assert {s.id for s in split.skipped} == {"nul", "list"}
    rouge = load_rouge(_write(tmp_path, "rouge.jsonl", json.dumps({"id": 1, "abstract": "a", "document": "x\x00"})))
    assert rouge.items == [] and "document path" in rouge.skipped[0].reason


def test_counts_that_are_not_counts_are_ignored(tmp_path):
    line = json.dumps({"id": "a", "gold": GOLD, "n_images": True, "n_tokens": -3})
    item = load_mdocsum(_write(tmp_path, "split.jsonl", line)).items[0]
    assert item.n_images is None and item.n_tokens is None


@pytest.mark.parametrize(("field", "value", "reason"), [
    ("idx_2_text", [1, 2], "idx_2_text is a JSON list"),
    ("image_2_idx", "images/a.png", "image_2_idx is a JSON str"),
    ("evidence_contents", "abc", "evidence_contents is a JSON str"),
    ("evidence_count", 1e309, "evidence_count is not a whole number"),
    ("question_id", None, "no question_id"),
])
def test_mcite_records_of_the_wrong_shape_are_skipped(tmp_path, field, value, reason):
    record = {"question_id": "q1", "pdf_id": "p", "question": "Why?", field: value}
    split = load_mcite(_write(tmp_path, "data.jsonl", json.dumps(record)))
    assert split.items == [] and reason in split.skipped[0].reason


@pytest.mark.parametrize("name", ["../../outside.png", "/etc/hostname", "images/" + "a" * 5000 + ".png", "a\x00.png"])
def test_mcite_images_outside_the_images_folder_or_unnamable_are_missing(tmp_path, name):
    (tmp_path / "visual_resources" / "p").mkdir(parents=True)
    (tmp_path / "outside.png").write_bytes(b"\x89PNG")
    record = {"question_id": "q1", "pdf_id": "p", "question": "Why?", "image_2_idx": {name: 1}}
    split = load_mcite(_write(tmp_path, "data.jsonl", json.dumps(record)))
    source = split.items[0].sources["Figure 1"]
    assert split.items[0].missing == ["Figure 1"]
    assert source.image is None or source.image.is_relative_to(tmp_path / "visual_resources")


def test_mcite_image_inside_the_folder_is_found(tmp_path):
    (tmp_path / "visual_resources" / "p" / "images").mkdir(parents=True)
    (tmp_path / "visual_resources" / "p" / "images" / "f.png").write_bytes(b"\x89PNG")
    record = {"question_id": "q1", "pdf_id": "p", "question": "Why?", "image_2_idx": {"images/f.png": 1}}
    item = load_mcite(_write(tmp_path, "data.jsonl", json.dumps(record))).items[0]
    assert item.missing == [] and item.sources["Figure 1"].image.is_file()


@pytest.mark.parametrize("load", [load_flow_insertion, load_ftii_predictions])
def test_ftii_json_nested_too_deeply_is_a_clean_error(tmp_path, load):
    with pytest.raises(BenchDataError, match="nested too deeply"):
        load(_write(tmp_path, "flow.json", DEEP))


def test_ftii_messages_stay_on_one_line(tmp_path):
    path = _write(tmp_path, "predictions.json", json.dumps({"line one\nline two": "x"}))
    with pytest.raises(BenchDataError) as caught:
        load_ftii_predictions(path)
    assert "\n" not in str(caught.value) and "line one\\nline two" in str(caught.value)


@pytest.mark.parametrize("answer", ["²", HUGE_NUMBER])
def test_single_choice_answers_int_cannot_read_are_refused_cleanly(tmp_path, answer):
    path = _write(tmp_path, "sc.tsv", f"above_content\tbelow_content\timg1\timg2\tAnswer\na\tb\tx.png\ty.png\t{answer}\n")
    with pytest.raises(BenchDataError, match="cannot read the answer") as caught:
        load_single_choice(path)
    assert len(str(caught.value)) < 200


def test_single_choice_number_answers_still_work(tmp_path):
    path = _write(tmp_path, "sc.tsv", "above_content\tbelow_content\timg1\timg2\tAnswer\na\tb\tx.png\ty.png\t2\n")
    assert load_single_choice(path)[0].answer == 1


@pytest.mark.parametrize("body", [DEEP, HUGE_NUMBER])
def test_prediction_file_json_cannot_read_is_kept_as_text(tmp_path, body):
    assert read_prediction_file(_write(tmp_path, "doc.json", body)) == body
