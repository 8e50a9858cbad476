"""/odds check | save | luck | roll: exact odds before anyone rolls."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.odds._cog import OddsCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(OddsCog())
