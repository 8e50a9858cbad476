"""How a recorded roll answers its interaction, shared by its command and /macro run.

One function per result type, so a saved roll (a macro) answers with the very embed its command
would, and no cog imports another feature's private module.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.cogs._common import caller_from
from bot.cogs._delivery import deliver
from bot.cogs._respond import answer
from bot.cogs._types import Interaction
from bot.cogs._views.fortune import fortune_view_for
from bot.render.attacks import attack_embed
from bot.render.checks import check_embed
from bot.render.dice import roll_embed
from bot.render.fair import rotation_text
from bot.render.secrecy import Delivery
from bot.services import fairness, secrecy
from bot.services.attacks import AttackResult
from bot.services.checks import CheckResult
from bot.services.rolls import DiceRoll
from bot.words import Visibility


async def send_attack(
    interaction: Interaction, result: AttackResult, *, by_gm: bool = False
) -> None:
    """Answer with the attack; a hidden one through deliver (stub, ephemeral, GM copy)."""
    await deliver(
        interaction,
        Delivery.of(
            result,
            attack_embed(result, gm_copy=by_gm),
            roller=result.attacker,
            what=result.title,
            gm_full=attack_embed(result, gm_copy=True),
        ),
        roller_is_gm=by_gm or secrecy.viewer_is_gm(result.campaign, caller_from(interaction)),
    )


async def send_check(interaction: Interaction, result: CheckResult) -> None:
    """Answer with a check, save or luck roll."""
    # Hidden rolls answer through deliver (stub / ephemeral / GM copy: docs/secret-rolls.md).
    # A public one needs neither the GM's copy nor the roller's GM standing: not built.
    hidden = result.visibility is not Visibility.PUBLIC
    await deliver(
        interaction,
        Delivery.of(
            result,
            check_embed(result),
            roller=result.character.name,
            what=result.plan_title,
            gm_full=check_embed(result, gm_copy=True) if hidden else None,
        ),
        # A GM's own blind roll is shown to them (they are who it is hidden for).
        roller_is_gm=hidden and secrecy.viewer_is_gm(result.campaign, caller_from(interaction)),
        view=fortune_view_for(result),
    )


async def send_roll(interaction: Interaction, rolled: DiceRoll) -> None:
    """Answer with a generic roll."""
    name = interaction.user.display_name
    await deliver(
        interaction,
        Delivery.of(rolled, roll_embed(name, rolled), roller=name, what=rolled.label or "dice"),
    )


async def announce_rotation(
    interaction: Interaction, rotation: fairness.Rotation | None, visibility: Visibility
) -> None:
    """A seed the command's roll used up, revealed to the place and the next hash published
    (docs/fair-dice.md); not after a ``self`` roll, which the place does not see happen
    (/seed show has the revealed seed and the new hash)."""
    if rotation is not None and visibility is not Visibility.SELF:
        await answer(interaction, rotation_text(rotation))


async def announce_rotations(
    interaction: Interaction, rotations: Iterable[fairness.Rotation]
) -> None:
    """:func:`announce_rotation` of each seed a command with several rolls used up (after its
    last roll: a post's `[[…]]`, a group roll, a request's answer, pre-rolls); their answers
    are seen in the place."""
    for rotation in rotations:
        await answer(interaction, rotation_text(rotation))
