"""The game clock's loop: runs due scheduled jobs and posts what they produced."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.clock._cog import ClockCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ClockCog(bot))
