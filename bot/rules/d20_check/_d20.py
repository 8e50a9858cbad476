"""What the d20 check modules share: the bounds that keep a typo from becoming a bonus, DC or
AC nobody meant, the checks of a number against them, and rolling the kept d20 (ruling 3)."""

from __future__ import annotations

import random

from bot.rules.common import Advantage, roll_d20, signed
from bot.rules.errors import RulesError

#: Bounds that keep a typo from becoming a bonus, DC or AC nobody meant.
MAX_ABS_BONUS = 100
MIN_TARGET = 1
MAX_TARGET = 100


def whole(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{what} must be a whole number.")
    return value


def in_range(value: int, low: int, high: int, what: str) -> int:
    whole(value, what)
    if not low <= value <= high:
        raise RulesError(f"{what} {value} is out of range: use {low} to {high}.")
    return value


def bonus(value: int, what: str = "A bonus") -> int:
    whole(value, what)
    if abs(value) > MAX_ABS_BONUS:
        raise RulesError(f"{what} of {signed(value)} is out of range.")
    return value


def target(value: int | None, what: str) -> int | None:
    return None if value is None else in_range(value, MIN_TARGET, MAX_TARGET, what)


def counts(value: int | bool, what: str) -> int | bool:
    if isinstance(value, bool):
        return value
    whole(value, what)
    if value < 0:
        raise RulesError(f"{what} cannot be negative.")
    return value


def roll_kept(rng: random.Random, advantage: Advantage) -> tuple[tuple[int, ...], int]:
    """Roll one d20, or two with advantage / disadvantage, never more (ruling 3)."""
    dice = tuple(roll_d20(rng) for _ in range(advantage.dice))
    if advantage is Advantage.ADVANTAGE:
        return dice, max(dice)
    return dice, min(dice)  # one die: itself; disadvantage: the lower


def reroll_kept(
    dice: tuple[int, ...], advantage: Advantage, which: int, rng: random.Random
) -> tuple[tuple[int, ...], int]:
    """Reroll die ``which`` (0 first, 1 second) of an advantage / disadvantage roll and keep
    again (the text: "When you have Advantage or Disadvantage and something in the game lets
    you reroll the d20, you can reroll only one of the dice. You choose which one")."""
    if len(dice) != 2 or advantage is Advantage.NONE:
        raise RulesError(
            "Only a roll made with advantage or disadvantage (two d20s) has a die to choose."
        )
    if which not in (0, 1):
        raise RulesError("Choose the first or the second die.")
    new = list(dice)
    new[which] = roll_d20(rng)
    kept = max(new) if advantage is Advantage.ADVANTAGE else min(new)
    return tuple(new), kept
