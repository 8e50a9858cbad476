"""A d20-check reroll as an embed: the check or attack as it now stands, and which die was
replaced."""

from __future__ import annotations

import discord

from bot.quoting import escape
from bot.render import style
from bot.render.attacks import attack_embed
from bot.render.checks import check_embed
from bot.services.rolling.rerolls import RerollResult
from bot.words import Visibility


def reroll_embed(result: RerollResult, *, gm_copy: bool = False) -> discord.Embed:
    """The roll with one die rerolled; the original roll stays as it was in the log."""
    if result.attack is not None:
        embed = attack_embed(result.attack, gm_copy=gm_copy)
    else:
        assert result.check is not None
        embed = check_embed(result.check, gm_copy=gm_copy)
    lines = [
        f"{result.which} die {result.replaced} → **{result.new}** "
        f"(roll #{result.original_number} stays in the log as rolled)",
        *attack_changes(result),
    ]
    style.add_field(embed, "Reroll", "\n".join(lines))
    return embed


def attack_changes(result: RerollResult) -> list[str]:
    """What a rerolled attack changed besides its d20: its damage and its target's AC."""
    attack = result.attack
    if attack is None:
        return []
    number = result.original_number
    lines = []
    if attack.outcome.hit and not result.original_hit and attack.damage is not None:
        lines.append(f"Roll #{number} missed: the damage is rolled now.")
    elif attack.kept_damage is not None:
        lines.append(
            f"The damage stands as roll #{number} rolled it: the reroll is of the d20, not "
            "of the damage dice."
        )
    elif not attack.outcome.hit and result.original_damage is not None:
        lines.append(f"Roll #{number}'s {result.original_damage} damage is not dealt.")
    if attack.target and attack.ac_lost != result.original_ac_lost and not attack.sheet_locked:
        who = escape(attack.target)
        took = (
            f"Roll #{number}'s critical took {result.original_ac_lost} from {who}'s AC, "
            f"this one takes {attack.ac_lost}"
        )
        if result.sheet_corrected:
            now = max(0, attack.ac_given - attack.ac_loss_after)
            lines.append(f"{took}: {who}'s AC is now {now}.")
        elif attack.visibility is not Visibility.PUBLIC:
            lines.append(f"{took}: stored for {who} when the rolls are revealed.")
    return lines
