"""/me notify: how the game clock reaches me; /me dice: my dice notation's dialect."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.me._cog import me_group


async def setup(bot: commands.Bot) -> None:
    if bot.tree.get_command("me") is None:
        bot.tree.add_command(me_group)
