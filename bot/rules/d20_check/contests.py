"""Contests (ruling 4): both roll their checks; the higher total wins, a tie changes nothing."""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from fractions import Fraction

from bot.rules.d20_check.checks import (
    CheckInput,
    CheckOutcome,
    roll_check,
    total_distribution,
)

# ------------------------------------------------------------------------------------ contests


class ContestResult(enum.Enum):
    """Who won a contest (ruling 4); a tie changes nothing."""

    FIRST_WINS = "first wins"
    SECOND_WINS = "second wins"
    TIE = "tie: nothing changes"

    @property
    def display(self) -> str:
        """E.g. "tie: nothing changes"."""
        return self.value


@dataclass(frozen=True, slots=True)
class D20ContestOutcome:
    """A contest ("Contests", ruling 4): both checks and who won."""

    first: CheckOutcome
    second: CheckOutcome
    result: ContestResult

    @property
    def winner(self) -> CheckOutcome | None:
        """The winning side's check, or None on a tie (the situation stays as it was)."""
        if self.result is ContestResult.FIRST_WINS:
            return self.first
        if self.result is ContestResult.SECOND_WINS:
            return self.second
        return None

    @property
    def result_text(self) -> str:
        """The result in words: "<name> wins" or "Tie: nothing changes"."""
        winner = self.winner
        if winner is None:
            return "Tie: nothing changes"
        fallback = "First" if winner is self.first else "Second"
        return f"{winner.name or fallback} wins"


def contest(a: CheckInput, b: CheckInput, rng: random.Random) -> D20ContestOutcome:
    """Run a contest (ruling 4): both roll their checks, ``a`` first; the higher total wins.

    A tie leaves the situation unchanged: the result says so, and nobody wins.
    """
    first = roll_check(a, rng)
    second = roll_check(b, rng)
    if first.total > second.total:
        result = ContestResult.FIRST_WINS
    elif second.total > first.total:
        result = ContestResult.SECOND_WINS
    else:
        result = ContestResult.TIE
    return D20ContestOutcome(first=first, second=second, result=result)


def contest_odds(a: CheckInput, b: CheckInput) -> tuple[Fraction, Fraction, Fraction]:
    """Exact P(a wins), P(b wins), P(tie) of a contest (ruling 4); they sum to 1."""
    dist_a, dist_b = total_distribution(a), total_distribution(b)
    win_a = win_b = tie = Fraction(0)
    for ta, pa in dist_a.items():
        for tb, pb in dist_b.items():
            if ta > tb:
                win_a += pa * pb
            elif tb > ta:
                win_b += pa * pb
            else:
                tie += pa * pb
    return win_a, win_b, tie
