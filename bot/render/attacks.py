"""Attack rolls as embeds: the d20s, the modifiers, the AC, the damage, and what a critical or
a fumble did (d20 check ruling 7)."""

from __future__ import annotations

import discord

from bot.dice import render_markdown
from bot.quoting import escape
from bot.render import style
from bot.rules import d20_check
from bot.rules.systems.base import kept_dice, modifier_sum
from bot.services.rolling.attacks import AttackResult
from bot.services.rolling.checks import SYSTEM_NAMES
from bot.words import Visibility

_COLOURS = {
    d20_check.AttackResult.CRITICAL_HIT: style.CRITICAL_SUCCESS,
    d20_check.AttackResult.HIT: style.SUCCESS,
    d20_check.AttackResult.MISS: style.FAILURE,
}


def item_save_text(save: d20_check.ItemSaveOutcome, holds: str, fails: str) -> str:
    """`d20 7 + 2 (Master) = 9 against DC 10: the weapon breaks`."""
    name, bonus = save.modifiers[0]
    verdict = holds if save.saved else fails
    total = f"d20 {save.roll} {style.signed(bonus)} ({name}) = **{save.total}**"
    return f"{total} against DC {save.dc}: {verdict}"


def ac_text(result: AttackResult) -> str:
    """`15`, or `15 − 3 (critical hits) = 12` when critical hits have lowered a target's AC."""
    sheet = f" ({escape(result.target)}'s own)" if result.ac_from_sheet and result.target else ""
    if not result.ac_loss_before:
        return f"{result.outcome.ac}{sheet}"
    return (
        f"{result.ac_given}{sheet} − {result.ac_loss_before} (critical hits) = {result.outcome.ac}"
    )


def attack_lines(result: AttackResult, *, hidden: bool = False) -> list[tuple[str, str]]:
    """(label, text) lines explaining the attack, in the order a player reads them."""
    outcome = result.outcome
    lines = [
        ("d20", kept_dice(outcome.dice, outcome.kept, outcome.advantage)),
        ("Total", modifier_sum(outcome.kept, outcome.modifiers)),
        ("AC", ac_text(result)),
    ]
    if outcome.crit_rules and outcome.kept == 20 and not outcome.critical:
        lines.append(("Natural 20", "not a critical: even a natural 20 does not reach this AC"))
    if result.damage is not None:
        text = render_markdown(result.damage.roll)
        if result.damage.again is not None:
            text += f"\nCritical: every damage die again: {render_markdown(result.damage.again)}"
            text += f" (dice {style.signed(result.damage.extra)})"
        lines.append(("Damage", f"{text}\n**{result.damage.total} damage**"))
    kept = result.kept_damage
    if kept is not None:
        text = f"`{kept.expression}` = {kept.rolled}, as roll #{kept.number} rolled it"
        if kept.again is not None:
            text += f"\nCritical: every damage die again: {render_markdown(kept.again)}"
            text += f" (dice {style.signed(kept.added)})"
        elif kept.extra:
            text += (
                f"\nCritical: every damage die again, as roll #{kept.number} rolled them "
                f"(dice {style.signed(kept.extra)})"
            )
        lines.append(("Damage", f"{text}\n**{kept.total} damage**"))
    if outcome.fumble:
        if outcome.weapon_save is not None:
            lines.append(
                (
                    "Weapon save",
                    item_save_text(outcome.weapon_save, "the weapon holds", "the weapon breaks"),
                )
            )
        else:
            lines.append(("Fumble", "no quality save (Novice, Yeoman or unstated): it breaks"))
    if outcome.critical:
        if outcome.armor_save is not None:
            lines.append(
                (
                    "Armour save",
                    item_save_text(outcome.armor_save, "the armour holds", "the armour gives way"),
                )
            )
        lines.append(("Target's AC", _ac_loss_text(result, hidden)))
    return lines


def _ac_loss_text(result: AttackResult, hidden: bool) -> str:
    who = escape(result.target) if result.target else "the target"
    if not result.outcome.lowers_target_ac:
        return f"{who}'s AC stays as it was"
    if result.damage_total is None:
        return (
            f"lowered by the damage: roll it (give damage: next time) and take it from {who}'s AC"
        )
    if result.sheet_locked:
        return (
            f"lowered by {result.ac_lost}, to {max(0, result.outcome.ac - result.ac_lost)}; not "
            f"stored on {who}'s sheet: it holds no AC of its own (/character armour), and only "
            "an attack against it, or the GM's, changes another player's character"
        )
    if result.stored:
        return (
            f"lowered by {result.ac_lost}: {who}'s AC is now "
            f"{max(0, result.ac_given - result.ac_loss_after)} "
            f"(critical hits have taken {result.ac_loss_after} in all)"
        )
    if result.target and hidden:
        return f"lowered by {result.ac_lost}, stored for {who} when the roll is revealed"
    return f"lowered by {result.ac_lost}, to {max(0, result.outcome.ac - result.ac_lost)}"


def attack_embed(result: AttackResult, *, gm_copy: bool = False) -> discord.Embed:
    """The result of an attack. ``gm_copy`` (the GM's copy of a hidden one) reads the same: an
    attack offers no choice, and a hidden one's AC loss waits for its reveal either way."""
    outcome = result.outcome
    hidden = result.visibility is not Visibility.PUBLIC
    title = f"{escape(result.attacker)}: {escape(result.title)}"
    if result.target:
        title += f" on {escape(result.target)}"
    embed = style.new_embed(title, f"**{outcome.result_text}**", _COLOURS[outcome.result])
    for label, text in attack_lines(result, hidden=hidden):
        style.add_field(embed, label, text, inline=label in {"d20", "AC"})
    system = SYSTEM_NAMES[result.campaign.system]
    crit = "crit rules on" if outcome.crit_rules else "crit rules off"
    style.set_footer(embed, f"{system} · {crit} · {style.roll_ref(result.number, result.chain)}")
    return embed
