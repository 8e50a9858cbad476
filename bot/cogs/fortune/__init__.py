"""/fortune show | spend | give | take, the fortune-dice buttons on rolls, /gm clear-modifier."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs._gm import ensure_gm_group
from bot.cogs._views.fortune import DYNAMIC_ITEMS
from bot.cogs.fortune._cog import FortuneCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(FortuneCog())
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
    ensure_gm_group(bot)  # /gm clear-modifier is attached to it in _cog
