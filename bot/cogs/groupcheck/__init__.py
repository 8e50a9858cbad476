"""/groupcheck: the GM calls for a group ability check, skills included."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.groupcheck._cog import GroupCheckCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(GroupCheckCog())
