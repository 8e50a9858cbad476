"""Where the caller of an interaction can read, as the predicate services take
(:data:`bot.services.kit.context.ReadCheck`; the rule is in bot/services/trust/scope.py).

A check that must ask Discord (a channel not cached, a private thread's members) defers the
interaction first, privately: the commands that ask answer the caller alone, and a reveal,
which is public, is then posted as a message of its own (bot/cogs/_delivery.py).

Discord's rule: a member reads a channel with View Channel (discord.py: ``read_messages``);
a thread inherits its parent's permissions, and a private thread also needs the member to be
in it, or to have Manage Threads (Administrator and the server owner have it). Readability is
asked at the time of the command, never stored.
"""

from __future__ import annotations

import asyncio

import discord

from bot.interaction import Interaction, defer
from bot.services.kit.context import ReadCheck

Place = discord.abc.GuildChannel | discord.Thread


def read_check(interaction: Interaction) -> ReadCheck:
    """The caller's predicate; each channel is asked about once per interaction (also when
    asked concurrently)."""
    known: dict[int, asyncio.Future[bool | None]] = {}

    async def can_read(channel_id: int) -> bool | None:
        if channel_id not in known:
            known[channel_id] = asyncio.ensure_future(_can_read(interaction, channel_id))
        return await asyncio.shield(known[channel_id])

    return can_read


async def _can_read(interaction: Interaction, channel_id: int) -> bool | None:
    if channel_id == interaction.channel_id:
        return True  # Discord only lets a member use a command where they can read
    guild, member = interaction.guild, interaction.user
    if guild is None or not isinstance(member, discord.Member):
        return False  # a direct message reads nothing but itself
    place: Place | None = guild.get_channel_or_thread(channel_id)
    if place is None:
        # Not cached is not gone: discord.py drops archived threads from its cache, and play
        # by post archives threads after days of quiet. Only "Unknown Channel" means gone.
        # A REST call: the answer is deferred first (Discord wants an answer within 3 s).
        await defer(interaction, ephemeral=True)
        try:
            place = await guild.fetch_channel(channel_id)
        except (discord.NotFound, discord.InvalidData):  # deleted, or another server's
            return None
        except discord.HTTPException:  # Missing Access: nobody sees what the bot cannot
            return False
    try:
        permissions = place.permissions_for(member)
    except discord.ClientException:  # a thread whose parent is not cached: fail closed
        return False
    if not permissions.read_messages:
        return False
    if isinstance(place, discord.Thread) and place.is_private():
        return permissions.manage_threads or await _in_thread(interaction, place, member)
    return True


async def _in_thread(
    interaction: Interaction, thread: discord.Thread, member: discord.Member
) -> bool:
    """Membership of a private thread: the cache if it knows (it needs the members intent,
    which the bot does not ask for), else Discord."""
    if any(joined.id == member.id for joined in thread.members):
        return True
    await defer(interaction, ephemeral=True)
    try:
        await thread.fetch_member(member.id)
    except discord.HTTPException:  # Unknown Member, or the bot may not ask: not a member
        return False
    return True
