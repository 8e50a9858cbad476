"""Sealed pre-rolls as Discord sees them (docs/prerolls.md): the stub of commitments, the list of
waiting dice, and the line a check that used them shows. Never a sealed die's face."""

from __future__ import annotations

import discord

from bot.quoting import escape
from bot.render import style
from bot.services.rolling.prerolls import MAX_SEALED, AppliedDie, Sealed, SealedDie, Waiting


def _when(die: SealedDie) -> str:
    return f"<t:{int(die.sealed_at.timestamp())}:f>"


def sealed_embed(sealed: Sealed) -> discord.Embed:
    """``/preroll``'s public stub: one commitment per sealed d20, and nothing of the dice."""
    name = escape(sealed.character.name)
    count = len(sealed.dice)
    embed = style.new_embed(
        f"{name} seals {style.count(count, 'd20', 'd20s')}",
        f"Pre-rolled d20s for {name}: nobody sees them, the player included, until the GM "
        f"applies one to a check (/gm check character:{name} ... preroll:next). Each one's "
        "commitment, fixed now:",
        style.INFO,
    )
    if count == 1:
        # As a hidden roll's stub names it, so /verify reads it back from this message.
        (die,) = sealed.dice
        style.add_field(embed, f"Roll #{die.number} · Commitment (SHA-256)", f"`{die.commitment}`")
    else:
        lines = [f"**#{die.number}** `{die.commitment}`" for die in sealed.dice]
        style.add_field(embed, "Sealed rolls and their commitments (SHA-256)", "\n".join(lines))
    style.set_footer(
        embed,
        f"{name} holds {sealed.waiting} of at most {MAX_SEALED} sealed pre-rolls · once applied, "
        "check one with /verify",
    )
    return embed


def waiting_embed(found: list[Waiting]) -> discord.Embed:
    """``/prerolls``: each character's sealed dice still waiting, oldest (used next) first."""
    if not found:
        return style.new_embed(
            "Sealed pre-rolls",
            "No character of this campaign holds a sealed pre-roll: players seal d20s with "
            "/preroll.",
            style.INFO,
        )
    embed = style.new_embed(
        "Sealed pre-rolls",
        "Waiting to be applied by the GM (`preroll:next` uses the oldest first). Nobody has "
        "seen these dice.",
        style.INFO,
    )
    for entry in found[: style.FIELDS_LIMIT]:
        lines = [f"#{die.number} · sealed {_when(die)}" for die in entry.dice]
        style.add_field(
            embed,
            f"{escape(entry.character_name)}: {len(entry.dice)}",
            style.clip("\n".join(lines), style.FIELD_VALUE_LIMIT),
        )
    return embed


def applied_field(embed: discord.Embed, applied: tuple[AppliedDie, ...]) -> discord.Embed:
    """The check's result with the sealed dice it used: when each was sealed (before the GM
    chose this check), its roll number and commitment, and how to verify it."""
    lines = [
        f"d20 **{die.face}** · sealed as roll **#{die.sealed.number}** {_when(die.sealed)}, "
        f"before this check was chosen\ncommitment `{die.sealed.commitment}` · "
        f"check it: /verify roll:{die.sealed.number}"
        for die in applied
    ]
    title = "Sealed pre-roll" if len(applied) == 1 else "Sealed pre-rolls (the next two)"
    style.add_field(embed, title, "\n".join(lines))
    return embed
