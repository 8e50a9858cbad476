"""/roll: the generic dice roller."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.dice._cog import DiceCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(DiceCog())
