"""Generic rolls as embeds: the notation with every die, kept and dropped, and the total."""

from __future__ import annotations

import discord

from bot.dice import render_markdown
from bot.quoting import escape
from bot.render import style
from bot.services.rolls import DiceRoll


def roll_embed(roller: str, dice_roll: DiceRoll) -> discord.Embed:
    """`alice rolls 1d20+5 [fire]`: the breakdown, the total, the ledger id."""
    result = dice_roll.result
    what = dice_roll.label or ", ".join(result.labels) or result.expression
    colour = style.NEUTRAL
    if result.natural_20:
        colour = style.CRITICAL_SUCCESS
    elif result.natural_1:
        colour = style.CRITICAL_FAILURE
    body = render_markdown(result, max_length=style.DESCRIPTION_LIMIT - 40)
    embed = style.new_embed(
        f"{escape(roller)} rolls {escape(what)}",
        f"{body}\n**Total: {style.number(result.total)}**",
        colour,
    )
    style.set_footer(embed, style.roll_ref(dice_roll.number, dice_roll.chain))
    return embed
