"""Attack rolls (ruling 7): to hit against AC; crits and fumbles are optional (items.py saves)."""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, replace
from fractions import Fraction

from bot.rules.common import (
    Advantage,
    kept_die_distribution,
)
from bot.rules.d20_check._d20 import MAX_TARGET, reroll_kept
from bot.rules.d20_check._d20 import bonus as _bonus
from bot.rules.d20_check._d20 import counts as _counts
from bot.rules.d20_check._d20 import in_range as _in_range
from bot.rules.d20_check._d20 import roll_kept as _roll_kept
from bot.rules.d20_check.checks import (
    ability_modifier,
    proficiency_bonus,
)
from bot.rules.d20_check.items import (
    ItemQuality,
    ItemSaveOutcome,
    item_quality_save,
    item_save_odds,
    quality_save_terms,
)
from bot.rules.errors import RulesError

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


def reroll_attack(
    outcome: AttackOutcome,
    which: int,
    rng: random.Random,
    *,
    weapon_quality: ItemQuality | None = None,
    weapon_magic_bonus: int = 0,
    armor_quality: ItemQuality | None = None,
    armor_magic_bonus: int = 0,
) -> AttackOutcome:
    """Reroll one of the two d20s of an attack made with advantage or disadvantage.

    The text's reroll rule sits with Advantage and Disadvantage, which it gives "on an ability
    check, a saving throw, or an attack roll": "When you have Advantage or Disadvantage and
    something in the game lets you reroll the d20, you can reroll only one of the dice. You
    choose which one." ``which`` is 0 (first) or 1 (second). The new die replaces the chosen
    one, the kept die is chosen again, and the attack is judged as before: same modifiers,
    same AC, same crit rules (ruling 7).

    A quality save is a roll of its own, not the d20: it stands while what called for it
    stands (still a fumble, still a critical), is rolled when the reroll makes a new fumble or
    critical (give the items, as for :class:`AttackInput`), and goes when there is none.
    """
    dice, kept = reroll_kept(outcome.dice, outcome.advantage, which, rng)
    quality_save_terms(weapon_quality, weapon_magic_bonus)
    quality_save_terms(armor_quality, armor_magic_bonus)
    new = replace(outcome, dice=dice, kept=kept, weapon_save=None, armor_save=None)
    if new.fumble:
        if outcome.fumble:
            new = replace(new, weapon_save=outcome.weapon_save)
        elif quality_save_terms(weapon_quality, weapon_magic_bonus):
            save = item_quality_save(rng, weapon_quality, weapon_magic_bonus)
            new = replace(new, weapon_save=save)
    if new.critical:
        if outcome.critical:
            new = replace(new, armor_save=outcome.armor_save)
        elif quality_save_terms(armor_quality, armor_magic_bonus):
            save = item_quality_save(rng, armor_quality, armor_magic_bonus)
            new = replace(new, armor_save=save)
    return new


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
