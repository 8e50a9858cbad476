"""Sealed declarations (docs/rounds.md): until the reveal, nobody can tell what a player declared.

Two worlds differ only in the text of one player's declarations (and its replacement). Until
``/gm round reveal`` everything the GM, the declarer herself and another player can observe
must be equal in both: every command's answer (ephemeral or not) and every message they can
read, the GM's export file, option autocomplete, and every log line the bot writes, once the
random digests and wall-clock times are normalised (tests/scenarios/test_secrecy_differential.py).
After the reveal the worlds must differ, or the comparison proved nothing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.scenarios.test_secrecy_differential import (
    SEED,
    _first_difference,
    _plain,
    _private_gm_channel,
    _readable,
    _result,
    _server,
)
from tests.scripted import WorldRandom

#: What differs between the worlds: the first declaration, then its replacement.
WORLDS = [
    ("I pocket the idol.", "I hold the door."),
    ("**@everyone** I stab the priest in the back, then run for the boats!", "I hide. <@1>"),
]


_DURATION = re.compile(r"\b\d+(\.\d+)? ?(ms|s)\b")


def _log_lines(caplog: pytest.LogCaptureFixture) -> list[Any]:
    """Every log line the bot (and discord.py under it) wrote, with any traceback's text."""
    lines = []
    for record in caplog.records:
        if record.name.startswith("simcord"):
            continue  # the simulated Discord's own log, which plays the players' side
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f" | {record.exc_info[1]!r}"
        # How long a command took is wall-clock time too.
        text = _DURATION.sub("<duration>", text)
        lines.append(f"{record.name} {record.levelname} {text}")
    return _plain(lines)


async def play(
    url: str, first: str, second: str, caplog: pytest.LogCaptureFixture
) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """One world: what everyone observes before the reveal, and after it."""
    caplog.clear()
    observed: list[tuple[str, Any]] = []
    after: list[tuple[str, Any]] = []
    async with _server(url, WorldRandom(SEED)) as table:
        gm_channel = _private_gm_channel(table)
        setup = await table.admin.slash(
            table.table,
            "campaign setup",
            system="d20-check",
            gm_role=table.gm_role,
            gm_channel=gm_channel,
        )
        assert setup.response is not None and "Campaign created" in setup.response.content
        await table.alice.slash(table.table, "character create", name="Sybilla")
        await table.bob.slash(table.table, "character create", name="Bo")
        opened = await table.gm.slash(table.table, "gm round open", deadline="1d")
        observed.append(("open", await _result(opened)))
        for label, member, text in (
            ("alice declares", table.alice, first),
            ("bob declares", table.bob, "I keep watch."),
            ("alice replaces", table.alice, second),
        ):
            declared = await member.slash(table.table, "declare", text=text)
            observed.append((label, await _result(declared)))
        # Refusals that carry her text: outside the campaign, and too late to reveal early.
        lobby = table.guild.create_text_channel("lobby")
        elsewhere = await table.alice.slash(lobby, "declare", text=first)
        observed.append(("declare elsewhere", await _result(elsewhere)))
        early = await table.alice.slash(table.table, "reveal", roll=1)
        observed.append(("alice /reveal", await _result(early)))

        for member in (table.gm, table.alice, table.bob):
            name = member.user.name
            asks: list[tuple[str, dict[str, Any]]] = [
                ("history", {}),
                ("catchup", {}),
                ("verify", {"roll": 1}),
                ("verify", {"roll": 3}),
                ("verify", {"log": True}),
                ("gm round status", {}),
                ("privacy show", {}),
            ]
            if member is table.gm:
                asks += [("gm log", {}), ("campaign export", {})]
            for ask, options in asks:
                answer = await member.slash(table.table, ask, **options)
                observed.append((f"{name}: /{ask} {options}", await _result(answer)))
            for ask, option in (("history", "character"), ("character show", "name")):
                choices = await member.autocomplete(table.table, ask, option, "")
                observed.append((f"{name}: autocomplete /{ask} {option}", _plain(choices)))
            observed.append((f"what {name} can read", await _readable(table, gm_channel, member)))
        observed.append(("log lines", _log_lines(caplog)))

        revealed = await table.gm.slash(table.table, "gm round reveal")
        after.append(("reveal", await _result(revealed)))
        verified = await table.bob.slash(table.table, "verify", roll=3)
        after.append(("verify after", await _result(verified)))
    return observed, after


async def test_a_declaration_changes_nothing_anyone_observes_until_the_reveal(
    fresh_database: Callable[[], Awaitable[str]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="bot")
    caplog.set_level(logging.INFO)
    base, base_after = await play(await fresh_database(), *WORLDS[0], caplog)
    assert any("has declared" in str(seen) for _, seen in base)
    for world in WORLDS[1:]:
        other, other_after = await play(await fresh_database(), *world, caplog)
        difference = _first_difference(base, other)
        assert difference is None, f"{world} differs before the reveal: {difference}"
        # The comparison can see a difference: the reveal shows the texts.
        assert _first_difference(base_after, other_after) is not None
        for text in world:
            assert all(text not in str(seen) for _, seen in other)
