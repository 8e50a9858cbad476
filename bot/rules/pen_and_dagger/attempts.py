"""Attempts, luck rolls, exact odds and the fortune-die reroll (Chapter I; rulings 2-6).

Ruling 4 fixes the order of an attempt: adjusted rank → kept die → table level → reliability
shift. Every function that rolls takes the random source; nothing here keeps state.
"""

from __future__ import annotations

import dataclasses
import enum
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar, overload

from bot.rules.common import Advantage, check_total, kept_die_distribution, roll_d20
from bot.rules.errors import RulesError
from bot.rules.pen_and_dagger.table import Rank, SuccessLevel, table_level
from bot.words import FORTUNE_MAX, FortunePurpose

__all__ = [
    "LUCKY_ON",
    "MAX_REROLLS",
    "AttemptOutcome",
    "LuckOutcome",
    "RankAdjustment",
    "Reliability",
    "RerollOutcome",
    "attempt",
    "attempt_odds",
    "best_reachable_level",
    "can_reroll",
    "check_fortune",
    "final_level",
    "luck_odds",
    "luck_roll",
    "reroll",
]

#: "If the result is 10 or higher, you're lucky." ("Luck Rolls")
LUCKY_ON = 10
#: Defensive bound on the reroll loop. A reroll that is not refused improves with probability
#: at least 1/400 per try (disadvantage needing two natural 20s), so 100,000 tries fail to
#: improve with probability (399/400)^100000 ≈ e^-250: reaching it means a broken random source.
MAX_REROLLS = 100_000

#: One rank adjustment, or several to be summed (ruling 3).
RankAdjustment = int | Sequence[int]


class Reliability(enum.Enum):
    """Reliability state of an attempt ("Reliability", "Unreliability"; ruling 4)."""

    NONE = "none"
    RELIABLE = "reliable"
    UNRELIABLE = "unreliable"

    @classmethod
    def resolve(cls, reliable: bool, unreliable: bool) -> Reliability:
        """Ruling 4: reliability and unreliability together cancel."""
        if reliable and not unreliable:
            return cls.RELIABLE
        if unreliable and not reliable:
            return cls.UNRELIABLE
        return cls.NONE


def check_fortune(current: int, maximum: int) -> None:
    """Refuse a fortune count outside 0..maximum, or a negative maximum (ruling 6).

    The services change the count atomically in SQL (ruling 6: "under any concurrency"); a
    roll only reads it, to offer the natural-20 trade (ruling 5), and refuses a count that
    cannot be.
    """
    if maximum < 0:
        raise RulesError(f"A fortune-dice maximum cannot be negative (got {maximum}).")
    if not 0 <= current <= maximum:
        raise RulesError(f"A hero holds between 0 and {maximum} fortune dice, not {current}.")


def _adjustments(rank_adjustment: RankAdjustment) -> tuple[int, ...]:
    if isinstance(rank_adjustment, int):
        return (rank_adjustment,)
    return tuple(int(step) for step in rank_adjustment)


def final_level(rank: Rank, face: int, reliability: Reliability) -> SuccessLevel:
    """The level of a kept ``face`` at an (already adjusted) ``rank`` (ruling 4).

    Table level first, then the reliability shift: "Unless you roll a 1, a reliable attempt
    has its result increased one success level"; "Except on a roll of 20, an unreliable attempt
    has its outcome decreased one success level". Never past Critical Success / Failure.
    """
    level = table_level(rank, face)
    if reliability is Reliability.RELIABLE and face != 1:
        return level.shifted(+1)
    if reliability is Reliability.UNRELIABLE and face != 20:
        return level.shifted(-1)
    return level


def _keep(dice: Sequence[int], advantage: Advantage) -> int:
    """Ruling 2: keep the die with the better (advantage) / worse (disadvantage) level.

    At one rank the level never drops as the face rises, before or after the reliability shift,
    so the higher face is kept with advantage and the lower with disadvantage. When two faces
    give the same level this still decides which face counts as kept (it matters for a natural
    20's trade and for reliability's natural-1 / natural-20 exceptions): the more favourable
    face with advantage, the less favourable with disadvantage, as the text says.
    """
    if advantage is Advantage.ADVANTAGE:
        return max(dice)
    if advantage is Advantage.DISADVANTAGE:
        return min(dice)
    return dice[0]


@dataclass(frozen=True, slots=True)
class AttemptOutcome:
    """One attempt, with every step of ruling 4 visible ("Attempts"; rulings 2-5).

    ``dice`` holds every d20 rolled (two with advantage or disadvantage), ``kept`` the one that
    counts, ``table_level`` its Success Table level at ``effective_rank``, ``shifted_level`` the
    level after reliability, and ``level`` the final result (``shifted_level`` unless the
    natural-20 trade was taken). The requested flags are kept as given; ``advantage_state`` and
    ``reliability`` say what they resolved to.

    Ruling 5: on a kept natural 20 the roller may trade for a Normal success and a fortune die
    if below their maximum (``trade_available``). Keeping is the default; :meth:`take_trade`
    returns the traded outcome.
    """

    base_rank: Rank
    adjustments: tuple[int, ...]
    effective_rank: Rank
    dice: tuple[int, ...]
    kept: int
    table_level: SuccessLevel
    shifted_level: SuccessLevel
    level: SuccessLevel
    advantage: bool = False
    disadvantage: bool = False
    reliable: bool = False
    unreliable: bool = False
    trade_available: bool = False
    traded: bool = False
    fortune_gained: int = 0

    @property
    def adjustment(self) -> int:
        """The summed rank adjustment before clamping (ruling 3)."""
        return sum(self.adjustments)

    @property
    def advantage_state(self) -> Advantage:
        """What advantage and disadvantage resolved to (ruling 2: both cancel)."""
        return Advantage.resolve(self.advantage, self.disadvantage)

    @property
    def reliability(self) -> Reliability:
        """What reliability and unreliability resolved to (ruling 4: both cancel)."""
        return Reliability.resolve(self.reliable, self.unreliable)

    @property
    def natural_1(self) -> bool:
        """The kept die shows 1."""
        return self.kept == 1

    @property
    def natural_20(self) -> bool:
        """The kept die shows 20."""
        return self.kept == 20

    def take_trade(self) -> AttemptOutcome:
        """Ruling 5: trade a kept natural 20 for a Normal success and one fortune die.

        Returns a new outcome with ``level`` Normal, ``traded`` set and ``fortune_gained`` 1;
        the caller adds the die. Refused (:class:`RulesError`) without a natural 20, at the
        fortune maximum, or when already traded.
        """
        if self.traded:
            raise RulesError("You already traded this natural 20 for a fortune die.")
        if not self.natural_20:
            raise RulesError(
                "Only a natural 20 can be traded for a Normal Success and a fortune die."
            )
        if not self.trade_available:
            raise RulesError(
                "You already hold your maximum fortune dice, so this natural 20 cannot be traded."
            )
        return dataclasses.replace(
            self,
            level=SuccessLevel.NORMAL,
            trade_available=False,
            traded=True,
            fortune_gained=1,
        )


def attempt(
    rank: Rank,
    rng: random.Random,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
    rank_adjustment: RankAdjustment = 0,
    reliable: bool = False,
    unreliable: bool = False,
    fortune: int = 0,
    fortune_max: int = FORTUNE_MAX,
) -> AttemptOutcome:
    """Make an attempt: roll d20 against ``rank`` on the Success Table ("Attempts").

    Ruling 4 order: adjusted rank (ruling 3: adjustments summed, then clamped to Doomed …
    Godlike) → kept die (ruling 2: two d20 with advantage or disadvantage, both cancel) → table
    level (ruling 1) → reliability shift (ruling 4). ``fortune`` / ``fortune_max`` are the
    roller's current fortune dice, used only to offer the natural-20 trade (ruling 5).
    """
    check_fortune(fortune, fortune_max)
    adjustments = _adjustments(rank_adjustment)
    effective = rank.adjusted(sum(adjustments))
    adv = Advantage.resolve(advantage, disadvantage)
    reliability = Reliability.resolve(reliable, unreliable)
    dice = tuple(roll_d20(rng) for _ in range(adv.dice))
    kept = _keep(dice, adv)
    level = final_level(effective, kept, reliability)
    return AttemptOutcome(
        base_rank=rank,
        adjustments=adjustments,
        effective_rank=effective,
        dice=dice,
        kept=kept,
        table_level=table_level(effective, kept),
        shifted_level=level,
        level=level,
        advantage=advantage,
        disadvantage=disadvantage,
        reliable=reliable,
        unreliable=unreliable,
        trade_available=kept == 20 and fortune < fortune_max,
    )


def attempt_odds(
    rank: Rank,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
    rank_adjustment: RankAdjustment = 0,
    reliable: bool = False,
    unreliable: bool = False,
) -> dict[SuccessLevel, Fraction]:
    """Exact probability of each final level for the same inputs as :func:`attempt`.

    All six levels are present (zeros allowed); the natural-20 trade is a choice and is not
    counted (rulings 1-4).
    """
    effective = rank.adjusted(sum(_adjustments(rank_adjustment)))
    reliability = Reliability.resolve(reliable, unreliable)
    kept = kept_die_distribution(Advantage.resolve(advantage, disadvantage))
    odds = {level: Fraction(0) for level in SuccessLevel}
    for face, p in kept.items():
        odds[final_level(effective, face, reliability)] += p
    check_total(odds)
    return odds


def best_reachable_level(
    rank: Rank,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
    rank_adjustment: RankAdjustment = 0,
    reliable: bool = False,
    unreliable: bool = False,
) -> SuccessLevel:
    """The best level these inputs can reach: the highest with non-zero odds (ruling 6)."""
    odds = attempt_odds(
        rank,
        advantage=advantage,
        disadvantage=disadvantage,
        rank_adjustment=rank_adjustment,
        reliable=reliable,
        unreliable=unreliable,
    )
    return max(level for level, p in odds.items() if p > 0)


@dataclass(frozen=True, slots=True)
class LuckOutcome:
    """One luck roll: d20, lucky on 10 or higher ("Luck Rolls"; ruling 5).

    Decision (the text and rulings are silent): luck rolls take no advantage, disadvantage,
    rank or reliability — "things just come down to luck", and those modifiers are described
    for attempts only.

    Ruling 5: on a natural 20 the roller may treat the roll as a 10 (still lucky) and gain a
    fortune die, if below their maximum; :meth:`take_trade` returns that outcome.
    """

    die: int
    lucky: bool
    trade_available: bool = False
    traded: bool = False
    fortune_gained: int = 0

    @property
    def value(self) -> int:
        """The result that counts: the die, or 10 after the natural-20 trade."""
        return LUCKY_ON if self.traded else self.die

    @property
    def natural_1(self) -> bool:
        """The die shows 1."""
        return self.die == 1

    @property
    def natural_20(self) -> bool:
        """The die shows 20."""
        return self.die == 20

    def take_trade(self) -> LuckOutcome:
        """Ruling 5: treat a natural 20 as a 10 (lucky) and gain one fortune die."""
        if self.traded:
            raise RulesError("You already traded this natural 20 for a fortune die.")
        if not self.natural_20:
            raise RulesError("Only a natural 20 can be traded for a fortune die.")
        if not self.trade_available:
            raise RulesError(
                "You already hold your maximum fortune dice, so this natural 20 cannot be traded."
            )
        return dataclasses.replace(self, trade_available=False, traded=True, fortune_gained=1)


def luck_roll(
    rng: random.Random, *, fortune: int = 0, fortune_max: int = FORTUNE_MAX
) -> LuckOutcome:
    """Make a luck roll: d20, lucky on 10+ ("Luck Rolls"; ruling 5 for the natural-20 trade).

    No advantage or other modifiers (see :class:`LuckOutcome`).
    """
    check_fortune(fortune, fortune_max)
    die = roll_d20(rng)
    return LuckOutcome(
        die=die, lucky=die >= LUCKY_ON, trade_available=die == 20 and fortune < fortune_max
    )


def luck_odds() -> dict[bool, Fraction]:
    """Exact odds of a luck roll: lucky (10-20) 11/20, unlucky (1-9) 9/20 ("Luck Rolls")."""
    odds = {True: Fraction(21 - LUCKY_ON, 20), False: Fraction(LUCKY_ON - 1, 20)}
    check_total(odds)
    return odds


Rolled = TypeVar("Rolled", AttemptOutcome, LuckOutcome)


@dataclass(frozen=True, slots=True)
class RerollOutcome(Generic[Rolled]):
    """A fortune-die reroll ("Fortune Dice" 4; ruling 6): every reroll until one improved.

    ``rerolls`` lists every intermediate roll in order; the last (``final``) is the first that
    beat ``original`` (attempt: a better level; luck roll: lucky). It may itself offer the
    natural-20 trade. One fortune die pays for the whole reroll.
    """

    original: Rolled
    rerolls: tuple[Rolled, ...]

    @property
    def final(self) -> Rolled:
        """The reroll that counts."""
        return self.rerolls[-1]

    @property
    def purpose(self) -> FortunePurpose:
        """What the fortune die was spent on."""
        return FortunePurpose.REROLL


def _setup_words(outcome: AttemptOutcome) -> str:
    words = [f"a {outcome.effective_rank} attempt"]
    if outcome.advantage_state is not Advantage.NONE:
        words.append(f"with {outcome.advantage_state.value}")
    if outcome.reliability is not Reliability.NONE:
        words.append(f"({outcome.reliability.value})")
    return " ".join(words)


def can_reroll(original: AttemptOutcome | LuckOutcome) -> tuple[bool, str | None]:
    """Whether a fortune die may reroll ``original``, and why not (ruling 6).

    Refused: a natural 1 ("an attempt or luck roll that did not result in a 1"); a luck roll
    that was already lucky; an attempt already at the best level its rank and modifiers can
    reach (:func:`best_reachable_level`); an attempt whose natural 20 was traded (decision: the
    trade settled that roll). A refused reroll spends no die.
    """
    if original.natural_1:
        return False, "A natural 1 cannot be rerolled with a fortune die."
    if isinstance(original, LuckOutcome):
        if original.lucky:
            return False, "That luck roll was already lucky; a reroll cannot improve it."
        return True, None
    if original.traded:
        return False, "You traded this roll's natural 20 for a fortune die; it cannot be rerolled."
    best = best_reachable_level(
        original.base_rank,
        advantage=original.advantage,
        disadvantage=original.disadvantage,
        rank_adjustment=original.adjustments,
        reliable=original.reliable,
        unreliable=original.unreliable,
    )
    if original.level >= best:
        return False, (
            f"{original.level} is already the best result {_setup_words(original)} can reach, "
            "so a reroll could not improve it. No fortune die was spent."
        )
    return True, None


@overload
def reroll(
    original: AttemptOutcome,
    rng: random.Random,
    *,
    fortune: int = ...,
    fortune_max: int = ...,
) -> RerollOutcome[AttemptOutcome]: ...
@overload
def reroll(
    original: LuckOutcome,
    rng: random.Random,
    *,
    fortune: int = ...,
    fortune_max: int = ...,
) -> RerollOutcome[LuckOutcome]: ...
def reroll(
    original: AttemptOutcome | LuckOutcome,
    rng: random.Random,
    *,
    fortune: int = 0,
    fortune_max: int = FORTUNE_MAX,
) -> RerollOutcome[AttemptOutcome] | RerollOutcome[LuckOutcome]:
    """Spend-a-fortune-die reroll: roll again until better ("Fortune Dice" 4; ruling 6).

    Rerolls with the same rank, adjustments, advantage and reliability until the level beats
    the original (a luck roll: until lucky), keeping every reroll. Refused with
    :class:`RulesError` for the reasons of :func:`can_reroll`; the caller spends the die only
    after this returns. ``fortune`` / ``fortune_max`` are the roller's dice after paying, used
    for the final roll's natural-20 trade. Stops with ``RuntimeError`` after
    :data:`MAX_REROLLS` tries (practically impossible with a working random source).
    """
    allowed, reason = can_reroll(original)
    if not allowed:
        raise RulesError(reason or "That roll cannot be rerolled.")
    check_fortune(fortune, fortune_max)
    if isinstance(original, LuckOutcome):
        lucks: list[LuckOutcome] = []
        for _ in range(MAX_REROLLS):
            luck = luck_roll(rng, fortune=fortune, fortune_max=fortune_max)
            lucks.append(luck)
            if luck.lucky:
                return RerollOutcome(original, tuple(lucks))
    else:
        attempts: list[AttemptOutcome] = []
        for _ in range(MAX_REROLLS):
            again = attempt(
                original.base_rank,
                rng,
                advantage=original.advantage,
                disadvantage=original.disadvantage,
                rank_adjustment=original.adjustments,
                reliable=original.reliable,
                unreliable=original.unreliable,
                fortune=fortune,
                fortune_max=fortune_max,
            )
            attempts.append(again)
            if again.level > original.level:
                return RerollOutcome(original, tuple(attempts))
    raise RuntimeError(f"reroll did not improve after {MAX_REROLLS} tries: broken random source?")
