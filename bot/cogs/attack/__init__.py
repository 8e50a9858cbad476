"""/attack and /gm attack: d20-check attack rolls, with the campaign's critical rules."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs._gm import ensure_gm_group
from bot.cogs.attack._cog import AttackCog


async def setup(bot: commands.Bot) -> None:
    ensure_gm_group(bot)  # /gm attack is attached to it in _cog
    await bot.add_cog(AttackCog())
