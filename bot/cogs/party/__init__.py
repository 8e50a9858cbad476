"""/party add | remove | show."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.party._cog import PartyCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(PartyCog())
