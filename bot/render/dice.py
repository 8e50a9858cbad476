"""Generic rolls as embeds: the notation with every die, kept and dropped, and the total.

Several rolls in one command (``6#4d6kh3``, ``1d20+5 [attack]; 2d6 [damage]``) are one embed
with a line per roll, each with its own total, all within Discord's description limit.
"""

from __future__ import annotations

import discord

from bot.dice import RollResult, reading_notes, render_markdown
from bot.quoting import escape
from bot.render import style
from bot.services.rolling.rolls import DiceRoll


def _verdict(result: RollResult) -> str:
    """The bold last line: the total, or pass/fail for a comparison."""
    if result.compared is not None:
        return "**Pass**" if result.passed else "**Fail**"
    return f"**Total: {style.number(result.total)}**"


def roll_embed(roller: str, dice_roll: DiceRoll) -> discord.Embed:
    """`alice rolls 1d20+5 [fire]`: the breakdown, the total, the ledger id."""
    results = dice_roll.results
    result = results[0]
    colour = style.NEUTRAL
    # How contested spellings were read (docs/dice.md, "Dialects"): small text under the roll.
    notes = ""
    for note in reading_notes(results):
        if len(notes) + len(note) > 600:
            break
        notes += f"\n-# {note}"
    if len(results) == 1:
        what = dice_roll.label or ", ".join(result.labels) or result.expression
        if result.natural_20:
            colour = style.CRITICAL_SUCCESS
        elif result.natural_1:
            colour = style.CRITICAL_FAILURE
        body = render_markdown(result, max_length=style.DESCRIPTION_LIMIT - 40 - len(notes))
        description = f"{body}\n{_verdict(result)}{notes}"
    else:
        what = dice_roll.label or dice_roll.notation
        # Every line gets an equal share of the description; the totals line always fits.
        totals = ", ".join(
            ("pass" if r.passed else "fail") if r.compared is not None else style.number(r.total)
            for r in results
        )
        totals = style.clip(totals, 1000)
        room = (style.DESCRIPTION_LIMIT - len(totals) - len(notes) - 40) // len(results) - 6
        lines = [
            f"`{i}` {render_markdown(r, max_length=room)}" for i, r in enumerate(results, start=1)
        ]
        description = "\n".join(lines) + f"\n**Totals: {totals}**{notes}"
    embed = style.new_embed(f"{escape(roller)} rolls {escape(what)}", description, colour)
    style.set_footer(embed, style.roll_ref(dice_roll.number, dice_roll.chain))
    return embed
