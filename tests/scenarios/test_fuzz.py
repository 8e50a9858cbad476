"""Every slash command, random option values, random users: the bot never breaks.

How it is driven (reproducible, one SimCord env per test): Hypothesis generates the plays, a
list of (user, command, options), with ``derandomize=True`` (the same examples every run), from
strategies built from each leaf command's declared parameters (type, min/max, length, choices)
plus hostile values: empty, huge and negative numbers, long and odd Unicode, mentions of
unknown users, names that do not exist and the dice test-suite's adversarial corpus. The plays
then run, in order, against the real bot in one campaign of each rule system. SimCord allows
one live env per event loop, so the generation (synchronous ``@given``) and the playing are
separate; a failure names the play (command, user, options) so it can be replayed by hand.

``PBP_FUZZ_EXAMPLES`` sets the plays per rule system, spread over the commands (at least 2
each; the default, 90, gives ~360 interactions over the four systems in CI).

For every play:

* values outside the declared range are refused by the simulated client (as Discord does),
  and never reach the bot;
* every interaction that reaches the bot is answered;
* an error is only ever one of ours with its message (no incident), and a refused command
  changes no row of any table;
* a hidden roll (gm, blind, self) shows neither its result nor its GM copy to a bystander.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
from dataclasses import dataclass
from typing import Any

import discord
import pytest
from discord import app_commands
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from simcord.backend.errors import OptionError, SetupError
from sqlalchemy import text

from bot.db.schema import metadata
from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel
from bot.tree import user_message
from tests.dice.test_limits import ADVERSARIAL
from tests.fixtures.table import (
    Table,
    answered_ephemeral,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)

EXAMPLES = int(os.environ.get("PBP_FUZZ_EXAMPLES", "90"))
SYSTEMS = ["pen-and-dagger", "roll-under", "threshold", "d20-check"]
INCIDENT = "Something went wrong on our side"
NAMES = ["Ayla", "Bran", "ayla", "Nobody", "Zed the Unknown"]
#: Valid-looking values, so that plays get past the first check and reach the rules.
PLAUSIBLE = ["1d20", "1d20+5", "2d6+3", "4d6kh3", "adv+3", "DEX", "STR", "AGI", "Ayla, Bran"]
ODD_TEXT = [
    "",
    " ",
    "\u200b",
    "\u202eevil",
    "𝕯𝖗𝖆𝖌𝖔𝖓",
    "💀" * 40,
    "a" * 1000,
    "<@999999999999999999>",
    "<@&1>",
    "@everyone",
    "```",
    "'; DROP TABLE ledger; --",
    "\x00",
    "%s%s%n",
    "../../etc/passwd",
]
_NOISE = re.compile(r"[0-9a-f]{64}|<[@#&]!?\d+>|#\d+|roll:\d+|campaign #\d+|character #\d+")
# Discord's own bounds on option values when a command declares none.
INT_BOUND = 2**53


@dataclass(frozen=True)
class Play:
    who: str  # "gm", "admin", "alice" or "bob"
    command: str
    options: dict[str, Any]
    in_range: bool

    def __str__(self) -> str:
        return f"{self.who}: /{self.command} {self.options!r}"


def leaf_commands(tree: app_commands.CommandTree[Any]) -> list[app_commands.Command[Any, ..., Any]]:
    return sorted(
        (c for c in tree.walk_commands() if isinstance(c, app_commands.Command)),
        key=lambda c: c.qualified_name,
    )


def _length(param: app_commands.Parameter) -> tuple[int, int]:
    """A string option's declared length bounds (discord.py keeps them as min/max value)."""
    low = int(param.min_value) if param.min_value is not None else 0
    high = int(param.max_value) if param.max_value is not None else 6000
    return low, high


def _text(param: app_commands.Parameter) -> st.SearchStrategy[Any]:
    low, high = _length(param)
    fits = [t for t in [*ODD_TEXT, *ADVERSARIAL, *NAMES] if low <= len(t) <= high]
    return st.one_of(
        st.sampled_from([t for t in PLAUSIBLE if low <= len(t) <= high]),
        st.sampled_from(fits),
        st.text(min_size=max(low, 1), max_size=min(high, 80)),
        st.text(
            alphabet=st.characters(codec="utf-8", categories=["Mn", "So", "Zs", "Cf", "Lo"]),
            min_size=max(low, 1),
            max_size=min(high, 200),
        ),
    )


def _value(param: app_commands.Parameter) -> st.SearchStrategy[tuple[Any, bool]]:
    """(value, in_range) for one parameter."""
    kind = param.type
    if param.choices:
        valid = st.sampled_from([c.value for c in param.choices]).map(lambda v: (v, True))
        bogus = st.sampled_from(["", "nope", "BLIND"]).map(lambda v: (v, False))
        return st.one_of(valid, valid, valid, bogus)
    if kind is discord.AppCommandOptionType.string:
        low, high = _length(param)
        too_long = st.just("x" * (high + 1)).map(lambda v: (v, False))
        ok = _text(param).map(lambda v: (v, low <= len(v) <= high))
        return st.one_of(ok, ok, ok, too_long)
    if kind in (discord.AppCommandOptionType.integer, discord.AppCommandOptionType.number):
        low = int(param.min_value) if param.min_value is not None else -INT_BOUND
        high = int(param.max_value) if param.max_value is not None else INT_BOUND
        edges = st.sampled_from([low, high, 0, 1, -1]).filter(lambda v: low <= v <= high)
        inside = st.one_of(edges, st.integers(low, high)).map(lambda v: (v, True))
        outside = st.sampled_from([low - 1, high + 1, -(10**12), 10**12]).filter(
            lambda v: not low <= v <= high
        )
        return st.one_of(inside, inside, inside, outside.map(lambda v: (v, False)))
    if kind is discord.AppCommandOptionType.boolean:
        return st.booleans().map(lambda v: (v, True))
    if kind is discord.AppCommandOptionType.user:
        return st.sampled_from(["@alice", "@bob", "@carol", "@gm"]).map(lambda v: (v, True))
    if kind is discord.AppCommandOptionType.role:
        return st.sampled_from(["@GM", "@everyone"]).map(lambda v: (v, True))
    if kind is discord.AppCommandOptionType.channel:
        return st.sampled_from(["#table", "#gm"]).map(lambda v: (v, True))
    if kind is discord.AppCommandOptionType.mentionable:
        return st.sampled_from(["@alice", "@GM"]).map(lambda v: (v, True))
    if kind is discord.AppCommandOptionType.attachment:
        # (filename, bytes), as SimCord uploads it: an image, not an image, an empty file.
        files = st.sampled_from(
            [("a.png", b"\x89PNG fake"), ("notes.txt", b"hi"), ("empty.gif", b"")]
        )
        return files.map(lambda v: (v, True))
    raise AssertionError(f"no strategy for option type {kind}")  # a new type: add one here


_BY_NAME: dict[str, app_commands.Command[Any, ..., Any]] = {}


@st.composite
def plays(draw: st.DrawFn, commands: tuple[str, ...]) -> Play:
    command = _BY_NAME[draw(st.sampled_from(commands))]
    options: dict[str, Any] = {}
    in_range = True
    for param in command.parameters:
        if not param.required and draw(st.booleans()):
            continue
        value, ok = draw(_value(param))
        options[param.display_name] = value
        in_range = in_range and ok
    who = draw(st.sampled_from(["gm", "admin", "alice", "bob"]))
    return Play(who, command.qualified_name, options, in_range)


def generate(commands: list[app_commands.Command[Any, ..., Any]], total: int) -> list[Play]:
    """About ``total`` plays spread over every command (at least 2 each), the same every run."""
    _BY_NAME.update({c.qualified_name: c for c in commands})
    return list(_generated(tuple(sorted(_BY_NAME)), total))


@functools.cache
def _generated(names: tuple[str, ...], total: int) -> tuple[Play, ...]:
    """The plays, worked out once per run: ``derandomize`` makes them the same for every
    system and database, and generating them costs as much as a tenth of a test."""
    found: list[Play] = []
    each = max(2, total // len(names))
    for name in names:

        @settings(
            max_examples=each,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(plays((name,)))
        def collect(play: Play) -> None:
            found.append(play)

        collect()
    return tuple(found)


def resolve(table: Table, gm_channel: Any, value: Any) -> Any:
    """Handles for the symbolic user, role and channel values."""
    if (
        isinstance(value, str)
        and value.startswith("@")
        and value[1:]
        in (
            "alice",
            "bob",
            "carol",
            "gm",
        )
    ):
        return getattr(table, value[1:])
    if value == "@GM":
        return table.gm_role
    if value == "@everyone":
        return table.guild.default_role
    if value == "#table":
        return table.table
    if value == "#gm":
        return gm_channel
    return value


@functools.cache
def _snapshot_sql(dialect: str) -> str:
    """One SELECT of every table's rows, each table as a JSON array of row arrays in key
    order: a statement per table cost more than the plays did."""
    tables = []
    for t in metadata.sorted_tables:
        columns = ", ".join(f'"{c.name}"' for c in t.columns)
        order = ", ".join(f'"{c.name}"' for c in t.primary_key.columns or t.columns)
        if dialect == "postgresql":
            rows = f"json_agg(json_build_array({columns}) ORDER BY {order})"
            tables.append(f"(SELECT coalesce({rows}, '[]')::text FROM \"{t.name}\")")
        else:
            ordered = f'SELECT {columns} FROM "{t.name}" ORDER BY {order}'
            tables.append(f"(SELECT json_group_array(json_array({columns})) FROM ({ordered}))")
    return "SELECT " + ", ".join(tables)


async def snapshot(table: Table) -> dict[str, list[list[Any]]]:
    """Every row of every table, for comparing before and after a refused command."""
    async with table.bot.db.engine.connect() as conn:
        found = (await conn.execute(text(_snapshot_sql(table.bot.db.dialect)))).one()
    return {t.name: json.loads(rows) for t, rows in zip(metadata.sorted_tables, found, strict=True)}


async def hidden_rows(table: Table) -> list[ledger.RollView]:
    with contextlib.suppress(Exception):
        campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
        return [
            r
            for r in await ledger.latest_rolls(table.bot.db, campaign.id, limit=5)
            if r.visibility.value != "public"
        ]
    return []


def bystander_messages(table: Table, gm_channel: Any) -> list[discord.Message]:
    """What carol (never a GM, never acting) can read."""
    messages = list(table.table.history(viewer=table.carol))
    with contextlib.suppress(SetupError):
        messages += list(gm_channel.history(viewer=table.carol))
    if table.carol.user.dm_channel is not None:
        messages += list(table.carol.user.dm_channel.history())
    return messages


async def _world(table: Table, system: str) -> Any:
    await start_campaign(table, system)
    gm_channel = table.guild.create_text_channel(
        "gm-only",
        overwrites={
            table.guild.default_role: discord.PermissionOverwrite(view_channel=False),
            table.gm_role: discord.PermissionOverwrite(view_channel=True),
            table.bot.user: discord.PermissionOverwrite(view_channel=True, send_messages=True),
        },
    )
    await table.gm.slash(table.table, "campaign set gm-channel", channel=gm_channel)
    abilities = {
        "roll-under": {"AGI": 10},
        "threshold": {"DEX": 2},
    }.get(system, {"DEX": 12})
    await make_character(table, table.alice, "Ayla", abilities)
    await make_character(table, table.bob, "Bran", abilities)
    return gm_channel


@pytest.mark.parametrize("system", SYSTEMS)
async def test_every_command_survives_random_input(table: Table, system: str) -> None:
    gm_channel = await _world(table, system)
    commands = leaf_commands(table.bot.tree)
    assert len(commands) > 20  # the whole tree, not a handful
    env = table.env
    seen_hidden: set[int] = set()
    known = {m.id for m in bystander_messages(table, gm_channel)}
    tally = {"client refused": 0, "not visible": 0, "answered": 0, "refused by the bot": 0}
    played = generate(commands, EXAMPLES)
    # The rows as the next play finds them. Between plays the test only reads, so a refused
    # play's rows (checked equal to these) stay them, and only a play the bot carried out
    # needs them read again: the same comparison as a snapshot just before each play.
    before = await snapshot(table)
    for play in played:
        actor = getattr(table, play.who)
        options = {k: resolve(table, gm_channel, v) for k, v in play.options.items()}
        cursor = env.error_cursor
        try:
            result = await actor.slash(table.table, play.command, **options)
        except OptionError as refused:  # the client refuses what Discord would refuse
            assert not play.in_range, f"an in-range value refused: {play}: {refused}"
            assert env.errors_since(cursor) == (), play
            assert await snapshot(table) == before, play
            tally["client refused"] += 1
            continue
        except SetupError:  # a command this user cannot see (default permissions)
            assert env.errors_since(cursor) == (), play
            tally["not visible"] += 1
            assert await snapshot(table) == before, play
            continue
        assert result.acknowledged, f"not answered: {play}"
        errors = env.errors_since(cursor)
        messages = [user_message(e, play.command) for e in errors]
        assert None not in messages, f"incident for {play}: {errors!r}"
        shown = final_answer(result) if result.response or result.followups else None
        answer = message_text(shown) if shown is not None else ""
        assert INCIDENT not in answer, play
        if errors:
            assert answered_ephemeral(result) and any(m and m in answer for m in messages), play
            assert await snapshot(table) == before, f"a refused command changed data: {play}"
        else:
            before = await snapshot(table)
        tally["refused by the bot" if errors else "answered"] += 1
        messages_seen = [m for m in bystander_messages(table, gm_channel) if m.id not in known]
        known.update(m.id for m in messages_seen)
        text_seen = _NOISE.sub(" ", "\n".join(message_text(m) for m in messages_seen))
        for row in await hidden_rows(table):
            if row.id in seen_hidden:
                continue
            seen_hidden.add(row.id)
            for message in messages_seen:
                for embed in message.embeds:
                    assert not any(
                        f.name == "Secret" and f"#{row.id} " in (f.value or "")
                        for f in embed.fields
                    ), f"roll #{row.id}'s full copy visible to a bystander after {play}"
            total = row.outcome.get("total")
            # The stub names what was rolled (the request): its numbers are not the result.
            if isinstance(total, int) and str(total) not in row.request:
                assert not re.search(rf"(?<![\w.+-]){total}(?![\w.])", text_seen), (
                    f"roll #{row.id}'s total {total} visible to a bystander after {play}"
                )
    # The plays reached the bot, both ways, and hid some rolls (else this proved nothing).
    print(system, tally, f"hidden rolls checked: {len(seen_hidden)}")
    assert tally["answered"] >= len(commands) // 2, tally
    assert tally["refused by the bot"] >= len(commands) // 2, tally
    assert tally["client refused"] > 0, tally
    assert seen_hidden, "no hidden roll was played"
    # The teardown of `table` fails the test on any error that was not a user-facing one.
