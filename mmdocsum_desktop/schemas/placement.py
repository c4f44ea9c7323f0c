"""The schema of placement: the images it chooses from and one decision per paragraph."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from mmdocsum_desktop.errors import MmdocsumError


class PlacementError(MmdocsumError):
    """Placement input the user can fix (an unreadable paragraphs file, a bad captions sidecar...)."""


class ImageCandidate(BaseModel):
    """One image of the pool, with the text that describes it.

    ``figure`` is what a user sees: the label ("Figure 3"), the 1-based index of an unlabelled figure of a
    document, or None for images of a folder. ``context`` holds the sentences of the document that cite
    this figure. ``ocr_text`` is filled lazily by the engine (None: not read yet; "" read, nothing found).
    """

    image: str | None = None
    label: str | None = None
    figure: str | int | None = None
    kind: Literal["figure", "table"] = "figure"
    caption: str = ""
    context: list[str] = Field(default_factory=list)
    ocr_text: str | None = None
    order: int = 0
    source_id: str | None = None

    def display_name(self) -> str:
        if self.label:
            return self.label
        if self.figure is not None:
            return f"{self.kind} {self.figure}"
        return Path(self.image).name if self.image else "(no image)"


class PlacementWhy(BaseModel):
    """Why a candidate was (or was not) placed after a paragraph, for the authoring view to show.

    ``caption_match``: similarity of the caption with the paragraph (best sentence); ``cross_encoder``:
    the cross-encoder's relevance (0..1) when it rescored the pair; ``matched_sentences``: the paragraph's
    sentences closest to the caption; ``ocr_words``: words read in the image that the paragraph uses too;
    ``mention``: the label the paragraph cites when it cites this figure; ``figure_rank``: the figure's
    place in the sequence (1 = first); ``paragraph_position``: 0 (first paragraph) … 1 (last);
    ``caption_words``: the caption's words the paragraph uses too, rarest in the paper first, and
    ``paragraph_words`` the same words as the paragraph writes them; ``position_prior``: the logit the
    fitted model gives the pair for where the paragraph sits alone (its place against the figure's rank,
    its section, its length), positive = a likely place for this figure whatever the words.
    """

    candidate: int
    caption_match: float | None = None
    cross_encoder: float | None = None
    matched_sentences: list[str] = Field(default_factory=list)
    ocr_words: list[str] = Field(default_factory=list)
    caption_words: list[str] = Field(default_factory=list)
    paragraph_words: list[str] = Field(default_factory=list)
    position_prior: float | None = None
    mention: str | None = None
    figure_rank: int | None = None
    paragraph_position: float | None = None
    threshold: float | None = None
    decision: str = ""

    def tooltip(self) -> str:
        """A few plain lines for a tooltip."""
        lines = [self.decision.capitalize()] if self.decision else []
        if self.mention:
            lines.append(f"The paragraph cites {self.mention}.")
        if self.caption_match is not None:
            lines.append(f"Caption match {self.caption_match:.2f}")
        if self.cross_encoder is not None:
            lines.append(f"Cross-encoder relevance {self.cross_encoder:.2f}")
        for sentence in self.matched_sentences:
            lines.append(f"“{sentence[:160]}”")
        if self.paragraph_words or self.caption_words:
            lines.append("Words shared with the caption: " + ", ".join(self.paragraph_words or self.caption_words))
        if self.ocr_words:
            lines.append("Words in the image: " + ", ".join(self.ocr_words))
        if self.position_prior is not None:
            lines.append(f"Position prior {self.position_prior:+.2f} (where the paragraph sits, before its words)")
        if self.figure_rank is not None and self.paragraph_position is not None:
            lines.append(f"Figure {self.figure_rank} of the sequence; paragraph at {self.paragraph_position:.0%} of the text")
        return "\n".join(lines)


class Placement(BaseModel):
    """What goes after one paragraph: an image of the pool, or none.

    ``score`` is the calibrated probability that ``candidate`` belongs after this paragraph; for "none"
    it is that of the best candidate considered (below the threshold, or given to another paragraph).
    ``signals`` holds the component scores of that candidate, for the GUI to show why.
    """

    paragraph: int
    paragraph_text: str
    image: str | None = None
    figure: str | int | None = None
    candidate: int | None = None
    score: float = 0.0
    signals: dict[str, float] = Field(default_factory=dict)
    why: PlacementWhy | None = None

    def summary(self) -> dict[str, Any]:
        """The four fields of ``placement.json``."""
        figure = self.figure if self.figure is None or isinstance(self.figure, str) else f"image {self.figure}"
        return {"paragraph": self.paragraph, "image": self.image, "figure": figure, "score": round(self.score, 4)}
