"""/history, /verify, /stats: the ledger as players may see it."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.history._cog import HistoryCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(HistoryCog())
