"""/help [topic]: how to play, privately, where the player is."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.help._cog import HelpCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(HelpCog())
