"""Bounded property-based fuzzing of the article readers (HTML, Markdown, JATS): mutated real articles,
generated markup and hand-written attacks. The only way out is a valid Document or a one-line
MmdocsumError, within a time bound, without reading a planted local file or touching the network. The
long run is tests/fuzz_inputs.py; the strategies and checks live in tests/fuzzing.py."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.fuzzing import check_article, html_inputs, jats_inputs, markdown_inputs

# derandomize: the same inputs on every run (CI stays stable); the long run explores new ones.
BOUNDED = settings(
    max_examples=45,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


@BOUNDED
@given(html_inputs())
def test_html_reader_reads_or_refuses_any_input(data):
    check_article(data, ".html", seconds=20)


@BOUNDED
@given(markdown_inputs())
def test_markdown_reader_reads_or_refuses_any_input(data):
    check_article(data, ".md", seconds=20)


@BOUNDED
@given(jats_inputs())
def test_jats_reader_reads_or_refuses_any_input(data):
    check_article(data, ".nxml", seconds=20)
