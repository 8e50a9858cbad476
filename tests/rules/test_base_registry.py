"""The rule-system registry: every stored key has a system, and each system reads its own rolls."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.db.models import RuleSystem
from bot.rules import d20_check, roll_under, threshold
from bot.rules import pen_and_dagger as pd
from bot.rules.errors import RulesError
from bot.rules.systems import (
    SYSTEMS,
    Feature,
    Tone,
    read,
    register,
    system_for,
    system_of,
    unregister,
)
from bot.rules.systems.base import Defaults, Reading, Skill, per_system
from bot.rules.systems.d20 import group_verdict


def test_every_stored_key_is_registered_in_setup_order() -> None:
    assert list(SYSTEMS) == [s.value for s in RuleSystem]
    for key in RuleSystem:
        assert system_for(key).key == key.value


def test_an_unknown_key_names_the_known_ones() -> None:
    with pytest.raises(Exception, match="Unknown rule system “gurps”: choose one of pen-and"):
        system_for("gurps")


def test_each_outcome_is_read_by_its_own_system() -> None:
    rng = random.Random(7)
    attempt = pd.attempt(pd.Rank.parse("Trained"), rng)
    save = roll_under.save(12, rng, ability=roll_under.Ability.parse("AGI"))
    test = threshold.roll_test(2, 12, rng, attribute="DEX")
    check = d20_check.roll_check(d20_check.CheckInput(score=14, ability="STR", level=3), rng, dc=12)
    for outcome, key in (
        (attempt, "pen-and-dagger"),
        (save, "roll-under"),
        (test, "threshold"),
        (check, "d20-check"),
    ):
        found = system_of(outcome)
        assert found is not None and found.key == key
    assert read(save).passed is save.passed
    assert read(save).dice == (save.roll,)
    assert read(check).passed is check.succeeded
    assert read(check).total == check.total


def test_a_d20_check_without_a_dc_reads_as_its_total() -> None:
    check = d20_check.roll_check(
        d20_check.CheckInput(score=3, ability="STR", level=1), random.Random(1), None
    )
    reading = read(check)
    assert reading.passed is None and reading.tone is Tone.NEUTRAL
    assert reading.result.startswith("Total ") and str(abs(check.total)) in reading.result


@pytest.mark.parametrize(
    ("passed", "members", "ok", "words"),
    [
        (2, 4, True, "Group Success: 2 of 4 succeeded (2 needed)"),
        (1, 3, False, "Group Failure: 1 of 3 succeeded (2 needed)"),
        (2, 3, True, "Group Success: 2 of 3 succeeded (2 needed)"),
    ],
)
def test_d20_group_checks_need_at_least_half(
    passed: int, members: int, ok: bool, words: str
) -> None:
    """d20 check ruling 9: the group succeeds when at least half its members succeed."""
    assert group_verdict(passed, members) == (ok, words)


@dataclass(frozen=True)
class _Marker:
    value: int


@dataclass(frozen=True)
class _Toy(Defaults):
    key: str = "toy-test"
    name: str = "Toy"
    outcome_types: tuple[type, ...] = (_Marker,)
    score_range: tuple[int, int] = (0, 1)


def test_registering_is_seen_live_and_undone() -> None:
    names = per_system(lambda s: s.name)
    toy = _Toy()
    register(toy)  # type: ignore[arg-type]  # a partial system: only what this test reads
    try:
        assert names["toy-test"] == "Toy"
        assert system_of(_Marker(1)) is toy
    finally:
        unregister("toy-test")
    assert "toy-test" not in names and system_of(_Marker(1)) is None


@dataclass(frozen=True)
class _Coin(Defaults):
    """A toy whose reading says which registration read it."""

    key: str = "coin-test"
    name: str = "Coin"
    outcome_types: tuple[type, ...] = (_Marker,)
    word: str = "Heads"

    def read(self, outcome: object) -> Reading:
        assert isinstance(outcome, _Marker)
        return Reading((outcome.value,), self.word, True, Tone.SUCCESS)


def test_a_reading_follows_the_registry_not_an_earlier_read() -> None:
    # read() keeps its last answer for the same outcome object (a check's service and its embed
    # both read it); a change of registry must not serve that answer again.
    marker = _Marker(1)
    register(_Coin())  # type: ignore[arg-type]
    try:
        assert read(marker).result == "Heads"
        assert read(marker).result == "Heads"
        register(_Coin(word="Tails"))  # type: ignore[arg-type]  # replaces the key's system
        assert read(marker).result == "Tails"
    finally:
        unregister("coin-test")
    with pytest.raises(TypeError, match="no registered system"):
        read(marker)


@dataclass(frozen=True)
class _Tiers:
    very_easy: int = 6
    easy: int = 8
    moderate: int = 10
    hard: int = 12
    very_hard: int = 14


@dataclass(frozen=True)
class _Table:
    ability_names: tuple[str, ...]
    tiers: _Tiers = _Tiers()
    carry_over: bool = False
    luck_trade: bool = False

    def ability(self, name: str) -> str:
        return name


@dataclass(frozen=True)
class _Sheet:
    name: str = "Mira"
    level: int = 1
    fortune: int = 1
    double_fortune: bool = False
    scores: Mapping[str, int] = field(default_factory=dict)
    proficiencies: Mapping[str, Skill] = field(default_factory=dict)
    save_proficiencies: frozenset[str] = frozenset()
    null_bonus: int | None = None


@pytest.mark.parametrize("key", [s.value for s in RuleSystem])
def test_a_system_has_a_luck_roll_exactly_when_it_lists_the_feature(key: str) -> None:
    # /luck and [[luck]] ask plan_luck; /macro save asks Feature.LUCK before any character
    # exists: the two answers must agree, or a saved macro would be refused when run.
    system = system_for(key)
    low, _high = system.score_range
    sheet = _Sheet(scores={a: low for a in system.abilities}, proficiencies={})
    plan = system.plan_luck(_Table(system.abilities), sheet)
    assert (plan is not None) == (Feature.LUCK in system.features)


@pytest.mark.parametrize("key", [s.value for s in RuleSystem])
def test_a_save_dc_from_a_character_is_computed_where_saves_take_against(key: str) -> None:
    # d20 check ruling 6: a melee Weapon DC is 8 + STR modifier + proficiency bonus.
    system = system_for(key)
    table = _Table(system.abilities)
    if "against" not in (system.save_options or ()):
        with pytest.raises(RulesError, match="computes no DC from a character"):
            system.save_dc(table, "melee")
        return
    with pytest.raises(RulesError, match="Unknown against “bow”: use melee, ranged or spell"):
        system.save_dc(table, "bow")
    dc, note = system.save_dc(table, " Melee ")(_Sheet(name="Orc", level=5, scores={"STR": 16}))
    assert (dc, note) == (14, "Orc's melee Weapon DC 14 (8 + 3 STR + 3 proficiency)")


BOT = Path(__file__).resolve().parents[2] / "bot"


def _outcome_classes() -> set[str]:
    """The name of every outcome class the rules define, and of every registered one."""
    names = {kind.__name__ for system in SYSTEMS.values() for kind in system.outcome_types}
    for path in (BOT / "rules").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Outcome"):
                names.add(node.name)
    return names


def _names(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    else:  # a tuple of types, or a union (A | B)
        for child in ast.iter_child_nodes(node):
            yield from _names(child)


def test_only_the_rules_ask_what_type_an_outcome_is() -> None:
    """Services, renderers and cogs ask an outcome's system how it reads, what it offers and
    how it is stored (docs/rules/README.md); they never test its type."""
    outcomes = _outcome_classes()
    assert {"AttemptOutcome", "LuckOutcome", "SaveOutcome", "ContestOutcome"} <= outcomes
    assert {"ThresholdOutcome", "CheckOutcome", "D20ContestOutcome"} <= outcomes
    found = []
    for path in sorted(BOT.rglob("*.py")):
        if BOT / "rules" in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass")
                and len(node.args) == 2
            ):
                asked = sorted(set(_names(node.args[1])) & outcomes)
                if asked:
                    found.append(f"{path.relative_to(BOT.parent)}:{node.lineno} {asked}")
    assert found == []
