"""d20 check (5e-like): ability checks, saves, contests, attacks, group checks (`d20-check.txt`).

Rulings (shared/rules/README.md, "d20 check"):

1. Check total = d20 + ability modifier (floor((score − 10) / 2)) + proficiency bonus × degree
   (None 0, Proficient 1, Expert 2) + situational bonus; success when total ≥ DC. The proficiency
   bonus is added at most once and doubled at most once. Natural 20 and 1 have no special effect
   on checks and saves.
2. Proficiency bonus by level: 1–4 +2, 5–8 +3, 9–12 +4, 13–16 +5, 17–20 +6.
3. Advantage and disadvantage: any number of sources; both present → neither; never more than one
   extra d20.
4. Contest: both roll their checks; the higher total wins; a tie leaves the situation unchanged.
5. Saving throw: d20 + ability modifier + proficiency bonus if proficient in that save + bonus.
6. Weapon DC: melee 8 + STR modifier + proficiency bonus; ranged 8 + DEX modifier + proficiency
   bonus. Spell save DC: 8 + Mana modifier + proficiency bonus. Abilities are a campaign setting.
7. Attack rolls: d20 + modifiers vs AC. Critical hits and fumbles are optional, off by default:
   a natural 20 that still hits is a critical (damage also lowers the target's AC); a natural 1 is
   a fumble that breaks the weapon unless its quality save succeeds (DC 10, +1 Adept, +2 Master,
   +3 Grand Master; magic items DC 10 − their bonus, +3).
8. Working together: the leader rolls with advantage.
9. Group check: everyone rolls; the group succeeds when at least half succeed.

Pure code: every function that rolls takes a ``random.Random``; odds are exact ``Fraction``s.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

from bot.quoting import quote
from bot.rules.common import (
    D20_FACES,
    ONE_IN_20,
    Advantage,
    check_total,
    distribution,
    kept_die_distribution,
    roll_d20,
    signed,
)
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
#: Bounds that keep a typo from becoming a bonus, DC or AC nobody meant.
MAX_ABS_BONUS = 100
MIN_TARGET = 1
MAX_TARGET = 100
MAX_MAGIC_BONUS = 9

#: The DC of an item's quality save (ruling 7), before a magic item's bonus lowers it.
QUALITY_SAVE_DC = 10
#: What a magic item always adds to its quality save: the Grand Master bonus (ruling 7).
MAGIC_ITEM_SAVE_BONUS = 3

#: The text's "—" for a check rolled without a DC: the GM judges the total.
NO_RESULT_TEXT = "—"


def _whole(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{what} must be a whole number.")
    return value


def _in_range(value: int, low: int, high: int, what: str) -> int:
    _whole(value, what)
    if not low <= value <= high:
        raise RulesError(f"{what} {value} is out of range: use {low} to {high}.")
    return value


def _bonus(value: int, what: str = "A bonus") -> int:
    _whole(value, what)
    if abs(value) > MAX_ABS_BONUS:
        raise RulesError(f"{what} of {signed(value)} is out of range.")
    return value


def _target(value: int | None, what: str) -> int | None:
    return None if value is None else _in_range(value, MIN_TARGET, MAX_TARGET, what)


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
    """How many times the proficiency bonus counts (ruling 1): None 0, Proficient 1, Expert 2.

    Expert is the top degree: the bonus is "added at most once and doubled at most once".
    """

    NONE = 0
    PROFICIENT = 1
    EXPERT = 2

    @property
    def multiplier(self) -> int:
        """0, 1 or 2."""
        return self.value

    @property
    def display(self) -> str:
        """Either "None", "Proficient" or "Expert"."""
        return {0: "None", 1: "Proficient", 2: "Expert"}[self.value]

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
        }
        if key not in aliases:
            raise RulesError(
                f"Unknown proficiency degree {quote(text)}: use None, Proficient or Expert."
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


def _counts(value: int | bool, what: str) -> int | bool:
    if isinstance(value, bool):
        return value
    _whole(value, what)
    if value < 0:
        raise RulesError(f"{what} cannot be negative.")
    return value


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
            named.append((label, proficiency_bonus(self.level) * self.degree.multiplier))
        named.extend(self.extra)
        if self.bonus:
            named.append(("bonus", self.bonus))
        return tuple(named)

    @property
    def modifier_total(self) -> int:
        """The sum of every modifier: what is added to the kept d20."""
        return sum(value for _, value in self.modifiers)


def _roll_kept(rng: random.Random, advantage: Advantage) -> tuple[tuple[int, ...], int]:
    """Roll one d20, or two with advantage / disadvantage, never more (ruling 3)."""
    dice = tuple(roll_d20(rng) for _ in range(advantage.dice))
    if advantage is Advantage.ADVANTAGE:
        return dice, max(dice)
    return dice, min(dice)  # one die: itself; disadvantage: the lower


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
    if len(outcome.dice) != 2 or outcome.advantage is Advantage.NONE:
        raise RulesError(
            "Only a roll made with advantage or disadvantage (two d20s) has a die to choose."
        )
    if which not in (0, 1):
        raise RulesError("Choose the first or the second die.")
    dice = list(outcome.dice)
    dice[which] = roll_d20(rng)
    kept = max(dice) if outcome.advantage is Advantage.ADVANTAGE else min(dice)
    total = kept + sum(value for _, value in outcome.modifiers)
    return replace(outcome, dice=tuple(dice), kept=kept, result=_judge(total, outcome.dc))


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


# -------------------------------------------------------------------------- DCs from abilities


class WeaponKind(enum.Enum):
    """Melee or ranged, for the Weapon DC (ruling 6)."""

    MELEE = "melee"
    RANGED = "ranged"

    @property
    def ability(self) -> str:
        """The ability whose modifier the Weapon DC uses: STR for melee, DEX for ranged."""
        return "STR" if self is WeaponKind.MELEE else "DEX"


def weapon_dc(kind: WeaponKind | str, str_or_dex_mod: int, prof_bonus: int) -> int:
    """The Weapon DC (ruling 6): 8 + STR (melee) or DEX (ranged) modifier + proficiency bonus."""
    if isinstance(kind, str):
        try:
            kind = WeaponKind(kind.strip().casefold())
        except ValueError:
            shown = quote(str(kind))
            raise RulesError(f"Unknown weapon kind {shown}: use melee or ranged.") from None
    return 8 + _bonus(str_or_dex_mod, "A modifier") + _bonus(prof_bonus, "A proficiency bonus")


def spell_save_dc(mana_mod: int, prof_bonus: int) -> int:
    """The spell save DC (ruling 6): 8 + Mana modifier + proficiency bonus."""
    return 8 + _bonus(mana_mod, "A modifier") + _bonus(prof_bonus, "A proficiency bonus")


#: "Spell Effect Saves": the ability a spell effect of each school is saved with, as the text
#: names it and as a campaign usually abbreviates it (Divine: Wisdom, i.e. WIS).
SPELL_SCHOOLS: Mapping[str, tuple[str, ...]] = {
    "arcane": ("Knowledge",),
    "mystical": ("Perception",),
    "divine": ("Wisdom", "WIS"),
    "eldritch": ("Sanity",),
    "primal": ("Charisma", "CHA"),
    "psychic": ("Psyche",),
    "corruption": ("Heart",),
    "necrotic": ("Vitality",),
}

#: "Null Saves": the ability whose saves a Null adds proficiency and Null bonus to.
NULL_SAVE_ABILITY = "Mana"


def null_save_extra(
    ability: str, null_bonus: int | None
) -> tuple[bool, tuple[tuple[str, int], ...]]:
    """(always proficient, extra bonuses) of a save for a Null ("Null Saves").

    "Nulls always add their proficiency bonus and their Null bonus to their Mana Saves": on a
    Mana save a Null is proficient (the bonus still counts once, ruling 1) and adds the Null
    bonus; any other save, or a character who is not a Null (``null_bonus`` None), gets nothing.
    """
    if null_bonus is None or ability.casefold() != NULL_SAVE_ABILITY.casefold():
        return False, ()
    return True, (("Null bonus", _bonus(null_bonus, "A Null bonus")),)


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


# ------------------------------------------------------------------------------------- attacks


@dataclass(frozen=True, slots=True)
class AttackInput:
    """Everything an attack roll needs (ruling 7).

    Give either ``attack_bonus`` (a stat block's "+5 to hit", proficiency included) or
    ``score`` and ``level`` (ability modifier + proficiency bonus when ``proficient``; the bonus
    is never doubled on attacks). ``bonus`` is any situational bonus. ``crit_rules`` switches on
    the optional critical hits and fumbles. The weapon's quality / magic bonus decide its save
    against a fumble; the target's armour's, its save against a critical's AC loss.
    """

    ac: int
    attack_bonus: int | None = None
    score: int | None = None
    ability: str = "STR"
    level: int | None = None
    proficient: bool = True
    bonus: int = 0
    advantage: int | bool = False
    disadvantage: int | bool = False
    crit_rules: bool = False
    weapon_quality: ItemQuality | None = None
    weapon_magic_bonus: int = 0
    armor_quality: ItemQuality | None = None
    armor_magic_bonus: int = 0

    def __post_init__(self) -> None:
        _in_range(self.ac, 0, MAX_TARGET, "AC")
        if self.attack_bonus is not None:
            if self.score is not None or self.level is not None:
                raise RulesError("Give either an attack bonus or a score and level, not both.")
            _bonus(self.attack_bonus, "An attack bonus")
        elif self.score is None or self.level is None:
            raise RulesError("An attack needs an attack bonus, or a score and a level.")
        else:
            ability_modifier(self.score)
            proficiency_bonus(self.level)
        _bonus(self.bonus)
        _counts(self.advantage, "Advantage")
        _counts(self.disadvantage, "Disadvantage")
        quality_save_terms(self.weapon_quality, self.weapon_magic_bonus)
        quality_save_terms(self.armor_quality, self.armor_magic_bonus)

    @property
    def advantage_state(self) -> Advantage:
        """Advantage, disadvantage or neither, after cancelling (ruling 3)."""
        return Advantage.resolve(self.advantage, self.disadvantage)

    @property
    def modifiers(self) -> tuple[tuple[str, int], ...]:
        """Named modifiers of the attack roll."""
        named: list[tuple[str, int]] = []
        if self.attack_bonus is not None:
            named.append(("attack bonus", self.attack_bonus))
        else:
            assert self.score is not None and self.level is not None  # __post_init__
            named.append((self.ability, ability_modifier(self.score)))
            if self.proficient:
                named.append(("proficiency", proficiency_bonus(self.level)))
        if self.bonus:
            named.append(("bonus", self.bonus))
        return tuple(named)

    @property
    def modifier_total(self) -> int:
        """The sum of every modifier."""
        return sum(value for _, value in self.modifiers)


class AttackResult(enum.Enum):
    """Hit or miss; "Critical Hit" only when the optional rule is on (ruling 7)."""

    CRITICAL_HIT = "Critical Hit"
    HIT = "Hit"
    MISS = "Miss"

    @property
    def display(self) -> str:
        """E.g. "Critical Hit"."""
        return self.value


@dataclass(frozen=True, slots=True)
class AttackOutcome:
    """An attack roll (ruling 7): the dice, the modifiers, the AC and what happened.

    ``fumble`` is a natural 1 with crit rules on; the weapon breaks unless its quality save
    (``weapon_save``, rolled only when the item has one) succeeds. ``critical`` is a natural 20
    that still hits with crit rules on; the damage also lowers the target's AC unless the
    armour's quality save (``armor_save``) succeeds.
    """

    dice: tuple[int, ...]
    kept: int
    advantage: Advantage
    modifiers: tuple[tuple[str, int], ...]
    ac: int
    crit_rules: bool
    weapon_save: ItemSaveOutcome | None = None
    armor_save: ItemSaveOutcome | None = None

    @property
    def total(self) -> int:
        """The kept d20 plus every modifier."""
        return self.kept + sum(value for _, value in self.modifiers)

    @property
    def hit(self) -> bool:
        """True when the total reaches the AC: d20 + modifiers vs AC, natural dice included."""
        return self.total >= self.ac

    @property
    def critical(self) -> bool:
        """A natural 20 "that is still able to hit", crit rules on."""
        return self.crit_rules and self.kept == 20 and self.hit

    @property
    def fumble(self) -> bool:
        """A natural 1 ("without modifiers"), crit rules on."""
        return self.crit_rules and self.kept == 1

    @property
    def weapon_breaks(self) -> bool:
        """A fumble breaks the weapon unless its quality save succeeded."""
        return self.fumble and not (self.weapon_save is not None and self.weapon_save.saved)

    @property
    def lowers_target_ac(self) -> bool:
        """A critical's damage also lowers the target's AC unless the armour saved."""
        return self.critical and not (self.armor_save is not None and self.armor_save.saved)

    @property
    def result(self) -> AttackResult:
        """Critical Hit, Hit or Miss."""
        if self.critical:
            return AttackResult.CRITICAL_HIT
        return AttackResult.HIT if self.hit else AttackResult.MISS

    @property
    def result_text(self) -> str:
        """E.g. "Miss — fumble: the weapon breaks"."""
        text = self.result.display
        if self.fumble:
            text += " — fumble: " + (
                "the weapon breaks" if self.weapon_breaks else "the weapon holds"
            )
        if self.critical and self.armor_save is not None:
            text += " — " + (
                "the armour holds" if not self.lowers_target_ac else "the armour gives way"
            )
        return text


def roll_attack(attack: AttackInput, rng: random.Random) -> AttackOutcome:
    """Roll an attack described by ``attack`` (ruling 7); quality saves only when they apply."""
    advantage = attack.advantage_state
    dice, kept = _roll_kept(rng, advantage)
    outcome = AttackOutcome(
        dice=dice,
        kept=kept,
        advantage=advantage,
        modifiers=attack.modifiers,
        ac=attack.ac,
        crit_rules=attack.crit_rules,
    )
    if outcome.fumble and quality_save_terms(attack.weapon_quality, attack.weapon_magic_bonus):
        save = item_quality_save(rng, attack.weapon_quality, attack.weapon_magic_bonus)
        outcome = replace(outcome, weapon_save=save)
    if outcome.critical and quality_save_terms(attack.armor_quality, attack.armor_magic_bonus):
        save = item_quality_save(rng, attack.armor_quality, attack.armor_magic_bonus)
        outcome = replace(outcome, armor_save=save)
    return outcome


def attack_roll(
    rng: random.Random,
    *,
    ac: int,
    attack_bonus: int | None = None,
    score: int | None = None,
    ability: str = "STR",
    level: int | None = None,
    proficient: bool = True,
    bonus: int = 0,
    advantage: int | bool = False,
    disadvantage: int | bool = False,
    crit_rules: bool = False,
    weapon_quality: ItemQuality | None = None,
    weapon_magic_bonus: int = 0,
    armor_quality: ItemQuality | None = None,
    armor_magic_bonus: int = 0,
) -> AttackOutcome:
    """Roll an attack (ruling 7): d20 + modifiers vs AC; see :class:`AttackInput`.

    Natural 20 / 1 do not decide hit or miss (ruling 1 and the text's warning about AC 30); with
    ``crit_rules`` they add a critical (if it still hits) or a fumble.
    """
    attack = AttackInput(
        ac=ac,
        attack_bonus=attack_bonus,
        score=score,
        ability=ability,
        level=level,
        proficient=proficient,
        bonus=bonus,
        advantage=advantage,
        disadvantage=disadvantage,
        crit_rules=crit_rules,
        weapon_quality=weapon_quality,
        weapon_magic_bonus=weapon_magic_bonus,
        armor_quality=armor_quality,
        armor_magic_bonus=armor_magic_bonus,
    )
    return roll_attack(attack, rng)


@dataclass(frozen=True, slots=True)
class AttackOdds:
    """Exact odds of an attack (ruling 7)."""

    hit: Fraction
    critical: Fraction
    fumble: Fraction
    weapon_breaks: Fraction
    lowers_target_ac: Fraction


def attack_odds(attack: AttackInput) -> AttackOdds:
    """Exact P(hit), P(critical), P(fumble), P(weapon breaks), P(target's AC lowered)."""
    kept = kept_die_distribution(attack.advantage_state)
    modifier = attack.modifier_total
    hit = sum((p for face, p in kept.items() if face + modifier >= attack.ac), Fraction(0))
    if not attack.crit_rules:
        zero = Fraction(0)
        return AttackOdds(hit, zero, zero, zero, zero)
    critical = kept[20] if 20 + modifier >= attack.ac else Fraction(0)
    fumble = kept[1]
    weapon_saves = item_save_odds(attack.weapon_quality, attack.weapon_magic_bonus)
    armor_saves = item_save_odds(attack.armor_quality, attack.armor_magic_bonus)
    return AttackOdds(
        hit=hit,
        critical=critical,
        fumble=fumble,
        weapon_breaks=fumble * (1 - weapon_saves),
        lowers_target_ac=critical * (1 - armor_saves),
    )


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
