"""/turns start | show | next | hold | end: turn order, with per-turn deadlines.

Turn order commands, and the post a per-turn deadline makes when the turn passes by itself.

Each change answers publicly in the channel with the order; the player whose turn begins gets
one ping, their way (``/me notify``): a mention in that message, a DM, or nothing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.cogs._clock_hooks import DELIVERERS, wake
from bot.cogs._delivery import announce_rotation
from bot.cogs._notices import post_notice
from bot.cogs._options import WordChoices
from bot.interaction import Interaction
from bot.render.turns import dm_text, event_text, order_embed, ping_mentions
from bot.services.kit.clock import parse_duration
from bot.services.table import turns
from bot.services.table.turns import TurnEvent
from bot.words import NotifyMode, TurnOrderKind, Visibility

if TYPE_CHECKING:
    from bot.app import PbpBot

log = logging.getLogger(__name__)

turns_group = app_commands.Group(
    name="turns", description="Turn order: whose turn it is", guild_only=True
)


def _link(event: TurnEvent) -> str:
    return f"https://discord.com/channels/{event.order.guild_id}/{event.order.channel_id}"


async def _dm(bot: PbpBot, event: TurnEvent) -> None:
    """The DM of a player who chose DMs; a closed DM is logged (the channel line names them)."""
    if event.ping_mode != NotifyMode.DM or event.order.ended_at is not None:
        return
    user_id = event.order.current.user_id
    try:
        user = bot.get_user(user_id) or await bot.fetch_user(user_id)
        await user.send(
            dm_text(event, _link(event)), allowed_mentions=discord.AllowedMentions.none()
        )
    except discord.HTTPException:
        log.info("turn order #%s: DM to the current player refused", event.order.id)


async def _answer(interaction: Interaction, event: TurnEvent) -> None:
    bot = bot_of(interaction)
    await interaction.response.send_message(
        event_text(event), embed=order_embed(event.order), allowed_mentions=ping_mentions(event)
    )
    await _dm(bot, event)
    wake(bot, event.order.deadline_at)


async def deliver_turn(bot: PbpBot, event: TurnEvent, job_id: int | None = None) -> bool:
    """Post a change the game clock made (a turn whose time was up), in the channel, thread
    or forum post of the turn order; True if it got through."""
    order = event.order
    posted = await post_notice(
        bot,
        order.campaign_id,
        order.channel_id,
        f"the notice that {event.what} in turn order #{order.id}",
        event_text(event),
        embeds=[order_embed(order)],
        mentions=ping_mentions(event),
        job_id=job_id,
    )
    await _dm(bot, event)
    return posted is not None


@turns_group.command(name="start", description="GM: start a turn order in this channel")
@app_commands.describe(
    characters="Names or @mentions, comma-separated; empty for the whole party",
    order="listed (as named), initiative (each rolls the system's check) or random",
    deadline="Per turn: it passes by itself after this long, like 24h",
)
async def turns_start(
    interaction: Interaction,
    characters: app_commands.Range[str, 1, 1000] | None = None,
    order: app_commands.Transform[str, WordChoices(TurnOrderKind)] = TurnOrderKind.LISTED,
    deadline: app_commands.Range[str, 1, 20] | None = None,
) -> None:
    bot = bot_of(interaction)
    seconds = None
    if deadline is not None:
        seconds = int(parse_duration(deadline, what="turn deadline").total_seconds())
    event = await turns.start(
        bot.db, bot.rng, caller_from(interaction), characters, order, seconds, bot.clock.now()
    )
    await _answer(interaction, event)
    await announce_rotation(interaction, event.rotation, Visibility.PUBLIC)


@turns_group.command(name="show", description="The turn order here, and whose turn it is")
async def turns_show(interaction: Interaction) -> None:
    view = await turns.show(bot_of(interaction).db, caller_from(interaction))
    await interaction.response.send_message(embed=order_embed(view), ephemeral=True)


@turns_group.command(name="next", description="End the current turn (its player or a GM)")
async def turns_next(interaction: Interaction) -> None:
    bot = bot_of(interaction)
    await _answer(
        interaction, await turns.next_turn(bot.db, caller_from(interaction), bot.clock.now())
    )


@turns_group.command(name="hold", description="Skip me this round; I keep my place")
async def turns_hold(interaction: Interaction) -> None:
    bot = bot_of(interaction)
    await _answer(interaction, await turns.hold(bot.db, caller_from(interaction), bot.clock.now()))


@turns_group.command(name="end", description="GM: end the turn order here")
async def turns_end(interaction: Interaction) -> None:
    bot = bot_of(interaction)
    await _answer(interaction, await turns.end(bot.db, caller_from(interaction), bot.clock.now()))


async def setup(bot: commands.Bot) -> None:
    if bot.tree.get_command("turns") is None:
        bot.tree.add_command(turns_group)
    DELIVERERS[TurnEvent] = deliver_turn
