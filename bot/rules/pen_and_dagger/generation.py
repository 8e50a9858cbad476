"""Group ability-score generation (Chapter I, "Generating Ability Scores"; ruling 8).

Every score is 4d6 drop the lowest; the Ability Score Generation table only decides who rolls
which of the 24 dice. With an odd number of players the GM rolls as one more player, so the
number of rollers is always even. Turn order is the players as given, then the GM.

* 1 or 2 players → 2 rollers: each rolls 2 of the 4 dice of every score (12 dice each).
* 3 or 4 players → 4 rollers: each rolls 1 die of every score (6 dice each).
* 5 or 6 players → 6 rollers: the n-th roller rolls all 4 dice of the n-th score.
* 7 or more players → 8, 10, 12, … rollers, split into two equal halves: the first half of the
  turn order generates scores 1-3, the rest (with the GM, if rolling) scores 4-6. Each half's
  12 dice, listed score by score, are dealt round-robin in turn order: in a half of m members
  the i-th member (from 0) rolls dice i, i+m, i+2m, … So 12 mod m members roll one die more
  than the others. Halves of 4 (7-8 players): 3 dice each. Of 5 (9-10 players): the first two
  roll 3, the other three 2. Of 6: 2 each. Of 7: five roll 2, two roll 1. Of 12 (23-24
  players): 1 each. A half of more than 12 (25+ players) leaves its last members with no die.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Sequence
from dataclasses import dataclass

from bot.rules.errors import RulesError

__all__ = [
    "DICE_PER_SCORE",
    "SCORES",
    "GeneratedScore",
    "GenerationScheme",
    "GroupGeneration",
    "ScoreDie",
    "generate_group_scores",
    "group_rollers",
    "plan_group_dice",
]

SCORES = 6
DICE_PER_SCORE = 4
_HALF_SCORES = SCORES // 2


class GenerationScheme(enum.Enum):
    """Which row of the Ability Score Generation table applies (ruling 8)."""

    TWO_DICE_EACH = "each roller rolls 2d6 of every score"
    ONE_DIE_EACH = "each roller rolls 1d6 of every score"
    ONE_SCORE_EACH = "each roller rolls the 4d6 of one score"
    TWO_GROUPS = "two groups, each generating three scores"

    @classmethod
    def for_rollers(cls, rollers: int) -> GenerationScheme:
        """The table row for an (even) number of rollers: 2, 4, 6, or 8 and more."""
        if rollers <= 2:
            return cls.TWO_DICE_EACH
        if rollers <= 4:
            return cls.ONE_DIE_EACH
        if rollers <= 6:
            return cls.ONE_SCORE_EACH
        return cls.TWO_GROUPS


@dataclass(frozen=True, slots=True)
class ScoreDie:
    """One d6 of a generated score and who rolled it; ``dropped`` marks the lowest (ruling 8)."""

    value: int
    roller: str
    dropped: bool = False


@dataclass(frozen=True, slots=True)
class GeneratedScore:
    """One group score: four d6, the lowest dropped, in the order rolled (ruling 8)."""

    dice: tuple[ScoreDie, ...]

    @property
    def total(self) -> int:
        """The sum of the three kept dice."""
        return sum(die.value for die in self.dice if not die.dropped)

    @property
    def dropped(self) -> ScoreDie:
        """The dropped lowest die."""
        return next(die for die in self.dice if die.dropped)


@dataclass(frozen=True, slots=True)
class GroupGeneration:
    """The group's six scores with every die attributed to its roller (ruling 8).

    ``rollers`` is the turn order: the players as given, then the GM if the number of players
    is odd. ``groups`` is the two halves for seven or more players, else all the rollers.
    """

    players: tuple[str, ...]
    gm: str
    rollers: tuple[str, ...]
    scheme: GenerationScheme
    groups: tuple[tuple[str, ...], ...]
    scores: tuple[GeneratedScore, ...]

    @property
    def gm_rolls(self) -> bool:
        """The GM rolled as one more player (odd number of players)."""
        return len(self.rollers) > len(self.players)

    @property
    def values(self) -> tuple[int, ...]:
        """The six scores, in the order generated."""
        return tuple(score.total for score in self.scores)

    def dice_by_roller(self) -> dict[str, tuple[ScoreDie, ...]]:
        """Every roller (turn order) with the dice they rolled, possibly none."""
        result: dict[str, list[ScoreDie]] = {roller: [] for roller in self.rollers}
        for score in self.scores:
            for die in score.dice:
                result[die.roller].append(die)
        return {roller: tuple(dice) for roller, dice in result.items()}


def group_rollers(players: Sequence[str], *, gm: str = "GM") -> tuple[str, ...]:
    """The turn order of rollers: the players, then the GM if their number is odd (ruling 8).

    Refuses an empty group, blank or repeated names, and a GM name equal to a player's when
    the GM has to roll.
    """
    names = tuple(players)
    if not names:
        raise RulesError("Generating ability scores needs at least one player.")
    if any(not name.strip() for name in names):
        raise RulesError("Every player needs a name.")
    if len(set(names)) != len(names):
        raise RulesError("Each player can join the roll only once.")
    if len(names) % 2 == 0:
        return names
    if not gm.strip() or gm in names:
        raise RulesError(
            "With an odd number of players the GM rolls too, under a name of their own."
        )
    return (*names, gm)


def _halves(rollers: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    half = len(rollers) // 2
    return rollers[:half], rollers[half:]


def plan_group_dice(rollers: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Who rolls each die: six scores × four roller names, for an even number of rollers.

    See the module docstring's table (ruling 8).
    """
    order = tuple(rollers)
    count = len(order)
    if count < 2 or count % 2:
        raise ValueError(f"the number of rollers must be even and at least 2, not {count}")
    scheme = GenerationScheme.for_rollers(count)
    if scheme is GenerationScheme.TWO_DICE_EACH:
        plan = [tuple(name for name in order for _ in range(2))] * SCORES
    elif scheme is GenerationScheme.ONE_DIE_EACH:
        plan = [order] * SCORES
    elif scheme is GenerationScheme.ONE_SCORE_EACH:
        plan = [(name,) * DICE_PER_SCORE for name in order]
    else:
        plan = []
        for half in _halves(order):
            dealt = [half[k % len(half)] for k in range(_HALF_SCORES * DICE_PER_SCORE)]
            plan.extend(
                tuple(dealt[DICE_PER_SCORE * s : DICE_PER_SCORE * (s + 1)])
                for s in range(_HALF_SCORES)
            )
    return tuple(plan)


def _mark_lowest(values: Sequence[int], rollers: Sequence[str]) -> GeneratedScore:
    lowest = values.index(min(values))  # the first of equal lowest dice is the dropped one
    return GeneratedScore(
        tuple(
            ScoreDie(value=value, roller=roller, dropped=i == lowest)
            for i, (value, roller) in enumerate(zip(values, rollers, strict=True))
        )
    )


def generate_group_scores(
    players: Sequence[str], rng: random.Random, *, gm: str = "GM"
) -> GroupGeneration:
    """Roll the group's six ability scores, 4d6 drop the lowest each (ruling 8).

    Works for any number of players ≥ 1; see the module docstring for who rolls which dice.
    Dice are rolled score by score in the planned order, and each is attributed to its roller
    (the GM under ``gm``).
    """
    rollers = group_rollers(players, gm=gm)
    plan = plan_group_dice(rollers)
    scores = tuple(_mark_lowest([rng.randint(1, 6) for _ in who], who) for who in plan)
    scheme = GenerationScheme.for_rollers(len(rollers))
    groups = _halves(rollers) if scheme is GenerationScheme.TWO_GROUPS else (rollers,)
    return GroupGeneration(
        players=tuple(players),
        gm=gm,
        rollers=rollers,
        scheme=scheme,
        groups=groups,
        scores=scores,
    )
