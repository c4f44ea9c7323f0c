"""What an unfit model may do as a judge: nothing, unless the user insists.

A model labelled unfit to judge (``models.fitness``: measured, or under about a billion parameters) gives
scores that do not separate a good summary from a damaged one (SmolLM2-135M: 1 of 29 damaged summaries
scored lower than the original) and explanations such as "The paragraph talks about the paragraph", after
minutes of work. Its scores would be read as a verdict, so such a judge does not start unless the user
insists (the window's "Judge anyway", the command line's ``--allow-unfit-judge``), and the refusal says
why. A weak model (1–7 B) runs, with its warning; a server's model (size unknown here) runs.
"""

from __future__ import annotations

from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.models.fitness import Fitness

INSIST_FLAG = "--allow-unfit-judge"


class UnfitJudgeError(MmdocsumError):
    """The judge's model is labelled unfit to judge and the user did not insist."""

    def __init__(self, fitness: Fitness, *, how_to_insist: str = f"add {INSIST_FLAG} to run it anyway") -> None:
        self.fitness = fitness
        super().__init__(f"{refusal_text(fitness)} ({how_to_insist})")


def refusal_text(fitness: Fitness) -> str:
    """Why the judge does not run: the model's verdict and what its scores would be worth."""
    return f"{fitness.sentence()} A judge this unreliable does not run unless you insist"


def refuses(fitness: Fitness | None) -> bool:
    """Whether a judge of this fitness runs only when the user insists (an unfit verdict)."""
    return fitness is not None and fitness.verdict == "unfit"


def check_judge(fitness: Fitness | None, *, insist: bool) -> None:
    """Raise :class:`UnfitJudgeError` when the judge is unfit and the user did not insist."""
    if refuses(fitness) and not insist:
        assert fitness is not None
        raise UnfitJudgeError(fitness)
