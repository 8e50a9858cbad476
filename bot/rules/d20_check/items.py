"""Item quality saves (ruling 7): a weapon's save against a fumble, armour's against a crit."""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from fractions import Fraction

from bot.quoting import quote
from bot.rules.common import (
    D20_FACES,
    ONE_IN_20,
    roll_d20,
)
from bot.rules.d20_check._d20 import in_range as _in_range
from bot.rules.d20_check.checks import (
    MAGIC_ITEM_SAVE_BONUS,
    MAX_MAGIC_BONUS,
    QUALITY_SAVE_DC,
)
from bot.rules.errors import RulesError

# ------------------------------------------------------------------------ item quality saves


class ItemQuality(enum.Enum):
    """Quality of a weapon or armour ("Critical Hits & Fumbles", ruling 7)."""

    NOVICE = "Novice"
    YEOMAN = "Yeoman"
    ADEPT = "Adept"
    MASTER = "Master"
    GRAND_MASTER = "Grand Master"

    @property
    def display(self) -> str:
        """E.g. "Grand Master"."""
        return self.value

    @property
    def save_bonus(self) -> int | None:
        """+1 Adept, +2 Master, +3 Grand Master; None: Novice and Yeoman get no save."""
        return {"Adept": 1, "Master": 2, "Grand Master": 3}.get(self.value)

    @classmethod
    def parse(cls, text: str) -> ItemQuality:
        """Read "grand master", "Grand_Master" or "GRANDMASTER"."""
        key = "".join(ch for ch in text.casefold() if ch.isalpha())
        for quality in cls:
            if key == quality.value.casefold().replace(" ", ""):
                return quality
        names = ", ".join(q.value for q in cls)
        raise RulesError(f"Unknown item quality {quote(text)}: use one of {names}.")


@dataclass(frozen=True, slots=True)
class QualitySaveTerms:
    """The DC an item's quality save must reach and the bonus it adds to its d20 (ruling 7)."""

    dc: int
    bonus: int


def quality_save_terms(
    quality: ItemQuality | None, magic_bonus: int = 0
) -> QualitySaveTerms | None:
    """The quality save an item gets, or None when it gets none (ruling 7).

    A magic item (``magic_bonus`` > 0) saves against DC 10 − its bonus and always adds the Grand
    Master +3, whatever its quality. Otherwise Adept +1, Master +2, Grand Master +3 against DC 10;
    Novice and Yeoman items (and items of no stated quality) get no save.
    """
    _in_range(magic_bonus, 0, MAX_MAGIC_BONUS, "A magic bonus")
    if magic_bonus > 0:
        return QualitySaveTerms(dc=QUALITY_SAVE_DC - magic_bonus, bonus=MAGIC_ITEM_SAVE_BONUS)
    if quality is None or quality.save_bonus is None:
        return None
    return QualitySaveTerms(dc=QUALITY_SAVE_DC, bonus=quality.save_bonus)


class ItemSaveResult(enum.Enum):
    """Whether an item's quality save held."""

    SAVED = "Saved"
    FAILED = "Failed"

    @property
    def display(self) -> str:
        """Either "Saved" or "Failed"."""
        return self.value


@dataclass(frozen=True, slots=True)
class ItemSaveOutcome:
    """An item's quality save (ruling 7): d20 + quality bonus ≥ DC."""

    quality: ItemQuality | None
    magic_bonus: int
    roll: int
    bonus: int
    dc: int

    @property
    def total(self) -> int:
        """The d20 plus the quality (or magic) bonus."""
        return self.roll + self.bonus

    @property
    def saved(self) -> bool:
        """True when the total reaches the DC: the item holds."""
        return self.total >= self.dc

    @property
    def result(self) -> ItemSaveResult:
        """Saved or Failed."""
        return ItemSaveResult.SAVED if self.saved else ItemSaveResult.FAILED

    @property
    def modifiers(self) -> tuple[tuple[str, int], ...]:
        """The one named modifier: the quality's (or the magic item's Grand Master +3)."""
        if self.magic_bonus:
            return ((f"magic +{self.magic_bonus} (Grand Master)", self.bonus),)
        label = self.quality.display if self.quality else "quality"
        return ((label, self.bonus),)


def item_quality_save(
    rng: random.Random, quality: ItemQuality | None, magic_bonus: int = 0
) -> ItemSaveOutcome:
    """Roll an item's quality save (ruling 7); a RulesError when the item gets none."""
    terms = quality_save_terms(quality, magic_bonus)
    if terms is None:
        what = quality.display if quality else "An item of no stated quality"
        raise RulesError(f"{what} items get no quality save.")
    return ItemSaveOutcome(
        quality=quality, magic_bonus=magic_bonus, roll=roll_d20(rng), bonus=terms.bonus, dc=terms.dc
    )


def item_save_odds(quality: ItemQuality | None, magic_bonus: int = 0) -> Fraction:
    """Exact P(the item's quality save succeeds); 0 for an item with no save (ruling 7)."""
    terms = quality_save_terms(quality, magic_bonus)
    if terms is None:
        return Fraction(0)
    return sum((ONE_IN_20 for face in D20_FACES if face + terms.bonus >= terms.dc), Fraction(0))
