"""The rolling commands' table holds together with the rule systems and the roll options."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from bot.commands import ROLLING, Rolls, Word, secrecy_defaults, spelled
from bot.rules.systems import SYSTEMS, CheckOptions
from bot.services.rolling.attacks import AttackOptions
from bot.services.trust.secrecy import SECRECY_COMMANDS
from bot.words import SecrecyCommand, Visibility


def test_each_option_a_system_declares_is_an_option_of_the_table() -> None:
    """A system adapter that takes an option the table lacks could never be given it."""
    missing = []
    for system in SYSTEMS.values():
        for rolls, declared in (
            (Rolls.CHECK, system.check_options),
            (Rolls.SAVE, system.save_options or frozenset()),
        ):
            for command in (c for c in ROLLING.values() if c.rolls is rolls):
                keys = {o.key for o in command.options if o.field}
                missing += [f"{system.key}: /{command.name} has no {k}" for k in declared - keys]
    assert missing == []


def test_every_option_of_a_check_or_save_is_some_system_s() -> None:
    unused = [
        f"/{command.name} {option.name}"
        for command in ROLLING.values()
        if command.rolls in (Rolls.CHECK, Rolls.SAVE)
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
        for option in command.options
        if option.field
        and option.key not in {f.name for f in fields(owners.get(command.rolls, CheckOptions))}
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
