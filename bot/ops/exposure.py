"""Warn the operator, once per process, about campaigns whose set-up shows hidden results to
every member (bot/services/trust/exposure.py): checked for every server once the bot is ready,
and for each server that becomes available later or that the bot joins. A log line;
nothing is posted in Discord."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.services.trust import exposure

if TYPE_CHECKING:
    from bot.app import PbpBot

log = logging.getLogger(__name__)


def open_channels(guild: discord.Guild) -> frozenset[int]:
    """Channels every member can read: @everyone has View Channel there."""
    everyone = guild.default_role
    return frozenset(
        channel.id for channel in guild.channels if channel.permissions_for(everyone).view_channel
    )


def roles_all_hold(guild: discord.Guild) -> frozenset[int]:
    """Roles every member holds: @everyone, and any other that every member has when the bot
    knows every member (it asks for no members intent, so usually it cannot tell)."""
    held = {guild.default_role.id}
    count = guild.member_count
    if guild.chunked and count:
        humans = [m for m in guild.members if not m.bot]
        if humans:
            common = set.intersection(*({r.id for r in m.roles} for m in humans))
            held |= common
    return frozenset(held)


class ExposureCheck:
    """The check and what it has already said in this process."""

    def __init__(self, bot: PbpBot) -> None:
        self.bot = bot
        self.warned: set[tuple[int, str]] = set()
        bot.add_listener(self.check_all, "on_ready")
        bot.add_listener(self.check_guild, "on_guild_available")
        bot.add_listener(self.check_guild, "on_guild_join")

    async def check_all(self) -> None:
        """Every server the bot is in once it is ready (again after a reconnect: what was
        said is not said again)."""
        for guild in self.bot.guilds:
            await self.check_guild(guild)

    async def check_guild(self, guild: discord.Guild) -> None:
        try:
            setups = await exposure.gm_setups(self.bot.db, [guild.id])
        except Exception:  # a start-up check must never stop the bot
            log.exception("could not check server %s for exposed hidden results", guild.id)
            return
        if not setups:
            return
        channels, roles = open_channels(guild), roles_all_hold(guild)
        for setup in setups:
            for found in exposure.findings(setup, open_channels=channels, roles_all_hold=roles):
                key = (found.campaign_id, found.kind)
                if key not in self.warned:
                    self.warned.add(key)
                    log.warning("hidden results exposed: %s", found.text)
