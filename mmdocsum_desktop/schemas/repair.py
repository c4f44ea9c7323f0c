"""One Repair for summaries and answers: a change made to what the model wrote, recorded with its
reason so that nothing is rewritten silently.

Summaries wrote ``reason``; answers wrote ``detail`` for the same thing. Both load (``detail`` is read
as ``reason``); what is written is ``reason``.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field

from mmdocsum_desktop.schemas.record import Record


class Repair(Record):
    """What was changed and why. Summaries also say which paragraph (1-based) and what replaced it;
    a figure repair gives the figure the model proposed and the one chosen (1-based, document order)."""

    # answers: "unsupported-sentence-dropped", "citation-added"…; summaries: "rule break", "missing paragraph"…
    kind: str = "repair"
    reason: str = Field(default="", validation_alias=AliasChoices("reason", "detail"))
    paragraph: int | None = None
    text: str | None = None  # the model's sentence (or answer) that was changed
    by: str | None = None  # what was done instead ("global placement assignment", "support check")
    proposed: int | None = None
    chosen: int | None = None
    evidence: int | None = None  # the number of the evidence sentence put in the dropped sentence's place
    replacement: str | None = None  # that sentence's text

    def line(self) -> str:
        """The repair as one line a person reads: "paragraph 2: rule break (image 7 does not exist)"."""
        where = f"paragraph {self.paragraph}: " if self.paragraph else ""
        return f"{where}{self.kind} ({self.reason})"


__all__ = ["Repair"]
