"""Fortune dice as pure arithmetic (Chapter I, "Fortune Dice"; rulings 5 and 6).

These helpers only compute the next count; storing it atomically (ruling 6: "under any
concurrency") is the caller's job. Every helper refuses a count outside 0..maximum.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from bot.rules.errors import RulesError

__all__ = [
    "BASE_FORTUNE_MAX",
    "BOON_FORTUNE_MAX",
    "FortuneChange",
    "FortunePurpose",
    "check_fortune",
    "fortune_max",
    "gain_fortune",
    "spend_fortune",
]

#: "You can possess a maximum of two fortune dice." (ruling 6)
BASE_FORTUNE_MAX = 2
#: "Boon Option: Double your maximum number of fortune dice." (ruling 6)
BOON_FORTUNE_MAX = 4


def fortune_max(boon: bool) -> int:
    """The most fortune dice a hero may hold: 2, or 4 with the double-fortune boon (ruling 6)."""
    return BOON_FORTUNE_MAX if boon else BASE_FORTUNE_MAX


class FortunePurpose(enum.Enum):
    """The four things a fortune die buys ("Fortune Dice" 1-4; ruling 6 records the purpose)."""

    HINT = "hint"
    ESCAPE = "escape"
    ITEM = "item"
    REROLL = "reroll"

    @property
    def display_name(self) -> str:
        """The purpose in a player's words."""
        return _PURPOSE_NAMES[self]


_PURPOSE_NAMES: dict[FortunePurpose, str] = {
    FortunePurpose.HINT: "a hint",
    FortunePurpose.ESCAPE: "an escape from a social situation",
    FortunePurpose.ITEM: "a better item",
    FortunePurpose.REROLL: "a reroll",
}


@dataclass(frozen=True, slots=True)
class FortuneChange:
    """One change to a hero's fortune dice: the count before and after (ruling 6).

    ``purpose`` is set for a spend and ``None`` for a gain. A gain at the maximum changes
    nothing (``before == after``).
    """

    before: int
    after: int
    maximum: int
    purpose: FortunePurpose | None = None

    @property
    def delta(self) -> int:
        """How many dice were gained (positive) or spent (negative)."""
        return self.after - self.before


def check_fortune(current: int, maximum: int) -> None:
    """Refuse a fortune count outside 0..maximum, or a negative maximum (ruling 6)."""
    if maximum < 0:
        raise RulesError(f"A fortune-dice maximum cannot be negative (got {maximum}).")
    if not 0 <= current <= maximum:
        raise RulesError(f"A hero holds between 0 and {maximum} fortune dice, not {current}.")


def gain_fortune(current: int, maximum: int, amount: int = 1) -> FortuneChange:
    """Gain fortune dice, clamped at the maximum (ruling 5: "if below their maximum").

    Decision: a gain at or near the maximum is clamped, not refused — the natural-20 trade is
    only offered below the maximum (see ``AttemptOutcome.trade_available``), so a clamped gain
    never costs the player anything.
    """
    check_fortune(current, maximum)
    if amount < 0:
        raise ValueError("use spend_fortune to lose fortune dice")
    return FortuneChange(before=current, after=min(maximum, current + amount), maximum=maximum)


def spend_fortune(current: int, maximum: int, purpose: FortunePurpose) -> FortuneChange:
    """Spend one fortune die for ``purpose``; refused at 0 ("Fortune Dice"; ruling 6).

    For a reroll, check :func:`can_reroll` first and spend only once the reroll is allowed: a
    refused reroll spends nothing.
    """
    check_fortune(current, maximum)
    if current == 0:
        raise RulesError("You have no fortune dice left.")
    return FortuneChange(before=current, after=current - 1, maximum=maximum, purpose=purpose)
