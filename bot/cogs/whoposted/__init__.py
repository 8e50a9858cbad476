"""The message context-menu command "Who posted this?": a post's player, for anyone."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.whoposted._cog import WhoPostedCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(WhoPostedCog(bot))
