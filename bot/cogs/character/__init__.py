"""/character: create, show and edit characters."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.character._cog import CharacterCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(CharacterCog())
