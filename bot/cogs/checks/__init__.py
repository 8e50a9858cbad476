"""/check, /save and /luck: the campaign system's core rolls."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.checks._cog import ChecksCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ChecksCog())
