"""/reroll: reroll one d20 of an advantage or disadvantage roll (d20 check)."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.reroll._cog import RerollCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(RerollCog())
