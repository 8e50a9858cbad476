"""Working together and group checks (rulings 8 and 9)."""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

from bot.rules.common import (
    check_total,
)
from bot.rules.d20_check._d20 import target as _target
from bot.rules.d20_check.checks import (
    CheckInput,
    CheckOutcome,
    check_odds,
    roll_check,
)
from bot.rules.errors import RulesError

# ---------------------------------------------------------------------------- working together


@dataclass(frozen=True, slots=True)
class WorkingTogetherOutcome:
    """The leader's check with help (ruling 8), and which helpers counted."""

    leader: CheckOutcome
    helpers: tuple[str, ...]
    turned_away: tuple[str, ...]


def helped_input(leader: CheckInput, helpers: Mapping[str, bool]) -> CheckInput:
    """The leader's check with the help's advantage added, if anyone can help (ruling 8).

    ``helpers`` maps each would-be helper to whether they could attempt the task alone; only
    those count ("A character can only provide help if the task is one that he or she could
    attempt alone"). Help is one more source of advantage, so a leader with disadvantage rolls
    a straight d20 (ruling 3).
    """
    if not any(helpers.values()):
        return leader
    return replace(leader, advantage=int(leader.advantage) + 1)


def working_together(
    leader: CheckInput,
    helpers: Mapping[str, bool],
    rng: random.Random,
    *,
    dc: int | None = None,
) -> WorkingTogetherOutcome:
    """Working together (ruling 8): the leader rolls with advantage from their helpers.

    See :func:`helped_input` for who counts as a helper.
    """
    outcome = roll_check(helped_input(leader, helpers), rng, dc)
    return WorkingTogetherOutcome(
        leader=outcome,
        helpers=tuple(name for name, able in helpers.items() if able),
        turned_away=tuple(name for name, able in helpers.items() if not able),
    )


# -------------------------------------------------------------------------------- group checks


class GroupResult(enum.Enum):
    """A group check's result (ruling 9)."""

    SUCCESS = "Group Success"
    FAILURE = "Group Failure"

    @property
    def display(self) -> str:
        """Either "Group Success" or "Group Failure"."""
        return self.value


def _group_succeeds(successes: int, members: int) -> bool:
    # Ruling 9: "at least half": exactly half counts (2 of 4, 0 of 0 never happens).
    return 2 * successes >= members


@dataclass(frozen=True, slots=True)
class GroupCheckOutcome:
    """A group check (ruling 9): everyone's check, and the group's result."""

    members: tuple[tuple[str, CheckOutcome], ...]
    dc: int

    @property
    def successes(self) -> int:
        """How many members succeeded."""
        return sum(1 for _, outcome in self.members if outcome.succeeded)

    @property
    def needed(self) -> int:
        """Successes the group needs: half the group, rounded up."""
        return (len(self.members) + 1) // 2

    @property
    def succeeded(self) -> bool:
        """True when at least half the members succeeded."""
        return _group_succeeds(self.successes, len(self.members))

    @property
    def result(self) -> GroupResult:
        """Group Success or Group Failure."""
        return GroupResult.SUCCESS if self.succeeded else GroupResult.FAILURE


def group_check(
    members: Mapping[str, CheckInput], rng: random.Random, dc: int
) -> GroupCheckOutcome:
    """Roll a group check (ruling 9): everyone rolls, in the order given, against ``dc``.

    The group succeeds when at least half its members succeed; exactly half is a success.
    """
    _target(dc, "DC")
    if not members:
        raise RulesError("A group check needs at least one character.")
    rolled = tuple(
        (name, roll_check(replace(check, name=check.name or name), rng, dc))
        for name, check in members.items()
    )
    return GroupCheckOutcome(members=rolled, dc=dc)


def group_check_odds(members: Mapping[str, CheckInput], dc: int) -> Fraction:
    """Exact P(group success) (ruling 9), by dynamic programming over the number of successes."""
    _target(dc, "DC")
    if not members:
        raise RulesError("A group check needs at least one character.")
    successes: dict[int, Fraction] = {0: Fraction(1)}
    for check in members.values():
        p = check_odds(check, dc)
        step: dict[int, Fraction] = {}
        for count, q in successes.items():
            step[count + 1] = step.get(count + 1, Fraction(0)) + q * p
            step[count] = step.get(count, Fraction(0)) + q * (1 - p)
        successes = step
    check_total(successes)
    return sum(
        (q for count, q in successes.items() if _group_succeeds(count, len(members))),
        Fraction(0),
    )
