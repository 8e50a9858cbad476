"""Checks, saves, tests and luck rolls as embeds: the dice, the why, the result in the
system's own words, and a colour per result."""

from __future__ import annotations

import discord

from bot.quoting import escape
from bot.render import style
from bot.rules.systems import Tone, View, explain, read
from bot.services.rolling.checks import CheckResult, Outcome
from bot.words import Visibility

#: A colour per tone (bot/rules/systems: each system says how its results feel).
TONE_COLOURS = {
    Tone.CRITICAL_SUCCESS: style.CRITICAL_SUCCESS,
    Tone.SUCCESS: style.SUCCESS,
    Tone.PARTIAL: style.PARTIAL,
    Tone.FAILURE: style.FAILURE,
    Tone.CRITICAL_FAILURE: style.CRITICAL_FAILURE,
    Tone.NEUTRAL: style.NEUTRAL,
}


def result_text(outcome: Outcome) -> str:
    """The result in the system's own words ("Major Success", "Pass", "Critical Failure")."""
    return read(outcome).result


def colour(outcome: Outcome) -> discord.Colour:
    """A colour per result: gold critical, green success, orange partial, red failure."""
    return TONE_COLOURS[read(outcome).tone]


def breakdown(
    outcome: Outcome, *, for_gm: bool = False, hidden: bool = False
) -> list[tuple[str, str]]:
    """(label, text) lines explaining the roll, in its system's words (``System.explain``).

    ``for_gm``: the GM's copy of a hidden roll, which offers the roller no choice.
    ``hidden``: the roller's own copy of a hidden roll, whose choice and carry-over wait for
    its reveal.
    """
    view = View.GM_COPY if for_gm else View.HIDDEN if hidden else View.LIVE
    return list(explain(outcome, view))


def check_embed(result: CheckResult, *, gm_copy: bool = False) -> discord.Embed:
    """The public result of a check, save, test or luck roll.

    ``gm_copy``: the copy a GM gets of a hidden roll (no choice offered to them).
    """
    outcome = result.outcome
    hidden = result.visibility is not Visibility.PUBLIC
    for_gm = gm_copy and hidden
    reading = read(outcome)  # once: a check's embed is the hottest render path
    embed = style.new_embed(
        f"{escape(result.character.name)}: {escape(result.plan_title)}",
        f"**{reading.result}**",
        TONE_COLOURS[reading.tone],
    )
    for label, text in breakdown(outcome, for_gm=for_gm, hidden=hidden and not for_gm):
        style.add_field(embed, label, text, inline=label in {"d20", "Rank", "Threshold", "DC"})
    system = result.campaign.rules.name
    style.set_footer(embed, f"{system} · {style.roll_ref(result.number, result.chain)}")
    return embed
