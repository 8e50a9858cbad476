"""/macro save | run | list | delete: saved rolls (docs/posting.md)."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs.macro._cog import MacroCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(MacroCog())
