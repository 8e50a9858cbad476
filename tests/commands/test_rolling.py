"""The rolling commands' table holds together with the rule systems and the roll options.

Tests bot/commands/rolling.py.
"""

from __future__ import annotations

from dataclasses import fields, replace
from types import SimpleNamespace
from typing import Any

import pytest

from bot.commands import ROLLING, Rolls, Word, secrecy_defaults, spelled
from bot.commands.rolling import contest_options, group_options
from bot.errors import UserError
from bot.rules.systems import SYSTEMS, CheckOptions, System
from bot.services.rolling.attacks import AttackOptions
from bot.services.rolling.groups import MemberSpec, check_spec
from bot.services.trust.secrecy import SECRECY_COMMANDS
from bot.words import SecrecyCommand, Visibility


def test_each_option_a_system_declares_is_an_option_of_the_table() -> None:
    """A system adapter that takes an option the table lacks could never be given it."""
    missing = []
    for system in SYSTEMS.values():
        for rolls, declared in (
            (Rolls.CHECK, system.check_options),
            (Rolls.SAVE, system.save_options or frozenset()),
            (Rolls.GROUP, group_options(system)),
            (Rolls.CONTEST, contest_options(system)),
        ):
            commands = [c for c in ROLLING.values() if c.rolls is rolls]
            if rolls is Rolls.GROUP:
                # A group roll's options are those of any of them (/groupsave has no proficiency).
                keys = {o.key for c in commands for o in c.options if o.field}
                missing += [f"{system.key}: no group roll has {k}" for k in declared - keys]
                continue
            for command in commands:
                keys = {o.key for o in command.options if o.field}
                missing += [f"{system.key}: /{command.name} has no {k}" for k in declared - keys]
    assert missing == []


def test_every_option_of_a_check_or_save_is_some_system_s() -> None:
    unused = [
        f"/{command.name} {option.name}"
        for command in ROLLING.values()
        if command.rolls in (Rolls.CHECK, Rolls.SAVE, Rolls.GROUP, Rolls.CONTEST)
        for option in command.options
        if not command.systems_for(option)
    ]
    assert unused == []


def test_each_option_fills_a_field_of_the_roll_options() -> None:
    """The builders pass the table's fields by name: each must be a field of its options."""
    owners = {Rolls.CHECK: CheckOptions, Rolls.SAVE: CheckOptions, Rolls.ATTACK: AttackOptions}
    wrong = [
        f"/{command.name} {option.name} -> {option.key}"
        for command in ROLLING.values()
        if command.rolls in owners
        for option in command.options
        if option.field and option.key not in {f.name for f in fields(owners[command.rolls])}
    ]
    assert wrong == []
    # Commands that roll no options object give none.
    assert [
        c.name for c in ROLLING.values() if c.rolls in (Rolls.DICE, Rolls.LUCK) and c.fields({})
    ] == []


def test_each_word_of_a_roll_text_is_one_command_s() -> None:
    spelled_by = [c.spelling.word for c in ROLLING.values() if c.spelling is not None]
    assert sorted(spelled_by) == sorted(Word)
    assert {word: spelled(word).name for word in Word} == {
        "roll": "roll",
        "check": "check",
        "save": "save",
        "attack": "attack",
        "luck": "luck",
    }


def test_who_sees_each_roll_by_default_is_the_table_s() -> None:
    # The GM's rolls for players are blind unless the campaign says otherwise.
    assert SECRECY_COMMANDS == {
        "roll": "public",
        "check": "public",
        "save": "public",
        "luck": "public",
        "gm-roll": "blind",
        "gm-check": "blind",
    }
    assert set(SECRECY_COMMANDS) == set(SecrecyCommand)
    # /attack takes /check's setting; two commands of one setting must agree.
    assert ROLLING["attack"].secrecy is SecrecyCommand.CHECK
    disagreeing = [*ROLLING.values(), replace(ROLLING["attack"], visibility=Visibility.GM)]
    with pytest.raises(ValueError, match="/attack: two defaults for check"):
        secrecy_defaults(disagreeing)


def test_the_system_only_commands_are_refused_where_their_rule_is_missing() -> None:
    """The table's rule is bot/rules/systems/commands.py's (one list of system-only leaves)."""
    assert ROLLING["attack"].rule == "attacks"
    assert [s.key for s in ROLLING["attack"].systems()] == ["d20-check"]
    assert [s.key for s in ROLLING["odds luck"].systems()] == ["pen-and-dagger"]
    assert len(ROLLING["check"].systems()) == len(SYSTEMS)


#: A value of each option of a group roll, as its cog passes it to the service.
_GROUP_VALUES: dict[str, dict[str, Any]] = {
    "dc": {"dc": 12},
    "hidden_dc": {"dc": 12},  # the request's dc, hidden (bot/services/table/requests.py)
    "difficulty": {"difficulty": "hard"},
    "proficiency": {"proficiency": "Survival"},
    "save": {"save": True},
}


def _group_takes(system: System, **given: Any) -> bool:
    campaign = SimpleNamespace(rules=system, ability=lambda name: name)
    try:
        check_spec(campaign, MemberSpec("WIS", **given), what="/groupcheck")  # type: ignore[arg-type]
    except UserError:
        return False
    return True


@pytest.mark.parametrize("name", ["groupsave", "groupcheck", "gm request roll"])
def test_the_systems_said_to_take_a_group_roll_s_option_are_those_that_take_it(name: str) -> None:
    """docs/commands.md's systems for a group roll's option are the ones the group rolls'
    service lets through (each system's group rules), tried one option at a time."""
    command = ROLLING[name]
    wrong = []
    for option in (o for o in command.options if o.field and o.key != "ability"):
        said = {s.key for s in command.systems_for(option)}
        for system in command.systems():
            # Where a target is needed (threshold), the option is tried beside one.
            target = {} if _group_takes(system) else {"difficulty": "easy"}
            if option.key in ("dc", "hidden_dc"):
                target = {}
            took = _group_takes(system, **{**target, **_GROUP_VALUES[option.key]})
            if took != (system.key in said):
                wrong.append(f"/{name} {option.name} in {system.key}: takes it {took}")
    assert wrong == []


def test_a_contest_s_sides_are_for_the_systems_whose_contests_take_them() -> None:
    contest = ROLLING["contest"]
    assert [s.key for s in contest.systems()] == [
        s.key for s in SYSTEMS.values() if s.key in ("roll-under", "d20-check")
    ]
    sides = [s.key for s in contest.systems_for(contest.option("first_roll"))]
    assert sides == [
        s.key for s in SYSTEMS.values() if s.contest_sides is None and s in contest.systems()
    ]
    assert sides == ["d20-check"]
