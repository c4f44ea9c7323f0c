""""Copy with citation": a paper cited author-year with its DOI, ``Smith et al., 2020, doi:10.1234/x``.

Family names as the library keeps them ("De Bock" whole, :meth:`Paper.first_family_name`): one author
"Smith", two "Smith and Jones", three or more "Smith et al."; no authors: the title (shortened to its
first words); no year: "n.d."; the page and the figure or table where given; the DOI without a resolver
prefix. The window and ``mmdocsum library cite`` both use :func:`cite` and :func:`quote`
(through ``app.library``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mmdocsum_desktop.schemas.library import Paper

_DOI_PREFIX = re.compile(r"^\s*(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_TITLE_WORDS = 8


def family_names(paper: Paper) -> list[str]:
    """Every author's family name: the source's where it gave one, else the last word of the name."""
    names: list[str] = []
    for index, author in enumerate(paper.authors):
        given = paper.family_names[index].strip() if index < len(paper.family_names) else ""
        words = author.split()
        family = given or (words[-1] if words else "")
        if family:
            names.append(family)
    return names


def authors_part(families: Sequence[str]) -> str:
    if not families:
        return ""
    if len(families) == 1:
        return families[0]
    if len(families) == 2:
        return f"{families[0]} and {families[1]}"
    return f"{families[0]} et al."


def clean_doi(doi: str | None) -> str:
    return _DOI_PREFIX.sub("", doi or "").strip()


def _short_title(title: str) -> str:
    words = title.split()
    return " ".join(words) if len(words) <= _TITLE_WORDS else " ".join(words[:_TITLE_WORDS]).rstrip(",;:.") + "…"


def cite(paper: Paper, *, page: int | None = None, visual: str | None = None) -> str:
    """"Smith et al., 2020, p. 3, Figure 2, doi:10.1234/x" (each part left out when unknown; "n.d." for
    a paper without a year; the title stands in for authors the paper does not name)."""
    who = authors_part(family_names(paper)) or _short_title(paper.display_title())
    parts = [who, str(paper.year) if paper.year else "n.d."]
    if page:
        parts.append(f"p. {page}")
    if visual:
        parts.append(visual)
    doi = clean_doi(paper.doi)
    if doi:
        parts.append(f"doi:{doi}")
    return ", ".join(p for p in parts if p)


def quote(text: str, paper: Paper, *, page: int | None = None, visual: str | None = None) -> str:
    """The copied text in quotation marks, then its citation in parentheses:
    “…” (Smith et al., 2020, p. 3, doi:10.1234/x)."""
    return f"“{' '.join(text.split())}” ({cite(paper, page=page, visual=visual)})"
