"""The message context-menu command "Roll the dice in this message" (docs/posting.md)."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.inline._cog import InlineCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(InlineCog(bot))
