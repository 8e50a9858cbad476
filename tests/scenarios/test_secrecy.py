"""Every rolling command in every visibility mode: the channel, the roller, a third player and
the GM each see exactly what they are entitled to. Then the GM-delivery fallbacks.

Tests bot/render/secrecy.py.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import discord
import pytest
from simcord.actors import MemberActor
from simcord.backend.errors import SetupError

from bot.db.models import Visibility
from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import Table, make_character, message_text, start_campaign

MODES = ["public", "gm", "blind", "self"]
_NOISE = re.compile(r"[0-9a-f]{64}|<[@#&]!?\d+>|#\d+|roll:\d+|campaign #\d+|character #\d+")


def private_gm_channel(table: Table) -> Any:
    """A GM channel as a real server has it: only GMs (and the bot) can read it."""
    return table.guild.create_text_channel(
        "gm-only",
        overwrites={
            table.guild.default_role: discord.PermissionOverwrite(view_channel=False),
            table.gm_role: discord.PermissionOverwrite(view_channel=True),
            table.bot.user: discord.PermissionOverwrite(view_channel=True, send_messages=True),
        },
    )


def seen_by(table: Table, member: MemberActor, gm_channel: Any) -> str:
    """Everything ``member`` can read: #table (with ephemerals to them), the GM channel if
    they may read it, and their DMs; roll ids, mentions and digests removed."""
    texts = [message_text(m) for m in table.table.history(viewer=member)]
    with contextlib.suppress(SetupError):  # they cannot read the GM channel
        texts += [message_text(m) for m in gm_channel.history(viewer=member)]
    texts += [message_text(m) for m in member.user.dm_channel.history()]
    return _NOISE.sub(" ", "\n".join(texts))


def shows(text: str, tokens: list[str]) -> bool:
    return all(re.search(rf"\b{re.escape(t)}\b", text) for t in tokens)


def shows_any(text: str, tokens: list[str]) -> bool:
    return any(re.search(rf"\b{re.escape(t)}\b", text) for t in tokens)


async def _setup(table: Table, system: str) -> Any:
    await start_campaign(table, system)
    gm_channel = private_gm_channel(table)
    done = await table.gm.slash(table.table, "campaign set gm-channel", channel=gm_channel)
    assert done.response is not None and "Setting saved" in done.response.content
    scores = {"DEX": 30} if system == "d20-check" else {"DEX": 14}
    await make_character(table, table.alice, "Ayla", scores)
    return gm_channel


async def _latest(table: Table) -> ledger.RollView:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return (await ledger.latest_rolls(table.bot.db, campaign.id, limit=1))[0]


async def _run(table: Table, command: str, mode: str) -> tuple[list[str], MemberActor]:
    """Roll ``command`` in ``mode``; the tokens that would give the result away, the roller."""
    if command == "roll":
        await table.alice.slash(table.table, "roll", dice="1d20+1000", secret=mode)
        row = await _latest(table)
        return [str(row.outcome["total"])], table.alice
    if command == "gm roll":
        await table.gm.slash(table.table, "gm roll", dice="1d20+1000", secret=mode)
        row = await _latest(table)
        return [str(row.outcome["total"])], table.gm
    if command == "luck":
        table.dice(13)
        await table.alice.slash(table.table, "luck", secret=mode)
        return ["13", "Lucky"], table.alice
    table.dice(17)
    if command == "check":
        await table.alice.slash(table.table, "check", ability="DEX", secret=mode)
        return ["17", "27"], table.alice
    if command == "save":
        await table.alice.slash(table.table, "save", ability="DEX", secret=mode)
        return ["17", "27"], table.alice
    await table.gm.slash(table.table, "gm check", character="Ayla", ability="DEX", secret=mode)
    return ["17", "27"], table.gm


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", ["roll", "check", "save", "luck", "gm roll", "gm check"])
async def test_each_viewer_sees_what_the_mode_allows(table: Table, command: str, mode: str) -> None:
    system = "pen-and-dagger" if command == "luck" else "d20-check"
    gm_channel = await _setup(table, system)
    tokens, roller = await _run(table, command, mode)
    row = await _latest(table)
    assert row.visibility is Visibility(mode)
    assert (row.commitment is None) is (mode == "public")
    gm_is_roller = roller is table.gm
    others = [m for m in (table.alice, table.bob, table.carol) if m is not roller]
    entitled = {
        "public": {"roller": True, "gm": True, "other": False},
        "gm": {"roller": True, "gm": True, "other": False},
        "blind": {"roller": gm_is_roller, "gm": True, "other": False},
        "self": {"roller": True, "gm": gm_is_roller, "other": False},
    }[mode]
    if mode == "public":
        entitled["other"] = True
    roller_text = seen_by(table, roller, gm_channel)
    gm_text = seen_by(table, table.gm, gm_channel)
    assert shows(roller_text, tokens) is entitled["roller"], roller_text
    assert shows(gm_text, tokens) is entitled["gm"], gm_text
    for other in others:
        other_text = seen_by(table, other, gm_channel)
        if entitled["other"]:
            assert shows(other_text, tokens)
        else:
            assert not shows_any(other_text, tokens), other_text
    if mode in ("gm", "blind"):
        # The stub in the channel names the roll and carries the full commitment.
        public = "\n".join(message_text(m) for m in table.table.history(viewer=table.bob))
        assert f"#{row.id}" in public and str(row.commitment) in public
