"""Safe defaults for a hosted bot, through the real bot in SimCord: start-up warns once about a
set-up that shows hidden results to every member (a GM channel everyone can read, a GM role
everyone holds), and says nothing about a private one.

Tests bot/services/trust/exposure.py.
"""

from __future__ import annotations

import logging

import discord
import pytest
from simcord.backend.models import Overwrite
from simcord.enums import OverwriteType
from sqlalchemy import update

from bot.app import create_bot
from bot.db.models import campaigns
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import SEED, Table, start_campaign
from tests.scripted import ScriptedRandom

LOGGER = "bot.ops.exposure"


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING
    ]


async def _restart(table: Table) -> None:
    """A new process on the same database: a new bot, built by create_bot."""
    await table.env.restart_bot(create_bot(table.bot.settings, rng=ScriptedRandom(seed=SEED)))


async def test_start_up_warns_once_about_a_gm_channel_every_member_can_read(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    # #gm as the table fixture makes it: no overwrites, so @everyone can read it.
    await start_campaign(table, "d20-check")
    # A second campaign whose GM channel is private to the GM role: nothing to say about it.
    side = table.guild.create_text_channel("side")
    private = table.guild.create_text_channel(
        "side-gm",
        overwrites={
            table.guild.default_role: discord.PermissionOverwrite(view_channel=False),
            table.gm_role: discord.PermissionOverwrite(view_channel=True),
        },
    )
    done = await table.admin.slash(
        side, "campaign setup", system="d20-check", gm_role=table.gm_role, gm_channel=private
    )
    assert done.response is not None and "Campaign created" in done.response.content
    exposed = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    quiet = await campaign_for_channel(table.bot.db, table.guild.id, side.id)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        await _restart(table)
        said = warnings(caplog)
        assert len(said) == 1, said
        assert f"campaign {exposed.id} " in said[0]
        assert f"GM channel {table.gm_channel.id}" in said[0]
        assert f"campaign {quiet.id} " not in said[0]
        # The same process reconnecting says nothing new: once.
        await table.env.restart_bot()
        assert len(warnings(caplog)) == 1
        # Made private, the next start says nothing.
        view = discord.Permissions(view_channel=True).value
        for target, allow, deny in ((table.guild.id, 0, view), (table.gm_role.id, view, 0)):
            table.env.backend.set_overwrite(
                table.gm_channel.id, Overwrite(target, OverwriteType.ROLE, allow=allow, deny=deny)
            )
        caplog.clear()
        await _restart(table)
        assert warnings(caplog) == []


async def test_start_up_warns_about_a_gm_role_every_member_holds(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    await start_campaign(table, "d20-check")
    found = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    # The commands refuse @everyone as a GM role; a campaign imported from an older version or
    # edited in the database can still hold it.
    async with table.bot.db.engine.begin() as connection:
        await connection.execute(
            update(campaigns)
            .where(campaigns.c.id == found.id)
            .values(gm_role_ids=[table.guild.id], gm_channel_id=None)
        )
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        await _restart(table)
    said = warnings(caplog)
    assert len(said) == 1, said
    assert f"campaign {found.id} " in said[0] and "every member holds its GM role" in said[0]
