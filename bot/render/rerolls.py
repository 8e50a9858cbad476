"""A d20-check reroll as an embed: the check as it now stands, and which die was replaced."""

from __future__ import annotations

import discord

from bot.render import style
from bot.render.checks import check_embed
from bot.services.rerolls import RerollResult


def reroll_embed(result: RerollResult, *, gm_copy: bool = False) -> discord.Embed:
    """The check with one die rerolled; the original roll stays as it was in the log."""
    embed = check_embed(result.check, gm_copy=gm_copy)
    style.add_field(
        embed,
        "Reroll",
        f"{result.which} die {result.replaced} → **{result.new}** "
        f"(roll #{result.original_number} stays in the log as rolled)",
    )
    return embed
