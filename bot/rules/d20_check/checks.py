"""d20 checks and saves (rulings 1-3 and 5): inputs, the roll, rerolls and exact odds.

Also the bounds and validation helpers the sibling modules share.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, replace
from fractions import Fraction

from bot.quoting import quote
from bot.rules.common import (
    Advantage,
    check_total,
    distribution,
    kept_die_distribution,
)
from bot.rules.d20_check._d20 import bonus as _bonus
from bot.rules.d20_check._d20 import counts as _counts
from bot.rules.d20_check._d20 import in_range as _in_range
from bot.rules.d20_check._d20 import reroll_kept
from bot.rules.d20_check._d20 import roll_kept as _roll_kept
from bot.rules.d20_check._d20 import target as _target
from bot.rules.errors import RulesError

#: The six abilities when the campaign sets none (ruling 6).
DEFAULT_ABILITIES: tuple[str, ...] = ("STR", "DEX", "CON", "INT", "WIS", "CHA")

#: Abilities the text names besides the six, which a campaign may add (ruling 6).
EXTRA_ABILITIES: tuple[str, ...] = (
    "Knowledge",
    "Perception",
    "Sanity",
    "Psyche",
    "Heart",
    "Vitality",
    "Mana",
)

MIN_LEVEL = 1
MAX_LEVEL = 20
#: Ability scores the bot accepts (the modifier formula holds across the whole range).
MIN_SCORE = 1
MAX_SCORE = 30
MAX_MAGIC_BONUS = 9

#: The DC of an item's quality save (ruling 7), before a magic item's bonus lowers it.
QUALITY_SAVE_DC = 10
#: What a magic item always adds to its quality save: the Grand Master bonus (ruling 7).
MAGIC_ITEM_SAVE_BONUS = 3

#: The text's "—" for a check rolled without a DC: the GM judges the total.
NO_RESULT_TEXT = "—"


# ----------------------------------------------------------------------- modifiers and bonuses


def proficiency_bonus(level: int) -> int:
    """The proficiency bonus for a character level (ruling 2): +2 at 1–4, one more every 4."""
    _in_range(level, MIN_LEVEL, MAX_LEVEL, "Level")
    return 2 + (level - 1) // 4


def ability_modifier(score: int) -> int:
    """An ability score's modifier (ruling 1): floor((score − 10) / 2)."""
    _in_range(score, MIN_SCORE, MAX_SCORE, "Ability score")
    return (score - 10) // 2  # floor division rounds down for negatives too


class ProficiencyDegree(enum.Enum):
    """How the proficiency bonus counts (ruling 1): None 0, Half, Proficient 1, Expert 2.

    "Your proficiency bonus might be multiplied or divided (doubled or halved, for example)":
    Half halves it, rounded down (the text does not say how; the project's ruling). Expert is
    the top degree: the bonus is "added at most once and doubled at most once", and a bonus is
    multiplied or divided only once, so no degree both halves and doubles it.
    """

    NONE = 0
    #: Stored as -1: the bonus halved.
    HALF = -1
    PROFICIENT = 1
    EXPERT = 2

    @property
    def multiplier(self) -> int:
        """0, 1 or 2 (Half: see :meth:`bonus`)."""
        return max(0, self.value)

    def bonus(self, proficiency: int) -> int:
        """What this degree adds of a proficiency bonus: 0, half rounded down, once, twice."""
        if self is ProficiencyDegree.HALF:
            return proficiency // 2
        return proficiency * int(self.value)

    @property
    def display(self) -> str:
        """ "None", "Half", "Proficient" or "Expert"."""
        return {0: "None", -1: "Half", 1: "Proficient", 2: "Expert"}[self.value]

    @classmethod
    def parse(cls, text: str) -> ProficiencyDegree:
        """Read a degree as a player types it ("expert", "expertise", "prof", "1", "none"…)."""
        key = text.strip().casefold()
        aliases = {
            "none": cls.NONE,
            "no": cls.NONE,
            "0": cls.NONE,
            "untrained": cls.NONE,
            "proficient": cls.PROFICIENT,
            "proficiency": cls.PROFICIENT,
            "prof": cls.PROFICIENT,
            "trained": cls.PROFICIENT,
            "1": cls.PROFICIENT,
            "expert": cls.EXPERT,
            "expertise": cls.EXPERT,
            "2": cls.EXPERT,
            "half": cls.HALF,
            "halved": cls.HALF,
            "-1": cls.HALF,
        }
        if key not in aliases:
            raise RulesError(
                f"Unknown proficiency degree {quote(text)}: use None, Half, Proficient or Expert."
            )
        return aliases[key]

    @classmethod
    def from_sources(cls, proficient: int | bool, doubled: int | bool = 0) -> ProficiencyDegree:
        """Combine any number of rules that grant or double proficiency (ruling 1).

        However many rules add the bonus, it is added once; however many double it, it is
        doubled once; and doubling a bonus you do not have leaves 0 ("multiplying 0 by any
        number is still 0").
        """
        if int(proficient) <= 0:
            return cls.NONE
        return cls.EXPERT if int(doubled) > 0 else cls.PROFICIENT


class CheckKind(enum.Enum):
    """Which kind of d20 roll this is, in the text's words."""

    ABILITY_CHECK = "ability check"
    SAVING_THROW = "saving throw"

    @property
    def display(self) -> str:
        """E.g. "saving throw"."""
        return self.value


class CheckResult(enum.Enum):
    """The result of a check against a DC (ruling 1). No DC → no result: the GM judges."""

    SUCCESS = "Success"
    FAILURE = "Failure"

    @property
    def display(self) -> str:
        """Either "Success" or "Failure"."""
        return self.value


@dataclass(frozen=True, slots=True)
class CheckInput:
    """Everything one character brings to an ability check or saving throw (rulings 1–3, 5).

    ``advantage`` / ``disadvantage`` are a flag or a count of sources (ruling 3).
    ``proficiency_name`` labels the proficiency, e.g. a skill ("Stealth"). ``name`` is the
    character's, shown in contests and group checks.
    """

    score: int
    ability: str
    level: int
    degree: ProficiencyDegree = ProficiencyDegree.NONE
    bonus: int = 0
    advantage: int | bool = False
    disadvantage: int | bool = False
    proficiency_name: str | None = None
    kind: CheckKind = CheckKind.ABILITY_CHECK
    name: str = ""
    #: Other named bonuses a rule adds, e.g. ("Null bonus", 2) on a Null's Mana save.
    extra: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        ability_modifier(self.score)
        proficiency_bonus(self.level)
        _bonus(self.bonus)
        for label, value in self.extra:
            _bonus(value, label)
        _counts(self.advantage, "Advantage")
        _counts(self.disadvantage, "Disadvantage")
        if not self.ability.strip():
            raise RulesError("Name the ability the check uses.")

    @classmethod
    def save(
        cls,
        score: int,
        *,
        ability: str,
        level: int,
        proficient: bool,
        bonus: int = 0,
        advantage: int | bool = False,
        disadvantage: int | bool = False,
        name: str = "",
        extra: tuple[tuple[str, int], ...] = (),
    ) -> CheckInput:
        """A saving throw's input (ruling 5): proficiency counts once if proficient in it."""
        return cls(
            score=score,
            ability=ability,
            level=level,
            degree=ProficiencyDegree.PROFICIENT if proficient else ProficiencyDegree.NONE,
            bonus=bonus,
            advantage=advantage,
            disadvantage=disadvantage,
            proficiency_name=f"{ability} save",
            kind=CheckKind.SAVING_THROW,
            name=name,
            extra=extra,
        )

    @property
    def advantage_state(self) -> Advantage:
        """Advantage, disadvantage or neither, after cancelling (ruling 3)."""
        return Advantage.resolve(self.advantage, self.disadvantage)

    @property
    def modifiers(self) -> tuple[tuple[str, int], ...]:
        """Named modifiers: the ability's, the proficiency's (when any), the bonus (when any)."""
        named: list[tuple[str, int]] = [(self.ability, ability_modifier(self.score))]
        if self.degree is not ProficiencyDegree.NONE:
            label = f"{self.proficiency_name or 'proficiency'} ({self.degree.display})"
            named.append((label, self.degree.bonus(proficiency_bonus(self.level))))
        named.extend(self.extra)
        if self.bonus:
            named.append(("bonus", self.bonus))
        return tuple(named)

    @property
    def modifier_total(self) -> int:
        """The sum of every modifier: what is added to the kept d20."""
        return sum(value for _, value in self.modifiers)


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """One ability check or saving throw (rulings 1, 3, 5).

    ``dice`` is every d20 rolled, ``kept`` the one that counts. ``result`` is None when there was
    no DC: the GM judges the total. A natural 20 or 1 has no special effect (ruling 1).
    """

    kind: CheckKind
    ability: str
    dice: tuple[int, ...]
    kept: int
    advantage: Advantage
    modifiers: tuple[tuple[str, int], ...]
    dc: int | None
    result: CheckResult | None
    name: str = ""

    @property
    def total(self) -> int:
        """The kept d20 plus every modifier."""
        return self.kept + sum(value for _, value in self.modifiers)

    @property
    def succeeded(self) -> bool | None:
        """True / False against the DC; None without one."""
        return None if self.result is None else self.result is CheckResult.SUCCESS

    @property
    def result_text(self) -> str:
        """The result in words: "Success", "Failure", or "—" when there was no DC."""
        return NO_RESULT_TEXT if self.result is None else self.result.display


def _judge(total: int, dc: int | None) -> CheckResult | None:
    if dc is None:
        return None
    # Ruling 1: "If the total equals or exceeds the target number … a success".
    return CheckResult.SUCCESS if total >= dc else CheckResult.FAILURE


def roll_check(check: CheckInput, rng: random.Random, dc: int | None = None) -> CheckOutcome:
    """Roll any check or save described by ``check`` (rulings 1, 3, 5) against an optional DC."""
    _target(dc, "DC")
    advantage = check.advantage_state
    dice, kept = _roll_kept(rng, advantage)
    modifiers = check.modifiers
    total = kept + sum(value for _, value in modifiers)
    return CheckOutcome(
        kind=check.kind,
        ability=check.ability,
        dice=dice,
        kept=kept,
        advantage=advantage,
        modifiers=modifiers,
        dc=dc,
        result=_judge(total, dc),
        name=check.name,
    )


def ability_check(
    score: int,
    rng: random.Random,
    *,
    ability: str,
    level: int,
    degree: ProficiencyDegree = ProficiencyDegree.NONE,
    bonus: int = 0,
    advantage: int | bool = False,
    disadvantage: int | bool = False,
    dc: int | None = None,
    proficiency_name: str | None = None,
) -> CheckOutcome:
    """Roll an ability check ("Ability Checks", rulings 1–3).

    Total = d20 + ability modifier + proficiency bonus × degree + bonus; success when the total
    is at least ``dc``; no DC → no success or failure. Natural 20 / 1 are not special.
    """
    check = CheckInput(
        score=score,
        ability=ability,
        level=level,
        degree=degree,
        bonus=bonus,
        advantage=advantage,
        disadvantage=disadvantage,
        proficiency_name=proficiency_name,
    )
    return roll_check(check, rng, dc)


def saving_throw(
    score: int,
    rng: random.Random,
    *,
    ability: str,
    level: int,
    proficient: bool,
    bonus: int = 0,
    advantage: int | bool = False,
    disadvantage: int | bool = False,
    dc: int | None = None,
) -> CheckOutcome:
    """Roll a saving throw ("Saving Throws", ruling 5).

    d20 + ability modifier + proficiency bonus if proficient in that save + bonus, vs the DC.
    Advantage and disadvantage apply as for checks (ruling 3); natural 20 / 1 are not special.
    """
    check = CheckInput.save(
        score,
        ability=ability,
        level=level,
        proficient=proficient,
        bonus=bonus,
        advantage=advantage,
        disadvantage=disadvantage,
    )
    return roll_check(check, rng, dc)


def reroll_one(outcome: CheckOutcome, which: int, rng: random.Random) -> CheckOutcome:
    """Reroll one of the two d20s of an advantage / disadvantage roll (the text: "you can
    reroll only one of the dice. You choose which one"); ``which`` is 0 (first) or 1 (second).

    The new die replaces the chosen one; the kept die is chosen again (higher with advantage,
    lower with disadvantage) and the result judged against the same DC.
    """
    dice, kept = reroll_kept(outcome.dice, outcome.advantage, which, rng)
    total = kept + sum(value for _, value in outcome.modifiers)
    return replace(outcome, dice=dice, kept=kept, result=_judge(total, outcome.dc))


def total_distribution(check: CheckInput) -> dict[int, Fraction]:
    """Exact distribution of a check's total, advantage included (rulings 1, 3)."""
    modifier = check.modifier_total
    dist = distribution(
        (kept + modifier, p) for kept, p in kept_die_distribution(check.advantage_state).items()
    )
    check_total(dist)
    return dist


def check_odds(check: CheckInput, dc: int) -> Fraction:
    """Exact P(success) of a check or save against ``dc`` (rulings 1, 3, 5)."""
    _target(dc, "DC")
    return sum((p for t, p in total_distribution(check).items() if t >= dc), Fraction(0))
