"""The slash commands, the inline grammar and /help say what the rolling commands' table says.

The bot is built as the synced tree is (tests/scenarios/command_tree.py) and compared with
``bot.commands.ROLLING`` by tests/commands/drift.py; a changed copy of the table shows each
kind of drift is caught and named by command and option.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from discord import app_commands

from bot.cogs.help import command_docs
from bot.commands import ROLLING, Complete, Kind, Option, RollingCommand, Rolls, Where
from bot.commands.rolling import NAME
from bot.render.help import HelpTopic, help_pages
from bot.rules.systems import SYSTEMS
from tests.commands.drift import grammar_problems, help_problems, tree_problems
from tests.scenarios.command_tree import built_bot, built_tree

Table = dict[str, RollingCommand]


@dataclass(frozen=True)
class Built:
    """What the bot shows of its commands: the synced payload, the callbacks, /help's text."""

    payload: list[dict[str, Any]]
    callbacks: dict[str, app_commands.Command[Any, ..., Any]]
    topics: str
    systems: dict[str, str]


def _text(embed: Any) -> str:
    return "\n".join([embed.description or "", *(f.value or "" for f in embed.fields)])


async def _build() -> Built:
    bot = await built_bot()
    callbacks = {
        c.qualified_name: c for c in bot.tree.walk_commands() if isinstance(c, app_commands.Command)
    }
    docs = command_docs(bot.tree)
    topics = "\n".join(
        _text(page)
        for topic in HelpTopic
        if topic is not HelpTopic.SYSTEM
        for page in help_pages(topic, None, docs)
    )
    systems = {
        key: "\n".join(
            f.value or ""
            for f in help_pages(HelpTopic.SYSTEM, key, docs)[0].fields
            if f.name == "Options of your rolls here"
        )
        for key in SYSTEMS
    }
    return Built(await built_tree(bot), callbacks, topics, systems)


@pytest.fixture(scope="module")
def built() -> Built:
    return asyncio.run(_build())


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
