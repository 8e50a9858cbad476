"""/campaign: bind a channel to a game and manage its settings."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.campaign._cog import CampaignCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(CampaignCog())
