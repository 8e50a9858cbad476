"""The slash commands, the inline grammar and /help say what the rolling commands' table says.

The bot is built as the synced tree is (tests/scenarios/command_tree.py) and compared with
``bot.commands.ROLLING`` by tests/commands/drift.py; a changed copy of the table shows each
kind of drift is caught and named by command and option.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from bot.commands import ROLLING, Complete, Kind, Option, RollingCommand, Rolls, Where, Who
from bot.commands.rolling import NAME
from tests.commands.drift import grammar_problems, help_problems, tree_problems
from tests.fixtures.commands import Built

Table = dict[str, RollingCommand]


def problems(table: Table, built: Built) -> list[str]:
    return [
        *tree_problems(table, built.payload, built.callbacks),
        *grammar_problems(table),
        *help_problems(table, built.topics, built.systems),
    ]


def test_the_bot_says_what_the_table_says(built: Built) -> None:
    assert problems(dict(ROLLING), built) == []
    # Every rolling command was compared: each is a leaf of the synced tree.
    assert set(ROLLING) <= set(built.callbacks)
    # The group rolls and the contest among them.
    assert {"groupsave", "groupcheck", "gm request roll", "contest"} <= set(ROLLING)


# --- a changed copy of the table is caught, by name -------------------------------------------


def _option(command: str, option: str, **changes: Any) -> Callable[[Table], None]:
    def change(table: Table) -> None:
        found = table[command]
        table[command] = replace(
            found,
            options=tuple(replace(o, **changes) if o.name == option else o for o in found.options),
        )

    return change


def _shape(command: str, option: str, **changes: Any) -> Callable[[Table], None]:
    def change(table: Table) -> None:
        _option(command, option, shape=replace(table[command].option(option).shape, **changes))(
            table
        )

    return change


def _command(command: str, **changes: Any) -> Callable[[Table], None]:
    def change(table: Table) -> None:
        table[command] = replace(table[command], **changes)

    return change


def _options(command: str, edit: Callable[[tuple[Option, ...]], tuple[Option, ...]]) -> Any:
    def change(table: Table) -> None:
        table[command] = replace(table[command], options=edit(table[command].options))

    return change


DRIFTS: list[tuple[str, Callable[[Table], None], list[str]]] = [
    (
        "range",
        _shape("check", "dc", high=99),
        [
            "/check dc: max_value 100 in the tree, 99 in the table",
            "/check dc: the inline grammar takes dc:100, which the table refuses",
        ],
    ),
    (
        "length",
        _shape("gm roll", "label", high=101),
        ["/gm roll label: max_length 100 in the tree, 101 in the table"],
    ),
    (
        "choices",
        _shape("save", "against", choices=("melee", "ranged")),
        ["/save against: choices ['melee', 'ranged', 'spell'] in the tree, ['melee', 'ranged']"],
    ),
    (
        "type",
        _shape("odds check", "bonus", kind=Kind.TEXT),
        ["/odds check bonus: type 4 in the tree, 3 in the table"],
    ),
    (
        "required",
        _option("odds attack", "ac", required=False),
        [
            "/odds attack ac: required True in the tree, False in the table",
            "/odds attack ac: /help marks required True",
        ],
    ),
    (
        "option description",
        _option("gm check", "preroll", help="Use a sealed d20"),
        ["/gm check preroll: description"],
    ),
    (
        "autocomplete",
        _option("gm check", "proficiency", complete=Complete.PROFICIENCY),
        ["/gm check proficiency: autocomplete False in the tree, True in the table"],
    ),
    (
        "default",
        _option("attack", "ability", default="DEX"),
        ["/attack ability: default 'STR' in the callback, 'DEX' in the table"],
    ),
    (
        "parameter",
        _option("save", "from", param="frm"),
        [
            "/save from: no parameter frm in the callback",
            "/save from: from:Ann gives frm '<no such field>' inline",
        ],
    ),
    (
        "alias",
        _option("check", "advantage", aliases=("a",)),
        ["/check advantage: the inline grammar does not take `a`"],
    ),
    (
        "added option",
        _options("attack", lambda o: (*o, Option("weapon", NAME, "The weapon used"))),
        [
            "/attack weapon: in the table, not in the command tree",
            "/attack weapon: in the table, not in the inline grammar",
            "/attack weapon: in the table, not in /help",
        ],
    ),
    (
        "removed option",
        _options("check", lambda o: tuple(x for x in o if x.name != "helper")),
        [
            "/check helper: in the command tree, not in the table",
            "/check helper: in the inline grammar, not in the table",
            "/check helper: in /help, not in the table",
        ],
    ),
    (
        "command description",
        _command("check", help="Roll a check"),
        ["/check: description \"Roll your active character's", "in /help, 'Roll a check'"],
    ),
    (
        "where",
        _command("roll", where=Where.SERVER),
        ["/roll: runs anywhere in the tree, only in a server in the table"],
    ),
    (
        "systems",
        _command("check", rolls=Rolls.SAVE),
        ["/check in d20 check: /help system lists"],
    ),
    # The group rolls and the contest, which have no inline spelling.
    (
        "group range",
        _shape("groupsave", "dc", low=0),
        ["/groupsave dc: min_value 1 in the tree, 0 in the table"],
    ),
    (
        "request length",
        _shape("gm request roll", "characters", high=1000),
        ["/gm request roll characters: max_length 6000 in the tree, 1000 in the table"],
    ),
    (
        "contest choices",
        _shape("contest", "first_roll", choices=("advantage",)),
        ["/contest first_roll: choices ['advantage', 'disadvantage'] in the tree, ['advantage']"],
    ),
    (
        "request choices",
        _shape("gm request roll", "default", choices=("roll", "skip")),
        ["/gm request roll default: choices ['roll', 'skip', 'fail'] in the tree, ['roll',"],
    ),
    (
        "contest type",
        _shape("contest", "second_bonus", kind=Kind.TEXT),
        ["/contest second_bonus: type 4 in the tree, 3 in the table"],
    ),
    (
        "contest required",
        _option("contest", "characters", required=False),
        [
            "/contest characters: required True in the tree, False in the table",
            "/contest characters: /help marks required True",
        ],
    ),
    (
        "group option description",
        _option("groupcheck", "dc", help="The DC"),
        ["/groupcheck dc: description"],
    ),
    (
        "group autocomplete",
        _option("groupcheck", "proficiency", complete=Complete.PROFICIENCY),
        ["/groupcheck proficiency: autocomplete False in the tree, True in the table"],
    ),
    (
        "request default",
        _option("gm request roll", "save", default=True),
        ["/gm request roll save: default False in the callback, True in the table"],
    ),
    (
        "contest parameter",
        _option("contest", "second_roll", param="second_mode"),
        ["/contest second_roll: no parameter second_mode in the callback"],
    ),
    (
        "group added option",
        _options("groupsave", lambda o: (*o, Option("proficiency", NAME, "A skill"))),
        [
            "/groupsave proficiency: in the table, not in the command tree",
            "/groupsave proficiency: in the table, not in /help",
        ],
    ),
    (
        "request removed option",
        _options("gm request roll", lambda o: tuple(x for x in o if x.name != "hidden_dc")),
        [
            "/gm request roll hidden_dc: in the command tree, not in the table",
            "/gm request roll hidden_dc: in /help, not in the table",
        ],
    ),
    (
        "group command description",
        _command("groupcheck", help="The party checks"),
        ["/groupcheck: description 'GM: the whole party", "in /help, 'The party checks'"],
    ),
    (
        "group where",
        _command("groupsave", where=Where.ANYWHERE),
        ["/groupsave: runs only in a server in the tree, anywhere in the table"],
    ),
    (
        "who under /gm",
        _command("gm request roll", who=Who.PLAYER),
        ["/gm request roll: who player in the table, but it is under /gm"],
    ),
]


@pytest.mark.parametrize(
    ("change", "expected"), [(c, e) for _, c, e in DRIFTS], ids=[i for i, _, _ in DRIFTS]
)
def test_a_drift_from_the_table_is_named(
    built: Built, change: Callable[[Table], None], expected: list[str]
) -> None:
    table = dict(ROLLING)
    change(table)
    found = problems(table, built)
    for wanted in expected:
        assert any(wanted in problem for problem in found), (wanted, found)
