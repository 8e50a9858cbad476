"""Colours, signs and Discord's size limits shared by every renderer."""

from __future__ import annotations

import discord

# Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits).
MESSAGE_LIMIT = 2000
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELD_NAME_LIMIT = 256
FIELD_VALUE_LIMIT = 1024
FIELDS_LIMIT = 25
FOOTER_LIMIT = 2048
EMBED_TOTAL_LIMIT = 6000

CRITICAL_SUCCESS = discord.Colour(0xF1C40F)
SUCCESS = discord.Colour(0x2ECC71)
PARTIAL = discord.Colour(0xE67E22)
FAILURE = discord.Colour(0xE74C3C)
CRITICAL_FAILURE = discord.Colour(0x992D22)
NEUTRAL = discord.Colour(0x5865F2)
INFO = discord.Colour(0x95A5A6)


def clip(text: str, limit: int) -> str:
    """Shorten ``text`` to ``limit`` characters, marking the cut with an ellipsis."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


#: The one minus sign of every message: U+2212, as on a printed sheet; never "-".
MINUS = "−"


def count(n: int, one: str, many: str) -> str:
    """``1 d20``, ``2 d20s``: a number and its noun, agreeing."""
    return f"{number(n)} {one if n == 1 else many}"


def number(value: int) -> str:
    """A result that may be negative: ``−3``, ``0``, ``12``."""
    return f"{MINUS}{-value}" if value < 0 else str(value)


def signed(value: int) -> str:
    """+2 / −1 / +0, the way modifiers are written on a sheet."""
    return f"+{value}" if value >= 0 else f"{MINUS}{-value}"


def new_embed(title: str, description: str = "", colour: discord.Colour = NEUTRAL) -> discord.Embed:
    """An embed with title and description clipped to Discord's limits."""
    return discord.Embed(
        title=clip(title, TITLE_LIMIT),
        description=clip(description, DESCRIPTION_LIMIT) or None,
        colour=colour,
    )


def add_field(embed: discord.Embed, name: str, value: str, *, inline: bool = False) -> None:
    """Add a field within the limits; past 25 fields or 6,000 characters, summarise instead."""
    name, value = clip(name, FIELD_NAME_LIMIT), clip(value or "—", FIELD_VALUE_LIMIT)
    if len(embed.fields) >= FIELDS_LIMIT - 1 or len(embed) + len(name) + len(value) > 5800:
        if not embed.fields or embed.fields[-1].name != "…":
            embed.add_field(name="…", value="more not shown (Discord's size limit)", inline=False)
        return
    embed.add_field(name=name, value=value, inline=inline)


def roll_ref(number: int, chain: str = "") -> str:
    """``roll #12 · log 3f9a1c2b7d0e``: the public number and, for a public result, the short
    head of its campaign's hash chain after it, to compare with /verify log (docs/secret-rolls.md,
    "The game log")."""
    if not chain:
        return f"roll #{number}"
    return f"roll #{number} · log {chain[:12]}"


def set_footer(embed: discord.Embed, text: str) -> None:
    """Footer within the limit."""
    embed.set_footer(text=clip(text, FOOTER_LIMIT))
