"""d20 check ruling 7: attack rolls against AC, critical hits and fumbles, rerolling one die.

Tests bot/rules/d20_check/attacks.py.
"""

from __future__ import annotations

import itertools

import pytest

from bot.rules import d20_check as d20
from bot.rules.common import Advantage
from bot.rules.d20_check import (
    AttackInput,
    AttackResult,
    ItemQuality,
)
from bot.rules.errors import RulesError
from tests.scripted import ScriptedRandom


def test_attack_hits_on_total_vs_ac() -> None:
    hit = d20.attack_roll(ScriptedRandom(10), ac=15, score=16, level=1)
    assert hit.modifiers == (("STR", 3), ("proficiency", 2)) and hit.total == 15
    assert hit.result is AttackResult.HIT
    miss = d20.attack_roll(ScriptedRandom(9), ac=15, score=16, level=1)
    assert miss.result is AttackResult.MISS


def test_crits_are_off_by_default() -> None:
    nat20 = d20.attack_roll(ScriptedRandom(20), ac=10, attack_bonus=5)
    assert nat20.result is AttackResult.HIT and not nat20.critical and not nat20.lowers_target_ac
    nat1 = d20.attack_roll(ScriptedRandom(1), ac=10, attack_bonus=5, weapon_quality=None)
    assert not nat1.fumble and not nat1.weapon_breaks


def test_natural_20_does_not_hit_ac_30() -> None:
    # The text: crits "do not work well in a game where something can have an Armor Class of 30".
    outcome = d20.attack_roll(ScriptedRandom(20), ac=30, attack_bonus=5, crit_rules=True)
    assert outcome.result is AttackResult.MISS and not outcome.critical


def test_critical_hit_lowers_the_targets_ac() -> None:
    outcome = d20.attack_roll(ScriptedRandom(20), ac=18, attack_bonus=0, crit_rules=True)
    assert outcome.result is AttackResult.CRITICAL_HIT and outcome.lowers_target_ac
    assert outcome.armor_save is None and outcome.result_text == "Critical Hit"


def test_critical_against_good_armour_rolls_its_quality_save() -> None:
    def crit(save_roll: int) -> d20.AttackOutcome:
        return d20.attack_roll(
            ScriptedRandom(20, save_roll),
            ac=18,
            attack_bonus=0,
            crit_rules=True,
            armor_quality=ItemQuality.GRAND_MASTER,
        )

    saved = crit(7)  # 7 + 3 = 10: the armour holds
    assert saved.critical and saved.armor_save is not None and not saved.lowers_target_ac
    assert saved.result_text == "Critical Hit — the armour holds"
    assert crit(6).lowers_target_ac


def test_fumble_breaks_a_novice_weapon_without_a_save() -> None:
    rng = ScriptedRandom(1)  # one die only: no save may be rolled
    outcome = d20.attack_roll(
        rng, ac=10, attack_bonus=3, crit_rules=True, weapon_quality=ItemQuality.NOVICE
    )
    assert outcome.fumble and outcome.weapon_save is None and outcome.weapon_breaks
    assert outcome.result is AttackResult.MISS
    assert outcome.result_text == "Miss — fumble: the weapon breaks"


@pytest.mark.parametrize(
    ("quality", "magic", "save_roll", "breaks"),
    [
        (ItemQuality.ADEPT, 0, 9, False),
        (ItemQuality.ADEPT, 0, 8, True),
        (ItemQuality.MASTER, 0, 8, False),
        (ItemQuality.MASTER, 0, 7, True),
        (ItemQuality.GRAND_MASTER, 0, 7, False),
        (ItemQuality.GRAND_MASTER, 0, 6, True),
        (None, 2, 5, False),  # DC 8, +3
        (None, 2, 4, True),
    ],
)
def test_fumble_quality_save(
    quality: ItemQuality | None, magic: int, save_roll: int, breaks: bool
) -> None:
    outcome = d20.attack_roll(
        ScriptedRandom(1, save_roll),
        ac=10,
        attack_bonus=3,
        crit_rules=True,
        weapon_quality=quality,
        weapon_magic_bonus=magic,
    )
    assert outcome.fumble and outcome.weapon_save is not None
    assert outcome.weapon_save.roll == save_roll and outcome.weapon_breaks is breaks


def test_fumble_uses_the_kept_die_under_advantage() -> None:
    rng = ScriptedRandom(1, 12)
    outcome = d20.attack_roll(rng, ac=10, attack_bonus=0, advantage=True, crit_rules=True)
    assert outcome.kept == 12 and not outcome.fumble and outcome.hit


def test_attack_input_needs_bonus_or_score_and_level() -> None:
    with pytest.raises(RulesError):
        AttackInput(ac=12)
    with pytest.raises(RulesError):
        AttackInput(ac=12, attack_bonus=4, score=14, level=1)
    with pytest.raises(RulesError):
        AttackInput(ac=12, score=14)


# The text's reroll rule sits with Advantage and Disadvantage, which come "on an ability check,
# a saving throw, or an attack roll": "When you have Advantage or Disadvantage and something in
# the game lets you reroll the d20, you can reroll only one of the dice. You choose which one."
def test_reroll_attack_replaces_the_chosen_die_and_judges_against_the_same_ac() -> None:
    attack = d20.AttackInput(ac=15, attack_bonus=5, disadvantage=True)
    first = d20.roll_attack(attack, ScriptedRandom(17, 5))
    assert first.kept == 5 and not first.hit
    second = d20.reroll_attack(first, 1, ScriptedRandom(15))
    assert second.dice == (17, 15) and second.kept == 15 and second.total == 20 and second.hit
    assert second.ac == 15 and second.modifiers == first.modifiers
    assert second.advantage is Advantage.DISADVANTAGE
    single = d20.roll_attack(d20.AttackInput(ac=15, attack_bonus=5), ScriptedRandom(9))
    with pytest.raises(RulesError, match="advantage or disadvantage"):
        d20.reroll_attack(single, 0, ScriptedRandom(3))


@pytest.mark.parametrize("advantage", [True, False])
def test_a_rerolled_attack_is_judged_as_an_attack_rolled_with_those_dice(advantage: bool) -> None:
    # Every pair of dice, either die, every new face: hit, critical and fumble are exactly
    # those of an attack that rolled the new pair (crit rules on, items without saves).
    attack = d20.AttackInput(
        ac=16, attack_bonus=4, advantage=advantage, disadvantage=not advantage, crit_rules=True
    )
    for a, b, which, face in itertools.product(range(1, 21), range(1, 21), (0, 1), range(1, 21)):
        first = d20.roll_attack(attack, ScriptedRandom(a, b))
        again = d20.reroll_attack(first, which, ScriptedRandom(face))
        dice = (face, b) if which == 0 else (a, face)
        assert again == d20.roll_attack(attack, ScriptedRandom(*dice))


def test_a_quality_save_stands_while_what_called_for_it_stands() -> None:
    # "Higher quality objects have a save against the Critical" and a fumble's weapon "gets a
    # save": a save is a roll of its own, not the d20 a reroll replaces.
    master = d20.ItemQuality.MASTER
    attack = d20.AttackInput(
        ac=15, attack_bonus=5, advantage=True, crit_rules=True, armor_quality=master
    )
    crit = d20.roll_attack(attack, ScriptedRandom(20, 3, 4))  # armour: 4 + 2 = 6, gives way
    assert crit.critical and crit.armor_save is not None and crit.lowers_target_ac
    items = {"armor_quality": master, "weapon_quality": master}
    # Still a critical (the 20 is kept): the save stands, and no die but the d20 is rolled.
    kept = d20.reroll_attack(crit, 1, ScriptedRandom(7), **items)
    assert kept.critical and kept.armor_save == crit.armor_save
    # No longer a critical: no save.
    gone = d20.reroll_attack(crit, 0, ScriptedRandom(6), **items)
    assert not gone.critical and gone.armor_save is None and not gone.lowers_target_ac
    # A new critical rolls the armour's save: 9 + 2 = 11 against DC 10, it holds.
    miss = d20.roll_attack(attack, ScriptedRandom(4, 3))
    made = d20.reroll_attack(miss, 0, ScriptedRandom(20, 9), **items)
    assert made.critical and made.armor_save is not None and made.armor_save.saved
    assert not made.lowers_target_ac
    # A new fumble rolls the weapon's: disadvantage, 12 and 9, the 9 becomes a natural 1; the
    # Master weapon's save 8 + 2 = 10 holds.
    low = d20.AttackInput(ac=15, attack_bonus=5, disadvantage=True, crit_rules=True)
    plain = d20.roll_attack(low, ScriptedRandom(12, 9))
    fumble = d20.reroll_attack(plain, 1, ScriptedRandom(1, 8), **items)
    assert fumble.fumble and fumble.weapon_save is not None and not fumble.weapon_breaks
