"""Threshold: d20 + attribute modifier against a success threshold (`threshold.txt`).

Rulings (shared/rules/README.md, "Threshold"):

1. Success when d20 + attribute modifier ≥ threshold. A natural 20 is a critical success and a
   natural 1 a critical failure, whatever the total.
2. The GM gives an exact threshold or a difficulty tier. Tier defaults (a campaign setting):
   Very Easy 3, Easy 7, Moderate 12, Hard 17, Very Hard 20. The GM may keep the threshold hidden.
3. Attribute modifiers are stored per character; attribute names are a campaign setting
   (default STR, DEX, CON, INT, WIS, CHA). Character level is never added.
4. After a critical success the character's next test with the same attribute gets +2; after a
   critical failure −2. The pending modifier is stored, shown, used once, and the GM can clear it.

Pure code: storing the pending carry-over is the caller's job; this module only says, on every
outcome, which carry-over was used and which one the next test with that attribute gets.
"""

from __future__ import annotations

import enum
import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from bot.quoting import quote
from bot.rules.common import D20_FACES, ONE_IN_20, roll_d20, signed
from bot.rules.errors import RulesError

#: Attribute names when the campaign sets none (ruling 3).
DEFAULT_ATTRIBUTES: tuple[str, ...] = ("STR", "DEX", "CON", "INT", "WIS", "CHA")

#: The carry-over a critical leaves for the next test with the same attribute (ruling 4; the text's
#: "+2 bonus on their next similar action" / "-2 penalty on their next similar action").
CRITICAL_CARRY_OVER = 2

#: The carry-overs a test may use: none, or what one critical left (ruling 4).
ALLOWED_CARRY_OVERS: frozenset[int] = frozenset({-CRITICAL_CARRY_OVER, 0, CRITICAL_CARRY_OVER})

#: Bounds that keep a typo from becoming a threshold or modifier nobody meant.
MIN_THRESHOLD = 1
MAX_THRESHOLD = 100
MAX_ABS_MODIFIER = 100


class Difficulty(enum.Enum):
    """The difficulty tiers of the text's table (ruling 2), with their default thresholds."""

    VERY_EASY = "Very Easy"
    EASY = "Easy"
    MODERATE = "Moderate"
    HARD = "Hard"
    VERY_HARD = "Very Hard"

    @property
    def display(self) -> str:
        """The tier's name, e.g. "Very Hard"."""
        return self.value

    @property
    def default_threshold(self) -> int:
        """The default threshold of this tier (ruling 2): 3, 7, 12, 17 or 20."""
        return DEFAULT_TIERS[self]

    @classmethod
    def parse(cls, text: str) -> Difficulty:
        """Read "Very Hard", "very_hard" or "VERY-HARD"; a :class:`RulesError` otherwise."""
        key = " ".join(text.replace("_", " ").replace("-", " ").split()).casefold()
        for tier in cls:
            if key == tier.value.casefold():
                return tier
        names = ", ".join(t.value for t in cls)
        raise RulesError(f"Unknown difficulty {quote(text)}: use one of {names}.")


#: Tier defaults (ruling 2). Each sits inside the text's range: Very Easy 1–4, Easy 5–9,
#: Moderate 10–14, Hard 15–19, Very Hard 20 or more.
DEFAULT_TIERS: Mapping[Difficulty, int] = {
    Difficulty.VERY_EASY: 3,
    Difficulty.EASY: 7,
    Difficulty.MODERATE: 12,
    Difficulty.HARD: 17,
    Difficulty.VERY_HARD: 20,
}


def _validate_threshold(threshold: int) -> int:
    if isinstance(threshold, bool) or not isinstance(threshold, int):
        raise RulesError("A threshold must be a whole number.")
    if not MIN_THRESHOLD <= threshold <= MAX_THRESHOLD:
        raise RulesError(
            f"Threshold {threshold} is out of range: use {MIN_THRESHOLD} to {MAX_THRESHOLD}."
        )
    return threshold


def resolve_tiers(overrides: Mapping[Difficulty, int] | None = None) -> dict[Difficulty, int]:
    """The campaign's tier thresholds (ruling 2): the defaults with ``overrides`` applied.

    A campaign may override some tiers only; the rest keep their default. The tiers must stay in
    order (each at least the one below it), or a RulesError explains which pair is wrong.
    """
    tiers = dict(DEFAULT_TIERS)
    for tier, value in (overrides or {}).items():
        tiers[tier] = _validate_threshold(value)
    ordered = list(Difficulty)
    for lower, higher in itertools.pairwise(ordered):
        if tiers[lower] > tiers[higher]:
            raise RulesError(
                f"{higher.display} ({tiers[higher]}) must not be below "
                f"{lower.display} ({tiers[lower]})."
            )
    return tiers


def resolve_threshold(
    threshold: int | Difficulty, tiers: Mapping[Difficulty, int] | None = None
) -> int:
    """An exact threshold as given, or the campaign's threshold for a tier (ruling 2)."""
    if isinstance(threshold, Difficulty):
        return resolve_tiers(tiers)[threshold]
    return _validate_threshold(threshold)


class ThresholdResult(enum.Enum):
    """The four results of a test, in the text's words (ruling 1)."""

    CRITICAL_SUCCESS = "Critical Success"
    SUCCESS = "Success"
    FAILURE = "Failure"
    CRITICAL_FAILURE = "Critical Failure"

    @property
    def display(self) -> str:
        """E.g. "Critical Success"."""
        return self.value

    @property
    def succeeded(self) -> bool:
        """True for a success or a critical success."""
        return self in (ThresholdResult.SUCCESS, ThresholdResult.CRITICAL_SUCCESS)

    @property
    def carry_over_next(self) -> int:
        """What this result leaves for the next test with the same attribute (ruling 4)."""
        if self is ThresholdResult.CRITICAL_SUCCESS:
            return CRITICAL_CARRY_OVER
        if self is ThresholdResult.CRITICAL_FAILURE:
            return -CRITICAL_CARRY_OVER
        return 0


def _result(
    roll: int,
    total: int,
    threshold: int,
    crit_success_at: int | None = None,
    crit_failure_at: int | None = None,
) -> ThresholdResult:
    # Ruling 1: the natural die decides a critical whatever the total.
    if roll == 20:
        return ThresholdResult.CRITICAL_SUCCESS
    if roll == 1:
        return ThresholdResult.CRITICAL_FAILURE
    # "Some actions may also have thresholds for critical success or critical failure": a
    # total at or above the one, at or below the other, is a critical as well.
    if crit_success_at is not None and total >= crit_success_at:
        return ThresholdResult.CRITICAL_SUCCESS
    if crit_failure_at is not None and total <= crit_failure_at:
        return ThresholdResult.CRITICAL_FAILURE
    # "If the result meets or exceeds the success threshold, the action is a success."
    return ThresholdResult.SUCCESS if total >= threshold else ThresholdResult.FAILURE


def _validate_crit_thresholds(
    threshold: int, crit_success_at: int | None, crit_failure_at: int | None
) -> None:
    """An action's own critical thresholds: whole numbers, the failure one below the success
    one, and the success one not below the threshold (nor the failure one above it)."""
    for value, what in ((crit_success_at, "success"), (crit_failure_at, "failure")):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_THRESHOLD * 2
        ):
            raise RulesError(f"The critical {what} threshold must be a whole number near the dice.")
    if crit_success_at is not None and crit_success_at < threshold:
        raise RulesError(
            f"A critical success at {crit_success_at} would be below the threshold "
            f"({threshold}): give a total at or above it."
        )
    if crit_failure_at is not None and crit_failure_at >= threshold:
        raise RulesError(
            f"A critical failure at {crit_failure_at} would be a success against threshold "
            f"{threshold}: give a total below it."
        )


def _validate_inputs(modifier: int, carry_over: int) -> None:
    if isinstance(modifier, bool) or not isinstance(modifier, int):
        raise RulesError("An attribute modifier must be a whole number.")
    if abs(modifier) > MAX_ABS_MODIFIER:
        raise RulesError(f"Attribute modifier {signed(modifier)} is out of range.")
    if carry_over not in ALLOWED_CARRY_OVERS:
        raise RulesError(
            f"A carry-over from a critical is +{CRITICAL_CARRY_OVER}, "
            f"−{CRITICAL_CARRY_OVER} or nothing, not {signed(carry_over)}."
        )


@dataclass(frozen=True, slots=True)
class ThresholdOutcome:
    """One test (`threshold.txt` "Success and Failure", rulings 1–4).

    Carries everything a renderer needs: the natural die, the modifiers by name (the attribute,
    and the carry-over from a previous critical when one was used; never the level, ruling 3),
    the total, the threshold — which the renderer must hide from players when
    ``threshold_hidden`` is set (ruling 2) — the result, and the carry-over the character's next
    test with ``attribute`` gets (ruling 4).
    """

    attribute: str
    roll: int
    modifier: int
    carry_over_used: int
    threshold: int
    result: ThresholdResult
    threshold_hidden: bool = False
    difficulty: Difficulty | None = None
    #: This action's own critical thresholds, if the GM gave any (totals, inclusive).
    crit_success_at: int | None = None
    crit_failure_at: int | None = None
    #: The campaign's carry-over option (ruling 4, a GM setting, on by default).
    carry_over_rule: bool = True

    @property
    def dice(self) -> tuple[int, ...]:
        """Every die rolled: the one d20."""
        return (self.roll,)

    @property
    def kept(self) -> int:
        """The die that counts: the one d20."""
        return self.roll

    @property
    def modifiers(self) -> tuple[tuple[str, int], ...]:
        """Named modifiers, e.g. (("STR", 2), ("critical carry-over", -2))."""
        named: list[tuple[str, int]] = [(self.attribute, self.modifier)]
        if self.carry_over_used:
            named.append(("critical carry-over", self.carry_over_used))
        return tuple(named)

    @property
    def total(self) -> int:
        """d20 + attribute modifier + carry-over."""
        return self.roll + self.modifier + self.carry_over_used

    @property
    def succeeded(self) -> bool:
        """True for a success or a critical success."""
        return self.result.succeeded

    @property
    def carry_over_next(self) -> int:
        """+2 after a critical success, −2 after a critical failure, else 0 (ruling 4).

        It replaces whatever was pending: the carry-over is used once, by this test. Nothing
        when the campaign turned the option off.
        """
        return self.result.carry_over_next if self.carry_over_rule else 0


def roll_test(
    modifier: int,
    threshold: int | Difficulty,
    rng: random.Random,
    *,
    attribute: str,
    carry_over: int = 0,
    threshold_hidden: bool = False,
    tiers: Mapping[Difficulty, int] | None = None,
    crit_success_at: int | None = None,
    crit_failure_at: int | None = None,
    carry_over_rule: bool = True,
) -> ThresholdOutcome:
    """Roll a test (rulings 1–4): d20 + ``modifier`` (+ ``carry_over``) against ``threshold``.

    ``threshold`` is an exact number or a :class:`Difficulty` tier, resolved with the campaign's
    ``tiers`` (ruling 2). A natural 20 is a critical success and a natural 1 a critical failure
    whatever the total (ruling 1). ``carry_over`` is the pending +2 / −2 a previous critical left
    for this attribute (ruling 4); the caller stores the outcome's ``carry_over_next`` in its
    place. Character level is never added (ruling 3).
    """
    _validate_inputs(modifier, carry_over)
    target = resolve_threshold(threshold, tiers)
    _validate_crit_thresholds(target, crit_success_at, crit_failure_at)
    roll = roll_d20(rng)
    total = roll + modifier + carry_over
    return ThresholdOutcome(
        attribute=attribute,
        roll=roll,
        modifier=modifier,
        carry_over_used=carry_over,
        threshold=target,
        result=_result(roll, total, target, crit_success_at, crit_failure_at),
        threshold_hidden=threshold_hidden,
        difficulty=threshold if isinstance(threshold, Difficulty) else None,
        crit_success_at=crit_success_at,
        crit_failure_at=crit_failure_at,
        carry_over_rule=carry_over_rule,
    )


def odds_of_test(
    modifier: int,
    threshold: int | Difficulty,
    carry_over: int = 0,
    *,
    tiers: Mapping[Difficulty, int] | None = None,
    crit_success_at: int | None = None,
    crit_failure_at: int | None = None,
) -> dict[ThresholdResult, Fraction]:
    """Exact odds of every result of a test (rulings 1–4); every result present, summing to 1."""
    _validate_inputs(modifier, carry_over)
    target = resolve_threshold(threshold, tiers)
    _validate_crit_thresholds(target, crit_success_at, crit_failure_at)
    odds = {result: Fraction(0) for result in ThresholdResult}
    for roll in D20_FACES:
        total = roll + modifier + carry_over
        odds[_result(roll, total, target, crit_success_at, crit_failure_at)] += ONE_IN_20
    return odds
