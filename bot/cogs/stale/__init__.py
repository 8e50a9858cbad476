"""Buttons and forms whose message outlived what the bot remembers: answered, not ignored."""

from discord.ext import commands

from bot.cogs.stale._cog import StaleCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(StaleCog(bot))
