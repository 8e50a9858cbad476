"""Saved rolls as text and embeds: names and roll texts are the player's, always escaped."""

from __future__ import annotations

import discord

from bot.quoting import clip_text, escape
from bot.render import style
from bot.services.rolling.macros import MacroList, MacroView


def macro_line(macro: MacroView) -> str:
    """`**sneak**: /check DEX Stealth adv`."""
    return f"**{escape(macro.name)}**: /{escape(clip_text(macro.roll, 200))}"


def saved_text(macro: MacroView) -> str:
    """The answer to /macro save."""
    return (
        f"Saved {macro_line(macro)}. Run it with /macro run name:{escape(macro.name)}, "
        f"or write [[{escape(macro.name)}]] in a post."
    )


def deleted_text(macro: MacroView) -> str:
    """The answer to /macro delete."""
    return f"Deleted the saved roll {macro_line(macro)}."


def list_embed(listed: MacroList) -> discord.Embed:
    """/macro list: the active character's saved rolls."""
    title = f"{escape(listed.character)}'s saved rolls"
    if not listed.macros:
        return style.new_embed(
            title,
            "None yet: save one with /macro save name:sneak roll:check DEX Stealth adv.",
            style.INFO,
        )
    lines = "\n".join(macro_line(m) for m in listed.macros)
    return style.new_embed(title, style.clip(lines, style.DESCRIPTION_LIMIT), style.NEUTRAL)
