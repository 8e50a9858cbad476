"""/seed show | rotate: the dice's server seed of any place, campaign or not (docs/fair-dice.md)."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.seed._cog import seed_group


async def setup(bot: commands.Bot) -> None:
    if bot.tree.get_command("seed") is None:
        bot.tree.add_command(seed_group)
