"""Pieces every rule system shares: the d20, advantage, and exact distributions."""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

#: Every face of a d20, each with probability 1/20.
D20_FACES: tuple[int, ...] = tuple(range(1, 21))
ONE_IN_20 = Fraction(1, 20)


def signed(value: int) -> str:
    """+2 / −1 / +0 for messages: the minus sign is U+2212, as everywhere the bot writes one."""
    return f"+{value}" if value >= 0 else f"−{-value}"


def roll_d20(rng: random.Random) -> int:
    """Roll one d20 with the injected random source."""
    return rng.randint(1, 20)


class Advantage(enum.Enum):
    """Whether a d20 roll has advantage, disadvantage, or neither."""

    NONE = "none"
    ADVANTAGE = "advantage"
    DISADVANTAGE = "disadvantage"

    @classmethod
    def resolve(cls, advantage: int | bool = 0, disadvantage: int | bool = 0) -> Advantage:
        """Combine any number of sources of advantage and disadvantage.

        Pen & Dagger ruling 2 and d20-check ruling 3: both present cancel out, whatever the
        counts; several sources of one kind still give only one extra d20.
        """
        adv, dis = int(advantage) > 0, int(disadvantage) > 0
        if adv and not dis:
            return cls.ADVANTAGE
        if dis and not adv:
            return cls.DISADVANTAGE
        return cls.NONE

    @property
    def dice(self) -> int:
        """How many d20 are rolled."""
        return 1 if self is Advantage.NONE else 2


def distribution(
    outcomes: Iterable[tuple[K, Fraction]],
) -> dict[K, Fraction]:
    """Sum probabilities per outcome key."""
    result: dict[K, Fraction] = {}
    for key, p in outcomes:
        result[key] = result.get(key, Fraction(0)) + p
    return result


def d20_pairs() -> Iterable[tuple[int, int, Fraction]]:
    """Every ordered pair of two d20 faces with its probability (1/400)."""
    p = Fraction(1, 400)
    for a in D20_FACES:
        for b in D20_FACES:
            yield a, b, p


def kept_die_distribution(
    advantage: Advantage, better: Callable[[int, int], int] | None = None
) -> dict[int, Fraction]:
    """Exact distribution of the kept d20 face.

    ``better(a, b)`` returns the face advantage keeps; by default the higher face. For
    disadvantage the other face is kept.
    """
    if advantage is Advantage.NONE:
        return {face: ONE_IN_20 for face in D20_FACES}
    pick = better or max

    def keep(a: int, b: int) -> int:
        chosen = pick(a, b)
        if advantage is Advantage.ADVANTAGE:
            return chosen
        return b if chosen == a else a

    return distribution((keep(a, b), p) for a, b, p in d20_pairs())


def check_total(dist: Mapping[K, Fraction]) -> None:
    """Assert a distribution sums to exactly one (a programming error otherwise)."""
    total = sum(dist.values(), Fraction(0))
    if total != 1:
        raise AssertionError(f"distribution sums to {total}, not 1")
