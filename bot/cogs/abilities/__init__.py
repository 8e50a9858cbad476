"""/abilities roll | assign: Pen & Dagger group ability-score generation."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.abilities._cog import AbilitiesCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(AbilitiesCog())
