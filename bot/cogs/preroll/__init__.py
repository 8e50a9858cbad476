"""/preroll and /prerolls: sealed d20s a player rolls in advance (docs/prerolls.md)."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.preroll._cog import PrerollCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(PrerollCog())
