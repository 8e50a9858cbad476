"""/catchup: what happened in this campaign since my last action (private)."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.catchup._cog import catchup_command


async def setup(bot: commands.Bot) -> None:
    if bot.tree.get_command("catchup") is None:
        bot.tree.add_command(catchup_command)
