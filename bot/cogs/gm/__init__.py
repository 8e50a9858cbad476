"""/gm roll, /gm check, /gm reveal, /gm log: the GM's hidden rolls and the full ledger."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs._gm import ensure_gm_group
from bot.cogs.gm._cog import GmRollsCog


async def setup(bot: commands.Bot) -> None:
    ensure_gm_group(bot)  # the subcommands are attached to it in _cog
    await bot.add_cog(GmRollsCog())
