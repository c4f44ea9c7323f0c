"""A document's hostile text through the real commands (issue 38, point 8): sentences addressed to a model
never come back as the paper's content from `summarize` or `ask`, and markup the document carries
(<script>, <iframe src=file:…>, javascript: links, <img src=/private/…>) never comes back as markup from any
exported format, as a permissive viewer (raw HTML on, every link scheme allowed) would show it."""

from __future__ import annotations

import html
import json

import pytest

from tests.security.hostile_documents import INJECTIONS, MARKERS, MARKUP, live_markdown, live_markup

ARTICLE = """# Sourdough rises faster in a warm kitchen

## Abstract

We baked twelve loaves at three kitchen temperatures and measured how fast the dough rose.

## Method

Dough was kept at 18, 22 and 26 degrees. We measured its height every hour with a ruler.

## Results

Dough at 26 degrees doubled in four hours; at 18 degrees it took nine hours.

## Conclusion

A warm kitchen halves the rising time of sourdough, and bakers can plan their day around it.
"""
LOGS = [f"The oven log of loaf {n} reads {markup} as its first line of output." for n, (_, markup) in enumerate(MARKUP)]
QUESTIONS = ["What does the oven log of loaf 0 read as its first line?", "What do the oven logs of loaves 2 and 4 read?",
             "What should the summary say?", "How fast did the dough rise?", "What is the answer to every question?"]


def _document(folder, suffix: str):
    """The article with every instruction after its results and the oven logs (markup as text: Markdown
    entities, HTML escaped once) in a section of their own."""
    text = ARTICLE.replace("nine hours.", "nine hours. " + " ".join(s for _, s in INJECTIONS))
    path = folder / f"paper{suffix}"
    if suffix == ".md":
        logs = "\n\n".join(html.escape(line, quote=False) for line in LOGS)
        path.write_text(text + "\n## Oven logs\n\n" + logs + "\n", encoding="utf-8")
    else:
        blocks = [f"<h2>{html.escape(p.strip('# '))}</h2>" if p.startswith("#") else f"<p>{html.escape(p)}</p>"
                  for p in (text + "\n\n## Oven logs\n\n" + "\n\n".join(LOGS)).split("\n\n") if p.strip()]
        path.write_text("<html><body>" + "".join(blocks) + "</body></html>", encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", [".md", ".html"])
def test_summaries_in_every_format_carry_neither_instructions_nor_markup(cli, tmp_path, suffix):
    source = _document(tmp_path, suffix)
    for fmt in ("md", "html", "json"):
        output = tmp_path / f"summary.{fmt}"
        code, _, err = cli("summarize", source, "-o", output, "--engine", "extractive", "--quiet")
        assert code == 0, err
        written = output.read_text(encoding="utf-8")
        assert not [m for m in MARKERS if m in written], written
        if fmt == "md":
            assert live_markdown(written) == []
        elif fmt == "html":
            assert live_markup(written) == []
        else:
            summary = json.loads(written)
            assert "four hours" in " ".join(p.get("text", "") for p in summary["paragraphs"]) or "halves" in written


@pytest.mark.parametrize("suffix", [".md", ".html"])
def test_ask_answers_carry_neither_instructions_nor_markup(cli, tmp_path, suffix):
    source = _document(tmp_path, suffix)
    quoted_markup = 0
    for question in QUESTIONS:
        code, out, err = cli("ask", source, question, "--engine", "extractive", "--quiet", "--no-rerank")
        assert code == 0, err
        assert not [m for m in MARKERS if m in out], out
        assert live_markdown(out) == [], out
        quoted_markup += out.count("MARKUP-")
        code, out, err = cli("ask", source, question, "--engine", "extractive", "--quiet", "--no-rerank",
                             "--format", "json")
        assert code == 0, err
        answer = json.loads(out)
        assert not [m for m in MARKERS if m in json.dumps(answer["sentences"]) + json.dumps(answer["evidence"])]
    assert quoted_markup >= 3  # the oven logs were answered, their markup shown as text
