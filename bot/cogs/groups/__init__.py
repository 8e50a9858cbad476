"""/groupsave and /contest: the party's group mechanics, per the campaign's system."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.groups._cog import GroupsCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(GroupsCog())
