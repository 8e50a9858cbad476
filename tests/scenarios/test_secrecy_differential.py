"""Nothing a viewer may not see changes what they observe.

Differential tests: the same table is played in several worlds that differ only in a hidden
die (a natural 20 or a natural 1 against an ordinary face) and, where the roller could make
one, in a fortune choice (keep, trade, reroll). After the hidden roll a member not entitled
to it (the roller of a blind roll, the GM for a self roll, the character's player for a GM's
roll, another player for a gm roll) runs every command that shows table state: /history
(with kind filters), /stats, /odds check, /party show, /character show, /catchup, /fortune show,
/gm clear-modifier and /campaign export (the GM), option autocomplete; then the character
makes a public check. Everything that member can read (command answers, ephemeral or not,
the channels they can open, their DMs, the export file) must be the same in every world, once
the commitment and salt digests (random by design), the hash-chain links that include them,
and wall-clock timestamps are normalised.

Each world runs on its own fresh database (SQLite file, or the PostgreSQL test database
emptied with its sequences restarted) and its own SimCord server, so ids line up.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord
import pytest
from simcord.actors import MemberActor
from simcord.backend.errors import SetupError
from simcord.env import Env

from bot.app import create_bot
from bot.config import Settings
from bot.tree import user_message
from tests.fixtures.table import SEED, Table, lay_out
from tests.scenarios.test_fortune import KEEP, REROLL, TRADE
from tests.scripted import ScriptedRandom, WorldRandom

SYSTEMS = ["pen-and-dagger", "roll-under", "threshold", "d20-check"]
MODES = ["gm", "blind", "self"]
#: The character's one ability score per system: ordinary faces give ordinary results.
SCORES = {"pen-and-dagger": 12, "roll-under": 14, "threshold": 2, "d20-check": 14}
ABILITY = {"pen-and-dagger": "DEX", "roll-under": "AGI", "threshold": "DEX", "d20-check": "DEX"}
#: An ordinary face: no critical, no fumble, a failed luck roll (a reroll is possible).
PLAIN = 5


@dataclass(frozen=True)
class World:
    """What differs: the hidden die's face, and the fortune button its roller clicks if shown."""

    face: int
    choice: str | None = None

    def __str__(self) -> str:
        return f"d20 {self.face}" + (f", then {self.choice!r}" if self.choice else "")


def worlds(command: str, system: str) -> list[World]:
    """The baseline world first, then each world it must be indistinguishable from."""
    if command in ("roll", "gm roll"):
        return [World(PLAIN), World(20)]
    found = [World(PLAIN), World(20), World(1)]
    if system == "pen-and-dagger" and command in ("check", "luck"):
        # The player's own attempt or luck roll: on the old code its copy offered choices.
        found += [World(20, TRADE), World(20, KEEP), World(PLAIN, REROLL)]
    return found


def scenarios() -> list[Any]:
    out = []
    for command in ("roll", "gm roll", "check", "gm check", "save", "luck"):
        for system in SYSTEMS:
            if command == "save" and system not in ("roll-under", "d20-check"):
                continue  # no saving throws there
            if command == "luck" and system != "pen-and-dagger":
                continue
            for mode in MODES:
                out.append(pytest.param(command, system, mode, id=f"{command}-{system}-{mode}"))
    return out


# --- normalising what a member reads --------------------------------------------------------

_HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
#: The hash-chain link a result prints (bot/render/style.py): it chains in every hidden row's
#: commitment, so it is as random as the salt.
_CHAIN = re.compile(r"\blog [0-9a-f]{12}\b")
_DISCORD_TIME = re.compile(r"<t:\d+(:[a-zA-Z])?>")
_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?")
_STAMP = re.compile(r"-\d{8}-\d{6}\.json")
#: discord.py gives a button of a non-persistent view (the /history pager) a random id.
_AUTO_ID = re.compile(r"^[0-9a-f]{32}$")


def _plain(value: Any) -> Any:
    """Digests, wall-clock times and discord.py's random button ids replaced by
    placeholders, everywhere in ``value``."""
    if isinstance(value, str):
        value = _HEX64.sub("<digest>", value)
        value = _CHAIN.sub("log <chain>", value)
        value = _DISCORD_TIME.sub("<time>", value)
        value = _ISO.sub("<iso>", value)
        return _STAMP.sub("-<stamp>.json", value)
    if isinstance(value, dict):
        return {
            k: "<random id>" if k == "custom_id" and _AUTO_ID.match(str(v)) else _plain(v)
            for k, v in value.items()
            if k != "timestamp"
        }
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


async def _message(message: Any) -> dict[str, Any]:
    files = []
    for attachment in message.attachments:
        body = await attachment.read()
        if attachment.filename.endswith(".gz"):  # /campaign export's file
            body = gzip.decompress(body)
        content: Any = body.decode()
        with contextlib.suppress(ValueError):
            content = json.loads(content)
        files.append({"filename": attachment.filename, "content": content})
    return _plain(
        {
            "content": message.content,
            "embeds": [e.to_dict() for e in message.embeds],
            "components": [c.to_dict() if hasattr(c, "to_dict") else c for c in message.components],
            "files": files,
        }
    )


async def _result(result: Any) -> dict[str, Any]:
    """An interaction's answer as its user sees it: response, followups, whether ephemeral."""
    response = None if result.response is None else await _message(result.response)
    return {
        "ephemeral": result.ephemeral,
        "response": response,
        "followups": [await _message(m) for m in result.followups],
    }


async def _readable(table: Table, gm_channel: Any, member: MemberActor) -> list[Any]:
    """Every message ``member`` can read: #table (ephemerals to them included), the GM
    channel if they may open it, their DMs."""
    seen = [await _message(m) for m in table.table.history(viewer=member)]
    with contextlib.suppress(SetupError):
        seen += [await _message(m) for m in gm_channel.history(viewer=member)]
    dm = member.user.dm_channel
    if dm is not None:
        seen += [await _message(m) for m in dm.history()]
    return seen


# --- one world ------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def _server(url: str, rng: ScriptedRandom) -> AsyncIterator[Table]:
    """A fresh bot on ``url`` in a fresh SimCord server laid out as the ``table`` fixture."""
    settings = Settings(_env_file=None, database_url=url, shard_count=1)  # type: ignore[call-arg]
    bot = create_bot(settings, rng=rng)
    env = Env(bot)
    await env.start()
    try:
        yield lay_out(env)
    finally:
        await env.shutdown()
        await bot.close_database()
    unexpected = [e for e in env.errors if user_message(e) is None]
    if unexpected:
        raise ExceptionGroup("the bot raised unexpected errors", unexpected)


def _private_gm_channel(table: Table) -> Any:
    return table.guild.create_text_channel(
        "gm-only",
        overwrites={
            table.guild.default_role: discord.PermissionOverwrite(view_channel=False),
            table.gm_role: discord.PermissionOverwrite(view_channel=True),
            table.bot.user: discord.PermissionOverwrite(view_channel=True, send_messages=True),
        },
    )


def _labels(message: Any) -> list[str]:
    found: list[str] = []

    def walk(components: list[dict[str, Any]]) -> None:
        for component in components:
            if component.get("type") == 2:
                found.append(str(component.get("label")))
            walk(component.get("components") or [])

    walk(list(message.components))
    return found


def _observers(table: Table, roller: MemberActor, mode: str) -> list[MemberActor]:
    """Who may not see the hidden roll: the character's player or the GM, else a player."""
    entitled = {
        "gm": {roller, table.gm},
        "blind": {table.gm},
        "self": {roller},
    }[mode]
    chosen = [m for m in (table.alice, table.gm) if m not in entitled]
    return chosen or [table.bob]


async def play(
    url: str, command: str, system: str, mode: str, world: World
) -> list[tuple[str, Any]]:
    """Play one world; what its non-entitled members observe, labelled, in order."""
    rng = WorldRandom(SEED)
    observed: list[tuple[str, Any]] = []
    async with _server(url, rng) as table:
        gm_channel = _private_gm_channel(table)
        setup = await table.admin.slash(
            table.table,
            "campaign setup",
            system=system,
            gm_role=table.gm_role,
            gm_channel=gm_channel,
        )
        assert setup.response is not None and "Campaign created" in setup.response.content
        await table.alice.slash(table.table, "character create", name="Ayla")
        ability = ABILITY[system]
        await table.alice.slash(
            table.table, "character set", ability=ability, value=SCORES[system], character="Ayla"
        )
        await table.alice.slash(table.table, "party add", character="Ayla")
        if system == "pen-and-dagger":
            # One fortune die: an ordinary attempt offers a reroll, a natural 20 a trade.
            await table.gm.slash(table.table, "fortune give", character="Ayla", count=1)
        dc = {"dc": 12} if system == "threshold" else {}

        # The hidden roll.
        roller = table.gm if command.startswith("gm ") else table.alice
        if command in ("roll", "gm roll"):
            rng.byte_faces.append(world.face)
            hidden = await roller.slash(table.table, command, dice="1d20", secret=mode)
            assert not rng.byte_faces
        else:
            rng.faces.append(world.face)
            options: dict[str, Any] = {"secret": mode}
            if command != "luck":
                options.update(ability=ability, **dc)
            if command == "gm check":
                options["character"] = "Ayla"
            hidden = await roller.slash(table.table, command, **options)
            assert not rng.faces
        assert hidden.response is not None
        if world.choice is not None:
            # The roller clicks the choice wherever they were shown it.
            for message in [hidden.response, *hidden.followups]:
                if world.choice in _labels(message):
                    await roller.click(message, label=world.choice)
                    break

        # Everything a non-entitled member can ask.
        for member in _observers(table, roller, mode):
            name = member.user.name
            asks: list[tuple[str, dict[str, Any]]] = [("history", {})]
            for kind in ("keep", "trade", "reroll", "fortune", "attempt", "luck", "test"):
                asks.append(("history", {"kind": kind}))
            asks += [
                ("stats", {}),
                ("odds check", {"ability": ability, **dc}),
                ("party show", {}),
                ("character show", {"name": "Ayla"}),
                ("catchup", {}),  # what did I miss (docs/clock.md)
            ]
            if system == "pen-and-dagger":
                asks.append(("fortune show", {"character": "Ayla"}))
            if member is table.gm:
                asks += [("gm clear-modifier", {"character": "Ayla"}), ("campaign export", {})]
            for ask, options in asks:
                answer = await member.slash(table.table, ask, **options)
                observed.append((f"{name}: /{ask} {options}", await _result(answer)))
            for ask, option in (
                ("check", "ability"),
                ("check", "proficiency"),
                ("character show", "name"),
                ("gm clear-modifier", "ability"),
            ):
                choices = await member.autocomplete(table.table, ask, option, "")
                observed.append((f"{name}: autocomplete /{ask} {option}", _plain(choices)))

        # Then a public check: its number, dice and any carry-over used.
        rng.faces.append(10)
        later = await table.alice.slash(table.table, "check", ability=ability, **dc)
        observed.append(("the later public check", await _result(later)))
        readers = _observers(table, roller, mode)
        for member in [*readers, *([] if table.bob in readers else [table.bob])]:
            observed.append(
                (f"what {member.user.name} can read", await _readable(table, gm_channel, member))
            )
    return observed


# --- the tests ------------------------------------------------------------------------------


def _where(a: Any, b: Any, path: str = "") -> str | None:
    """The path of the first place ``a`` and ``b`` differ, with both values there."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for key in a:
            found = _where(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _where(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}:\n  baseline:   {a!r}\n  this world: {b!r}"


def _first_difference(base: list[tuple[str, Any]], other: list[tuple[str, Any]]) -> str | None:
    assert [label for label, _ in base] == [label for label, _ in other]
    for (label, seen), (_, other_seen) in zip(base, other, strict=True):
        found = _where(seen, other_seen)
        if found:
            return f"{label} {found}"
    return None


@pytest.mark.parametrize(("command", "system", "mode"), scenarios())
async def test_a_hidden_roll_changes_nothing_a_non_entitled_member_observes(
    fresh_database: Callable[[], Awaitable[str]], command: str, system: str, mode: str
) -> None:
    found = worlds(command, system)
    base = await play(await fresh_database(), command, system, mode, found[0])
    for world in found[1:]:
        other = await play(await fresh_database(), command, system, mode, world)
        difference = _first_difference(base, other)
        assert difference is None, f"{world} vs {found[0]} differs: {difference}"
