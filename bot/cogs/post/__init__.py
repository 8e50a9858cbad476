"""/post, /post-edit, /post-history: posting as a character (docs/posting.md)."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.post._cog import PostCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(PostCog())
