"""d20 check (`shared/rules/d20-check.txt`, rulings 1–9): tables, rulings, odds, sampling."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import d20_check as d20
from bot.rules.common import Advantage
from bot.rules.d20_check import (
    AttackInput,
    AttackResult,
    CheckInput,
    CheckResult,
    ContestResult,
    ItemQuality,
    ProficiencyDegree,
)
from bot.rules.errors import RulesError
from tests.scripted import ScriptedRandom
from tests.stats import assert_sample_fits

NONE, PROF, EXPERT = ProficiencyDegree.NONE, ProficiencyDegree.PROFICIENT, ProficiencyDegree.EXPERT


# ------------------------------------------------------------------- tables: rulings 1 and 2


def test_proficiency_bonus_for_every_level() -> None:
    expected = [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [6] * 4
    assert [d20.proficiency_bonus(level) for level in range(1, 21)] == expected


@pytest.mark.parametrize("level", [0, 21, -1])
def test_levels_outside_1_to_20_are_refused(level: int) -> None:
    with pytest.raises(RulesError):
        d20.proficiency_bonus(level)


def test_ability_modifier_for_scores_1_to_30() -> None:
    expected = [-5, -4, -4, -3, -3, -2, -2, -1, -1, 0, 0, 1, 1, 2, 2]
    expected += [3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10]
    assert [d20.ability_modifier(score) for score in range(1, 31)] == expected


@pytest.mark.parametrize("score", [0, 31])
def test_scores_out_of_range_are_refused(score: int) -> None:
    with pytest.raises(RulesError):
        d20.ability_modifier(score)


@pytest.mark.parametrize(
    ("text", "degree"),
    [
        ("none", NONE),
        ("Proficient", PROF),
        ("prof", PROF),
        ("EXPERT", EXPERT),
        ("expertise", EXPERT),
    ],
)
def test_degree_parse(text: str, degree: ProficiencyDegree) -> None:
    assert ProficiencyDegree.parse(text) is degree


def test_degree_parse_unknown_and_multipliers() -> None:
    with pytest.raises(RulesError):
        ProficiencyDegree.parse("master")
    assert [d.display for d in ProficiencyDegree] == ["None", "Half", "Proficient", "Expert"]
    # "doubled or halved": of a +3 bonus, 0, 1 (halved, rounded down), 3 and 6.
    assert [d.bonus(3) for d in ProficiencyDegree] == [0, 1, 3, 6]


def test_proficiency_added_once_doubled_once_and_zero_without_it() -> None:
    # "if two different rules say you can add your proficiency bonus … add the bonus only once"
    assert ProficiencyDegree.from_sources(proficient=2) is PROF
    # "multiply … only once": doubled by several features is still Expert (×2), never ×4.
    assert ProficiencyDegree.from_sources(proficient=3, doubled=2) is EXPERT
    # "lack proficiency in the History skill, you gain no benefit from a feature that lets
    # you double your proficiency bonus"
    assert ProficiencyDegree.from_sources(proficient=0, doubled=True) is NONE


def test_abilities_are_a_campaign_setting() -> None:
    assert d20.DEFAULT_ABILITIES == ("STR", "DEX", "CON", "INT", "WIS", "CHA")
    for name in ("Knowledge", "Perception", "Sanity", "Psyche", "Heart", "Vitality", "Mana"):
        assert name in d20.EXTRA_ABILITIES


# ------------------------------------------------------------------------- checks: ruling 1


def test_check_total_and_named_modifiers() -> None:
    outcome = d20.ability_check(
        14,  # +2
        ScriptedRandom(10),
        ability="DEX",
        level=5,  # +3, doubled: +6
        degree=EXPERT,
        bonus=1,
        dc=19,
        proficiency_name="Stealth",
    )
    assert outcome.modifiers == (("DEX", 2), ("Stealth (Expert)", 6), ("bonus", 1))
    assert (outcome.dice, outcome.kept, outcome.total) == ((10,), 10, 19)
    assert outcome.result is CheckResult.SUCCESS and outcome.result_text == "Success"
    assert outcome.kind is d20.CheckKind.ABILITY_CHECK


def test_total_one_below_dc_fails() -> None:
    outcome = d20.ability_check(14, ScriptedRandom(9), ability="DEX", level=5, degree=EXPERT)
    assert outcome.total == 17 and outcome.result is None  # no DC given
    failed = d20.ability_check(14, ScriptedRandom(9), ability="DEX", level=5, bonus=0, dc=14)
    assert failed.total == 11 and failed.result is CheckResult.FAILURE


def test_no_dc_means_the_gm_judges() -> None:
    outcome = d20.ability_check(10, ScriptedRandom(15), ability="WIS", level=1)
    assert outcome.result is None and outcome.succeeded is None and outcome.result_text == "—"


def test_proficiency_label_defaults_and_no_entry_when_untrained() -> None:
    plain = d20.ability_check(10, ScriptedRandom(5), ability="STR", level=9, degree=PROF)
    assert plain.modifiers == (("STR", 0), ("proficiency (Proficient)", 4))
    untrained = d20.ability_check(10, ScriptedRandom(5), ability="STR", level=9)
    assert untrained.modifiers == (("STR", 0),)


def test_natural_20_is_not_an_automatic_success() -> None:
    outcome = d20.ability_check(1, ScriptedRandom(20), ability="STR", level=1, dc=25)
    assert outcome.total == 15 and outcome.result is CheckResult.FAILURE
    save = d20.saving_throw(1, ScriptedRandom(20), ability="CON", level=1, proficient=False, dc=16)
    assert save.result is CheckResult.FAILURE


def test_natural_1_is_not_an_automatic_failure() -> None:
    outcome = d20.ability_check(
        30, ScriptedRandom(1), ability="STR", level=17, degree=EXPERT, dc=20
    )
    assert outcome.total == 1 + 10 + 12 and outcome.result is CheckResult.SUCCESS
    save = d20.saving_throw(30, ScriptedRandom(1), ability="CON", level=20, proficient=True, dc=17)
    assert save.total == 17 and save.result is CheckResult.SUCCESS


def test_invalid_inputs_are_refused() -> None:
    with pytest.raises(RulesError):
        d20.ability_check(10, ScriptedRandom(5), ability="STR", level=0)
    with pytest.raises(RulesError):
        d20.ability_check(10, ScriptedRandom(5), ability="STR", level=1, dc=0)
    with pytest.raises(RulesError):
        d20.ability_check(10, ScriptedRandom(5), ability=" ", level=1)
    with pytest.raises(RulesError):
        d20.ability_check(10, ScriptedRandom(5), ability="STR", level=1, advantage=-1)


# ------------------------------------------------------------------ advantage: ruling 3


@pytest.mark.parametrize(
    ("advantage", "disadvantage", "rolls", "kept", "state"),
    [
        (True, False, [5, 17], 17, Advantage.ADVANTAGE),  # the text's 17 and 5
        (False, True, [17, 5], 5, Advantage.DISADVANTAGE),
        (2, 0, [5, 17], 17, Advantage.ADVANTAGE),  # two sources: still ONE extra d20
        (0, 3, [5, 17], 5, Advantage.DISADVANTAGE),
        (True, True, [5], 5, Advantage.NONE),  # both: neither, one d20
        (3, 1, [12], 12, Advantage.NONE),  # "even if multiple … and only one …"
        (1, 4, [12], 12, Advantage.NONE),
    ],
)
def test_advantage_and_disadvantage(
    advantage: int, disadvantage: int, rolls: list[int], kept: int, state: Advantage
) -> None:
    rng = ScriptedRandom(*rolls)
    outcome = d20.ability_check(
        10, rng, ability="DEX", level=1, advantage=advantage, disadvantage=disadvantage
    )
    assert list(rng.faces) == []  # exactly the scripted number of dice were rolled
    assert outcome.dice == tuple(rolls) and outcome.kept == kept and outcome.advantage is state


# -------------------------------------------------------------------- saving throws: ruling 5


def test_saving_throw_adds_proficiency_only_if_proficient() -> None:
    proficient = d20.saving_throw(
        16, ScriptedRandom(10), ability="WIS", level=5, proficient=True, bonus=-1, dc=15
    )
    assert proficient.modifiers == (("WIS", 3), ("WIS save (Proficient)", 3), ("bonus", -1))
    assert proficient.total == 15 and proficient.result is CheckResult.SUCCESS
    assert proficient.kind is d20.CheckKind.SAVING_THROW
    plain = d20.saving_throw(16, ScriptedRandom(10), ability="WIS", level=5, proficient=False)
    assert plain.modifiers == (("WIS", 3),) and plain.total == 13


def test_saving_throw_with_advantage() -> None:
    outcome = d20.saving_throw(
        10, ScriptedRandom(3, 14), ability="DEX", level=1, proficient=False, advantage=True
    )
    assert outcome.kept == 14


# ------------------------------------------------------------------------- contests: ruling 4


def _check(
    score: int = 10,
    *,
    degree: ProficiencyDegree = NONE,
    bonus: int = 0,
    advantage: int | bool = False,
    disadvantage: int | bool = False,
    name: str = "",
) -> CheckInput:
    return CheckInput(
        score=score,
        ability="STR",
        level=1,
        degree=degree,
        bonus=bonus,
        advantage=advantage,
        disadvantage=disadvantage,
        name=name,
    )


def test_contest_higher_total_wins() -> None:
    a, b = _check(14, name="Ana"), _check(10, name="Orc")
    outcome = d20.contest(a, b, ScriptedRandom(8, 9))  # Ana 10, Orc 9
    assert outcome.result is ContestResult.FIRST_WINS
    assert outcome.winner is outcome.first and outcome.result_text == "Ana wins"
    outcome = d20.contest(a, b, ScriptedRandom(6, 9))  # Ana 8, Orc 9
    assert outcome.result is ContestResult.SECOND_WINS and outcome.result_text == "Orc wins"


def test_contest_tie_changes_nothing() -> None:
    outcome = d20.contest(_check(14), _check(10), ScriptedRandom(7, 9))  # 9 and 9
    assert outcome.result is ContestResult.TIE and outcome.winner is None
    assert outcome.result.display == "tie: nothing changes"
    assert outcome.result_text == "Tie: nothing changes"
    assert outcome.first.result is None and outcome.second.result is None  # no DC in contests


# -------------------------------------------------------------------------------- DCs: ruling 6


def test_weapon_and_spell_dcs() -> None:
    assert d20.weapon_dc(d20.WeaponKind.MELEE, 3, 2) == 13
    assert d20.weapon_dc("ranged", 4, 3) == 15
    assert d20.weapon_dc(" Melee ", -1, 2) == 9
    assert d20.WeaponKind.MELEE.ability == "STR" and d20.WeaponKind.RANGED.ability == "DEX"
    assert d20.spell_save_dc(4, 3) == 15
    with pytest.raises(RulesError):
        d20.weapon_dc("thrown", 1, 2)


# ----------------------------------------------------------------- quality saves: ruling 7


@pytest.mark.parametrize(
    ("quality", "magic", "terms"),
    [
        (None, 0, None),
        (ItemQuality.NOVICE, 0, None),
        (ItemQuality.YEOMAN, 0, None),
        (ItemQuality.ADEPT, 0, (10, 1)),
        (ItemQuality.MASTER, 0, (10, 2)),
        (ItemQuality.GRAND_MASTER, 0, (10, 3)),
        (None, 1, (9, 3)),  # magic: DC 10 − bonus, always +3
        (ItemQuality.NOVICE, 2, (8, 3)),
        (ItemQuality.ADEPT, 3, (7, 3)),
    ],
)
def test_quality_save_dcs(
    quality: ItemQuality | None, magic: int, terms: tuple[int, int] | None
) -> None:
    got = d20.quality_save_terms(quality, magic)
    assert (None if got is None else (got.dc, got.bonus)) == terms


def test_item_quality_save_roll() -> None:
    held = d20.item_quality_save(ScriptedRandom(8), ItemQuality.MASTER)
    assert (held.total, held.dc, held.saved, held.result.display) == (10, 10, True, "Saved")
    broke = d20.item_quality_save(ScriptedRandom(7), ItemQuality.MASTER)
    assert not broke.saved and broke.result is d20.ItemSaveResult.FAILED
    magic = d20.item_quality_save(ScriptedRandom(6), None, magic_bonus=1)
    assert magic.saved and magic.modifiers == (("magic +1 (Grand Master)", 3),)
    with pytest.raises(RulesError):
        d20.item_quality_save(ScriptedRandom(20), ItemQuality.YEOMAN)


@pytest.mark.parametrize("text", ["grand master", "Grand_Master", "GRANDMASTER"])
def test_item_quality_parse(text: str) -> None:
    assert ItemQuality.parse(text) is ItemQuality.GRAND_MASTER


def test_item_save_odds() -> None:
    assert d20.item_save_odds(ItemQuality.NOVICE) == 0
    assert d20.item_save_odds(ItemQuality.ADEPT) == Fraction(12, 20)  # d20 + 1 ≥ 10: 9..20
    assert d20.item_save_odds(None, 2) == Fraction(16, 20)  # d20 + 3 ≥ 8: 5..20


# ---------------------------------------------------------------------- attack rolls: ruling 7


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


# ------------------------------------------------------------------ working together: ruling 8


def test_working_together_gives_the_leader_advantage() -> None:
    rng = ScriptedRandom(4, 16)
    outcome = d20.working_together(_check(12), {"Bo": True, "Cy": False}, rng, dc=15)
    assert outcome.leader.advantage is Advantage.ADVANTAGE and outcome.leader.kept == 16
    assert outcome.helpers == ("Bo",) and outcome.turned_away == ("Cy",)
    assert outcome.leader.result is CheckResult.SUCCESS


def test_helpers_who_could_not_attempt_it_alone_do_not_count() -> None:
    rng = ScriptedRandom(4)  # a single die
    outcome = d20.working_together(_check(12), {"Cy": False}, rng)
    assert outcome.leader.advantage is Advantage.NONE and outcome.helpers == ()


def test_help_cancels_against_disadvantage() -> None:
    rng = ScriptedRandom(4)
    outcome = d20.working_together(_check(12, disadvantage=True), {"Bo": True}, rng)
    assert outcome.leader.advantage is Advantage.NONE


# ---------------------------------------------------------------------- group checks: ruling 9


@pytest.mark.parametrize(
    ("rolls", "successes", "result"),
    [
        ([15, 15, 1, 1], 2, d20.GroupResult.SUCCESS),  # exactly half counts
        ([15, 1, 1, 1], 1, d20.GroupResult.FAILURE),
        ([15, 15, 15, 15], 4, d20.GroupResult.SUCCESS),
    ],
)
def test_group_check_at_least_half(
    rolls: list[int], successes: int, result: d20.GroupResult
) -> None:
    members = {name: _check(10) for name in ("A", "B", "C", "D")}
    outcome = d20.group_check(members, ScriptedRandom(*rolls), dc=10)
    assert outcome.successes == successes and outcome.result is result
    assert [name for name, _ in outcome.members] == ["A", "B", "C", "D"]
    assert outcome.needed == 2


def test_group_check_odd_sizes_round_up() -> None:
    members = {name: _check(10) for name in ("A", "B", "C")}
    assert not d20.group_check(members, ScriptedRandom(15, 1, 1), dc=10).succeeded
    assert d20.group_check(members, ScriptedRandom(15, 15, 1), dc=10).succeeded
    with pytest.raises(RulesError):
        d20.group_check({}, ScriptedRandom(), dc=10)


def test_group_check_members_carry_their_names() -> None:
    outcome = d20.group_check({"Ana": _check(10)}, ScriptedRandom(12), dc=10)
    assert outcome.members[0][1].name == "Ana"


# ---------------------------------------------------------------------------------- exact odds


def test_check_odds_by_hand() -> None:
    plain = _check(10)  # +0
    assert d20.check_odds(plain, 11) == Fraction(1, 2)
    assert d20.check_odds(_check(10, advantage=True), 11) == Fraction(3, 4)
    assert d20.check_odds(_check(10, disadvantage=True), 11) == Fraction(1, 4)
    assert d20.check_odds(_check(10, advantage=2, disadvantage=1), 11) == Fraction(1, 2)
    assert d20.check_odds(plain, 21) == 0  # no automatic success on a 20
    assert d20.check_odds(_check(30), 2) == 1  # no automatic failure on a 1


def test_total_distribution_shape() -> None:
    dist = d20.total_distribution(_check(14, degree=PROF, bonus=1))  # +2 +2 +1
    assert dist == {t: Fraction(1, 20) for t in range(6, 26)}


def test_contest_odds_by_hand() -> None:
    same = d20.contest_odds(_check(10), _check(10))
    assert same == (Fraction(190, 400), Fraction(190, 400), Fraction(20, 400))


def test_group_check_odds_brute_force() -> None:
    members = {"A": _check(8), "B": _check(12, advantage=True), "C": _check(16, degree=PROF)}
    dc = 13
    ps = [d20.check_odds(m, dc) for m in members.values()]
    brute = Fraction(0)
    for outcome in itertools.product([True, False], repeat=3):
        p = Fraction(1)
        for ok, q in zip(outcome, ps, strict=True):
            p *= q if ok else 1 - q
        if 2 * sum(outcome) >= 3:
            brute += p
    assert d20.group_check_odds(members, dc) == brute
    # Two members: one success of two is already "at least half".
    pair = {"A": _check(10), "B": _check(10)}
    assert d20.group_check_odds(pair, 11) == 1 - Fraction(1, 4)


def test_attack_odds_by_hand() -> None:
    attack = AttackInput(
        ac=15, score=16, level=1, crit_rules=True, weapon_quality=ItemQuality.MASTER
    )
    odds = d20.attack_odds(attack)
    assert odds.hit == Fraction(11, 20)  # 10..20
    assert odds.critical == Fraction(1, 20) and odds.fumble == Fraction(1, 20)
    assert odds.weapon_breaks == Fraction(1, 20) * Fraction(7, 20)  # save fails on 1..7
    assert odds.lowers_target_ac == Fraction(1, 20)
    off = d20.attack_odds(AttackInput(ac=15, score=16, level=1))
    assert (off.critical, off.fumble, off.weapon_breaks) == (0, 0, 0)
    out_of_reach = d20.attack_odds(AttackInput(ac=30, attack_bonus=5, crit_rules=True))
    assert out_of_reach.hit == 0 and out_of_reach.critical == 0
    with_adv = d20.attack_odds(AttackInput(ac=15, attack_bonus=0, advantage=True, crit_rules=True))
    assert with_adv.critical == Fraction(39, 400) and with_adv.fumble == Fraction(1, 400)


# -------------------------------------------------------------------------------- properties

scores = st.integers(min_value=1, max_value=30)
levels = st.integers(min_value=1, max_value=20)
degrees = st.sampled_from(list(ProficiencyDegree))
bonuses = st.integers(min_value=-5, max_value=5)
dcs = st.integers(min_value=1, max_value=35)


@given(scores, levels, degrees, bonuses, dcs)
def test_advantage_never_worse_than_straight(
    score: int, level: int, degree: ProficiencyDegree, bonus: int, dc: int
) -> None:
    def odds(**kw: bool) -> Fraction:
        check = CheckInput(score=score, ability="X", level=level, degree=degree, bonus=bonus, **kw)
        return d20.check_odds(check, dc)

    straight = odds()
    assert 0 <= odds(disadvantage=True) <= straight <= odds(advantage=True) <= 1


@given(scores, levels, degrees, bonuses, dcs)
def test_more_of_anything_is_never_worse(
    score: int, level: int, degree: ProficiencyDegree, bonus: int, dc: int
) -> None:
    base = CheckInput(score=score, ability="X", level=level, degree=degree, bonus=bonus)
    p = d20.check_odds(base, dc)
    if score < 30:
        assert d20.check_odds(CheckInput(**{**_fields(base), "score": score + 1}), dc) >= p
    if level < 20:
        assert d20.check_odds(CheckInput(**{**_fields(base), "level": level + 1}), dc) >= p
    if degree is not EXPERT:
        ladder = [NONE, ProficiencyDegree.HALF, PROF, EXPERT]  # each adds no less
        better = ladder[ladder.index(degree) + 1]
        assert d20.check_odds(CheckInput(**{**_fields(base), "degree": better}), dc) >= p
    assert d20.check_odds(CheckInput(**{**_fields(base), "bonus": bonus + 1}), dc) >= p


def _fields(check: CheckInput) -> dict[str, object]:
    return {name: getattr(check, name) for name in CheckInput.__dataclass_fields__}


@given(scores, scores, st.booleans(), st.booleans())
def test_contest_odds_are_a_distribution(a: int, b: int, adv: bool, dis: bool) -> None:
    first = CheckInput(score=a, ability="STR", level=1, advantage=adv)
    second = CheckInput(score=b, ability="STR", level=1, disadvantage=dis)
    win_a, win_b, tie = d20.contest_odds(first, second)
    assert win_a + win_b + tie == 1
    assert all(0 <= p <= 1 for p in (win_a, win_b, tie))
    assert d20.contest_odds(second, first) == (win_b, win_a, tie)


@given(st.lists(st.tuples(scores, st.booleans()), min_size=1, max_size=6), dcs)
def test_group_odds_in_range(members: list[tuple[int, bool]], dc: int) -> None:
    named = {
        f"m{i}": CheckInput(score=s, ability="WIS", level=1, advantage=a)
        for i, (s, a) in enumerate(members)
    }
    assert 0 <= d20.group_check_odds(named, dc) <= 1


@given(scores, levels, bonuses, st.booleans(), st.booleans())
def test_distribution_sums_to_one(score: int, level: int, bonus: int, a: bool, d: bool) -> None:
    dist = d20.total_distribution(
        CheckInput(score=score, ability="X", level=level, bonus=bonus, advantage=a, disadvantage=d)
    )
    assert sum(dist.values()) == 1


# ---------------------------------------------------------------------------------- sampling


def test_sampled_totals_match_the_exact_distribution() -> None:
    rng = random.Random(424242)
    for check in (
        _check(14, degree=PROF),
        _check(8, advantage=True),
        _check(17, disadvantage=2, bonus=2),
    ):
        counts = Counter(d20.roll_check(check, rng).total for _ in range(8000))
        assert_sample_fits(counts, d20.total_distribution(check))


def test_sampled_contests_and_group_checks_match_exact_odds() -> None:
    rng = random.Random(5150)
    a, b = _check(14, advantage=True), _check(16)
    win_a, win_b, tie = d20.contest_odds(a, b)
    counts = Counter(d20.contest(a, b, rng).result for _ in range(6000))
    assert_sample_fits(
        counts,
        {ContestResult.FIRST_WINS: win_a, ContestResult.SECOND_WINS: win_b, ContestResult.TIE: tie},
    )
    members = {"A": _check(8), "B": _check(12, advantage=True), "C": _check(16, degree=PROF)}
    p = d20.group_check_odds(members, 13)
    group = Counter(d20.group_check(members, rng, 13).succeeded for _ in range(6000))
    assert_sample_fits(group, {True: p, False: 1 - p})


def test_sampled_attacks_match_exact_odds() -> None:
    rng = random.Random(8086)
    attack = AttackInput(
        ac=14, attack_bonus=4, crit_rules=True, weapon_quality=ItemQuality.ADEPT, advantage=True
    )
    odds = d20.attack_odds(attack)
    counts: Counter[str] = Counter()
    for _ in range(20000):
        outcome = d20.roll_attack(attack, rng)
        if outcome.fumble:
            counts["broken" if outcome.weapon_breaks else "held"] += 1
        elif outcome.critical:
            counts["critical"] += 1
        else:
            counts["hit" if outcome.hit else "miss"] += 1
    fumble_hits = Fraction(0)  # a natural 1 + 4 never reaches AC 14
    expected = {
        "broken": odds.weapon_breaks,
        "held": odds.fumble - odds.weapon_breaks,
        "critical": odds.critical,
        "hit": odds.hit - odds.critical - fumble_hits,
        "miss": 1 - odds.hit - odds.fumble,
    }
    assert sum(expected.values()) == 1
    assert_sample_fits(counts, expected)


# --- rerolling one die of an attack -----------------------------------------------------------
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
