"""/verify log:True in plain words: the campaign's chain intact, or where it breaks."""

from __future__ import annotations

import re

import discord

from bot.render import style
from bot.services.trust.gamelog import LogCheck

#: The fields a published check shows, read back by the next check (its checkpoint).
HEAD_FIELD = "Head"
UPTO_FIELD = "Checked up to"
_HEAD = re.compile(r"^`([0-9a-f]{64})`$")
_UPTO = re.compile(r"^#(\d+)$")


def log_check_embed(result: LogCheck) -> discord.Embed:
    """Intact: how many rolls and the head to compare with public footers. Broken: where."""
    if result.broken is None and result.since:
        embed = style.new_embed(
            "The game log is intact",
            f"The {result.rolls:,} rolls since the last check (#{result.since:,}, whose head "
            "was published here and read back) link up to it: none was changed, removed or "
            f"reordered. {result.last_number:,} rolls in all; `/verify log:True full:True` "
            "walks them all again.",
            style.SUCCESS,
        )
    elif result.broken is None:
        embed = style.new_embed(
            "The game log is intact",
            f"All {result.rolls:,} rolls of this campaign link up, from the first to the last: "
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
    if result.checkpoint_unconfirmed:
        embed.description = (
            f"{embed.description}\n\nThe last check's message no longer shows the head it "
            "published, so the whole log was walked."
        )
    style.add_field(embed, HEAD_FIELD, f"`{result.head}`")
    if result.broken is None:
        style.add_field(embed, UPTO_FIELD, f"#{result.last_number}")
    style.set_footer(
        embed, f"Public results show the first 12 characters of the head: log {result.head[:12]}"
    )
    return embed


def published_checkpoint(embeds: list[discord.Embed]) -> tuple[int, str] | None:
    """The roll number and head an intact check's message shows, as Discord shows it now."""
    for embed in embeds:
        fields = {f.name: (f.value or "") for f in embed.fields}
        head = _HEAD.match(fields.get(HEAD_FIELD, ""))
        upto = _UPTO.match(fields.get(UPTO_FIELD, ""))
        if head and upto:
            return int(upto.group(1)), head.group(1)
    return None
