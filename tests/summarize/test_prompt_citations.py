"""The prompt (Markdown with image tags where the figures sit, shuffled tags mapped back) and the
citations (label mentions, prompt tags, embedding similarity)."""

from __future__ import annotations

import re

from mmdocsum_desktop.engines.base import ImagePart
from mmdocsum_desktop.placement.candidates import candidates_from_document
from mmdocsum_desktop.summarize import prompt as prompts
from mmdocsum_desktop.summarize.citations import Citer

SAMPLE = "wheat-04-00932.pdf"  # the package's sample: 5 figures ("Figure 3. (A) PCA ..."), 1 table


def test_images_appear_at_their_captions_with_tags(exported):
    document, folder = exported(SAMPLE)
    candidates = candidates_from_document(document, folder)
    slots = prompts.make_slots(candidates)
    segments, omitted = prompts.document_segments(document, slots)
    text = prompts.plain_text(prompts.render_segments(segments, vision=False))
    tags = [int(t) for t in re.findall(r"\[Image (\d+)\]", text)]
    assert sorted(tags) == list(range(1, len(candidates) + 1))
    # the tag of "Figure 3" carries its caption, and comes after the text that precedes its caption
    figure3 = next(s for s in slots if s.label == "Figure 3")
    line = next(line for line in text.splitlines() if line.startswith(f"[Image {figure3.tag}]"))
    assert "Fig. 3" in line or "Figure 3" in line
    assert "## " in text  # headings kept as Markdown
    assert "\x00" not in text


def test_vision_prompt_interleaves_images(exported):
    document, folder = exported(SAMPLE)
    slots = prompts.make_slots(candidates_from_document(document, folder))
    segments, _ = prompts.document_segments(document, slots)
    parts = prompts.render_segments(segments, vision=True)
    images = [p for p in parts if isinstance(p, ImagePart)]
    assert len(images) == len(slots)
    first = parts.index(images[0])
    assert isinstance(parts[first - 1], str) and parts[first - 1].rstrip().endswith("]")


def test_shuffled_tags_map_back_to_document_order(exported):
    document, folder = exported(SAMPLE)
    candidates = candidates_from_document(document, folder)
    plain = prompts.make_slots(candidates)
    shuffled = prompts.make_slots(candidates, shuffle_seed=7)
    assert [s.candidate for s in plain] == list(range(len(candidates)))
    assert sorted(s.candidate for s in shuffled) == list(range(len(candidates)))
    assert [s.candidate for s in shuffled] != [s.candidate for s in plain]
    for slot in shuffled:
        assert slot.label == candidates[slot.candidate].label
    assert prompts.make_slots(candidates, shuffle_seed=7) == shuffled  # deterministic


def test_no_abstract_and_back_matter_left_out(exported):
    document, folder = exported("PMC4521097.pdf")  # Behav. Ecol. Sociobiol.: clean sections, an author-year reference list
    slots = prompts.make_slots(candidates_from_document(document, folder))
    with_abstract, omitted = prompts.document_segments(document, slots, include_abstract=True)
    without, _ = prompts.document_segments(document, slots, include_abstract=False)
    first_abstract = next(b for b in document.blocks if b.is_abstract and b.type == "paragraph").text.split()[:8]
    snippet = " ".join(first_abstract)
    assert snippet in " ".join(" ".join(s.text.split()) for s in with_abstract)
    assert snippet not in " ".join(" ".join(s.text.split()) for s in without)
    assert any("References" in o for o in omitted)
    text = " ".join(s.text for s in without)
    reference = "Barnard CJ, Burk T (1979)"  # an entry of the paper's reference list
    assert any(reference in b.text for b in document.blocks)
    assert reference not in text  # the reference list is not sent to the model


def test_answer_schema_limits_references():
    schema = prompts.answer_schema(3)
    assert schema["minItems"] == schema["maxItems"] == 4
    assert schema["items"]["properties"]["image"]["properties"]["imageRef"]["enum"] == ["None", "1", "2", "3"]


def test_prompt_text_is_ours_and_complete():
    messages = prompts.summary_messages(["DOC"], title="T", image_count=2, with_ocr=True)
    user = messages[1].text
    assert "DOC" in user and "four paragraphs" in user and '"imageRef"' in user and "text read from it" in user
    assert "$" not in user


def test_citations_from_mentions_tags_and_similarity(exported, embedder):
    document, folder = exported(SAMPLE)
    citer = Citer(document, embedder, tag_labels={3: "Figure 1"})
    fig2 = next(f for f in document.figures if f.label == "Figure 2")
    results = citer.cite([
        "As Fig. 2 shows, the volatile profile of the control wheat grains changes little over the days of analysis.",
        "[Image 3] gives the annual curves.",
        "Completely unrelated words about cooking pasta with garlic.",
    ])
    assert "Figure 2" in results[0].figures and fig2.page in results[0].pages
    assert results[0].evidence and any(e.how == "similarity" for e in results[0].evidence)
    assert results[1].figures == ["Figure 1"]
    assert results[2].blocks == [] and results[2].marker == ""
