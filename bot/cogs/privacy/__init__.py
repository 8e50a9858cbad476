"""/privacy show | delete."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.privacy._cog import PrivacyCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(PrivacyCog())
