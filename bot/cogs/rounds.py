"""/declare and /gm round open | status | reveal | cancel: sealed declarations (docs/rounds.md).

Sealed declarations: thin glue from the commands to bot/services/table/rounds.py.

A declaration's text goes from the command's option straight into the service; nothing here
shows, logs or quotes it. The channel sees each "has declared" stub (whose commitment /verify
reads back, as for a hidden roll's stub), and the reveal posts every declaration at once.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.cogs._clock_hooks import DELIVERERS, wake
from bot.cogs._gm import ensure_gm_group, gm_group
from bot.cogs._notices import post_notice
from bot.interaction import Interaction, answer
from bot.render.rounds import (
    cancelled_embed,
    declared_embed,
    opened_embed,
    reveal_embeds,
    status_embed,
)
from bot.services.kit.clock import parse_duration
from bot.services.table import rounds
from bot.services.table.rounds import MAX_DECLARATION, Revealed
from bot.services.trust import secrecy

if TYPE_CHECKING:
    from bot.app import PbpBot

log = logging.getLogger(__name__)
_QUIET = discord.AllowedMentions.none()

round_group = app_commands.Group(
    name="round",
    description="Sealed declarations: everyone declares, nobody sees, all revealed at once",
    parent=gm_group,
)


class RoundsCog(commands.Cog):
    """/declare; the GM's commands live on the shared /gm group (bot/cogs/_gm.py)."""

    @app_commands.command(
        name="declare", description="Seal your action for the open round (nobody sees it yet)"
    )
    @app_commands.describe(text="What your character does; sealed until the GM reveals the round")
    @app_commands.guild_only()
    async def declare(
        self,
        interaction: Interaction,
        text: app_commands.Range[str, 1, MAX_DECLARATION],
    ) -> None:
        bot = bot_of(interaction)
        declared = await rounds.declare(bot.db, caller_from(interaction), text, bot.clock.now())
        stub_id = await answer(interaction, embed=declared_embed(declared), allowed_mentions=_QUIET)
        if stub_id is not None and interaction.channel_id is not None:
            # /verify compares with the commitment as this message still shows it.
            await secrecy.record_stub(bot.db, declared.roll_id, interaction.channel_id, stub_id)


@round_group.command(name="open", description="GM: open a round of sealed declarations here")
@app_commands.describe(deadline="It reveals itself after this long, like 90m, 24h or 2d")
async def round_open(
    interaction: Interaction,
    deadline: app_commands.Range[str, 1, 20] | None = None,
) -> None:
    bot = bot_of(interaction)
    span = None if deadline is None else parse_duration(deadline, what="round deadline")
    opened = await rounds.open_round(bot.db, caller_from(interaction), bot.clock.now(), span)
    await answer(interaction, embed=opened_embed(opened), allowed_mentions=_QUIET)
    wake(bot, opened.deadline_at)


@round_group.command(name="status", description="Who has declared in the open round (not what)")
async def round_status(interaction: Interaction) -> None:
    found = await rounds.status(bot_of(interaction).db, caller_from(interaction))
    await answer(interaction, embed=status_embed(found), ephemeral=True)


@round_group.command(name="reveal", description="GM: reveal every declaration of the round at once")
async def round_reveal(interaction: Interaction) -> None:
    bot = bot_of(interaction)
    revealed = await rounds.reveal(bot.db, caller_from(interaction), bot.clock.now())
    messages = reveal_embeds(revealed)
    head, rest = messages[0], messages[1:]
    await answer(interaction, embed=head[0], allowed_mentions=_QUIET)
    for embeds in rest:
        await interaction.followup.send(embeds=embeds, allowed_mentions=_QUIET)


@round_group.command(name="cancel", description="GM: close the round unrevealed (it stays sealed)")
async def round_cancel(interaction: Interaction) -> None:
    bot = bot_of(interaction)
    cancelled = await rounds.cancel(bot.db, caller_from(interaction), bot.clock.now())
    await answer(interaction, embed=cancelled_embed(cancelled), allowed_mentions=_QUIET)


async def deliver_reveal(bot: PbpBot, revealed: Revealed, job_id: int | None = None) -> bool:
    """Post a round its deadline revealed, in the channel, thread or post it was opened in."""
    shown = revealed.round
    for embeds in reveal_embeds(revealed):
        posted = await post_notice(
            bot,
            shown.campaign_id,
            shown.channel_id,
            f"the reveal of round #{shown.id}",
            embeds=embeds,
            job_id=job_id,
        )
        if posted is None:
            return False
    return True


async def setup(bot: commands.Bot) -> None:
    assert round_group.parent is not None
    ensure_gm_group(bot)  # /gm round hangs off the shared /gm group
    await bot.add_cog(RoundsCog())
    DELIVERERS[Revealed] = deliver_reveal
