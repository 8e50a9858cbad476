"""Checks, saves, tests and luck rolls as embeds: the dice, the why, the result in the
system's own words, and a colour per result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord

from bot.quoting import escape
from bot.render import style
from bot.rules import d20_check, roll_under, threshold
from bot.rules import pen_and_dagger as pd
from bot.rules.common import Advantage
from bot.rules.systems import Tone, read
from bot.services.checks import CheckResult, Outcome
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


def kept_dice(dice: tuple[int, ...], kept: int, advantage: Advantage) -> str:
    """`**17**, ~~4~~`: the kept d20 in bold, the other struck through."""
    kept_at = dice.index(kept)
    parts = [f"**{f}**" if i == kept_at else f"~~{f}~~" for i, f in enumerate(dice)]
    note = f" ({advantage.value})" if len(dice) > 1 and advantage is not Advantage.NONE else ""
    return ", ".join(parts) + note


def modifier_sum(kept: int, modifiers: tuple[tuple[str, int], ...]) -> str:
    terms = "".join(f" {style.signed(v)} {name}" for name, v in modifiers)
    return f"{kept}{terms} = **{style.number(kept + sum(v for _, v in modifiers))}**"


def result_text(outcome: Outcome) -> str:
    """The result in the system's own words ("Major Success", "Pass", "Critical Failure")."""
    return read(outcome).result


def colour(outcome: Outcome) -> discord.Colour:
    """A colour per result: gold critical, green success, orange partial, red failure."""
    return TONE_COLOURS[read(outcome).tone]


#: A hidden natural 20 in the GM's copy: the choice to trade it is the player's,
#: and none is offered while the roll is hidden, so the GM copy never says "you may trade it".
GM_NATURAL_20 = "{kept} while the roll is hidden: no trade for a fortune die before it is revealed"


#: The roller's own copy of a hidden roll: its consequences wait for the reveal.
HIDDEN_NATURAL_20 = "{what} when the roll is revealed (nothing is offered while it is hidden)"
HIDDEN_CARRY_OVER = "{value} on the next {attribute} test, from when the roll is revealed"


def _attempt(outcome: pd.AttemptOutcome, for_gm: bool, hidden: bool) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    lines.append(("d20", kept_dice(outcome.dice, outcome.kept, outcome.advantage_state)))
    rank = outcome.base_rank.display_name
    if outcome.adjustment:
        rank += f" {style.signed(outcome.adjustment)} → {outcome.effective_rank.display_name}"
    lines.append(("Rank", rank))
    level = f"{outcome.table_level.display_name} on the Success Table"
    if outcome.shifted_level != outcome.table_level:
        why = "reliable" if outcome.shifted_level > outcome.table_level else "unreliable"
        level += f", {why} → {outcome.shifted_level.display_name}"
    elif outcome.reliable != outcome.unreliable:
        why = "reliable" if outcome.reliable else "unreliable"
        level += f" ({why}: no shift on a natural {outcome.kept})"
    lines.append(("Level", level))
    if outcome.traded:
        lines.append(("Natural 20", "traded for a Normal Success and a fortune die"))
    elif outcome.trade_available and for_gm:
        lines.append(("Natural 20", GM_NATURAL_20.format(kept="A critical")))
    elif outcome.trade_available and hidden:
        what = "You may trade it for a Normal Success and a fortune die"
        lines.append(("Natural 20", HIDDEN_NATURAL_20.format(what=what)))
    elif outcome.trade_available:
        lines.append(("Natural 20", "you may trade it for a Normal Success and a fortune die"))
    return lines


def _luck(outcome: pd.LuckOutcome, for_gm: bool, hidden: bool) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    lines.append(("d20", f"**{outcome.die}** (lucky on 10 or higher)"))
    if outcome.traded:
        lines.append(("Natural 20", "treated as a 10, and a fortune die gained"))
    elif outcome.trade_available and for_gm:
        lines.append(("Natural 20", GM_NATURAL_20.format(kept="Lucky")))
    elif outcome.trade_available and hidden:
        what = "You may treat it as a 10 and gain a fortune die"
        lines.append(("Natural 20", HIDDEN_NATURAL_20.format(what=what)))
    elif outcome.trade_available:
        lines.append(("Natural 20", "you may treat it as a 10 and gain a fortune die"))
    return lines


def _roll_under_save(
    outcome: roll_under.SaveOutcome, for_gm: bool, hidden: bool
) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    name = outcome.ability.name if outcome.ability else "score"
    lines.append(("d20", f"**{outcome.roll}** against {name} {outcome.score} (pass on ≤)"))
    return lines


def _threshold_test(
    outcome: threshold.ThresholdOutcome, for_gm: bool, hidden: bool
) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    lines.append(("d20", modifier_sum(outcome.roll, outcome.modifiers)))
    if not outcome.threshold_hidden:
        tier = f" ({outcome.difficulty.display})" if outcome.difficulty else ""
        lines.append(("Threshold", f"{outcome.threshold}{tier}"))
    crit_at = []
    if outcome.crit_success_at is not None:
        crit_at.append(f"success at {outcome.crit_success_at}+")
    if outcome.crit_failure_at is not None:
        crit_at.append(f"failure at {outcome.crit_failure_at} or less")
    if crit_at:
        lines.append(("Critical", ", ".join(crit_at) + " (and natural 20 / 1)"))
    if outcome.carry_over_next:
        value = style.signed(outcome.carry_over_next)
        text = f"{value} on the next {outcome.attribute} test"
        if hidden:
            text = HIDDEN_CARRY_OVER.format(value=value, attribute=outcome.attribute)
        lines.append(("Next test", text))
    return lines


def _d20_check(
    outcome: d20_check.CheckOutcome, for_gm: bool, hidden: bool
) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    dice = kept_dice(outcome.dice, outcome.kept, outcome.advantage)
    lines.append(("d20", dice))
    lines.append(("Total", modifier_sum(outcome.kept, outcome.modifiers)))
    if outcome.dc is not None:
        lines.append(("DC", str(outcome.dc)))
    return lines


#: Each built-in outcome type's explanation, by type (as avrae/d20 dispatches its stringifier).
_BREAKDOWNS: dict[type, Callable[[Any, bool, bool], list[tuple[str, str]]]] = {
    pd.AttemptOutcome: _attempt,
    pd.LuckOutcome: _luck,
    roll_under.SaveOutcome: _roll_under_save,
    threshold.ThresholdOutcome: _threshold_test,
    d20_check.CheckOutcome: _d20_check,
}


def breakdown(
    outcome: Outcome, *, for_gm: bool = False, hidden: bool = False
) -> list[tuple[str, str]]:
    """(label, text) lines explaining the roll: each die, kept and dropped, modifiers by name.

    ``for_gm``: the GM's copy of a hidden roll, which offers the roller no choice.
    ``hidden``: the roller's own copy of a hidden roll, whose choice and carry-over wait for
    its reveal.
    """
    explain = _BREAKDOWNS.get(type(outcome))
    if explain is None:
        return list(read(outcome).lines)  # any other registered system explains its own rolls
    return explain(outcome, for_gm, hidden)


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
