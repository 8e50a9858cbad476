"""/verify log:True in plain words: the campaign's chain intact, or where it breaks."""

from __future__ import annotations

import discord

from bot.render import style
from bot.services.gamelog import LogCheck


def log_check_embed(result: LogCheck) -> discord.Embed:
    """Intact: how many rolls and the head to compare with public footers. Broken: where."""
    if result.broken is None:
        embed = style.new_embed(
            "The game log is intact",
            f"All {result.rolls} rolls of this campaign link up, from the first to the last: "
            "none was changed, removed or reordered since it was written.",
            style.SUCCESS,
        )
    else:
        where = (
            f"at roll #{result.broken.number}" if result.broken.number is not None else "at the end"
        )
        embed = style.new_embed(
            f"The game log breaks {where}",
            f"The log was changed after it was written: {result.broken.reason}. "
            "Everything before that roll still verifies.",
            style.FAILURE,
        )
    style.add_field(embed, "Head", f"`{result.head}`")
    style.set_footer(
        embed, f"Public results show the first 12 characters of the head: log {result.head[:12]}"
    )
    return embed
