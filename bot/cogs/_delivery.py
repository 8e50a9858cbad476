"""Answer a rolling command with the right visibility (public, gm, blind or self).

- public: the result in the channel.
- gm: a stub in the channel, the result ephemerally to the roller, a copy to the GM.
- blind: a stub in the channel, a copy to the GM only (the roller gets a note).
- self: the result ephemerally to the roller only.

The GM copy goes to the campaign's GM channel; failing that, by direct message to today's
GMs among the campaign's known GMs (bot/cogs/_notices.py, which also tells the GM once why the
GM channel refused); failing both, the roller is told (without any of the result) that a GM
channel is the reliable way. The roll is recorded before any of this, exactly once.

How a recorded roll answers its interaction, shared by its command and /macro run.

One function per result type, and :func:`answer_for` choosing among them by the result, so a
saved roll (a macro) answers with the very embed its command would, and no cog imports another
feature's private module.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import discord

from bot.cogs import _places as places
from bot.cogs._caller import bot_of, caller_from
from bot.cogs._notices import send_to_gm
from bot.cogs._views.fortune import fortune_view_for
from bot.interaction import Interaction, answer, awaits_answer, defer, deferred_ephemeral
from bot.render import places as place_words
from bot.render import secrecy as render
from bot.render.attacks import attack_embed
from bot.render.checks import check_embed
from bot.render.dice import roll_embed
from bot.render.fair import rotation_text
from bot.render.secrecy import Delivery
from bot.services.kit.errors import StorageUnavailable
from bot.services.rolling.attacks import AttackResult
from bot.services.rolling.checks import CheckResult
from bot.services.rolling.rolls import DiceRoll
from bot.services.store import campaigns
from bot.services.trust import fairness, secrecy
from bot.services.trust.secrecy import GmTargets, RowAccess
from bot.words import Visibility

log = logging.getLogger(__name__)
_QUIET = discord.AllowedMentions.none()
#: Told to the roller when Discord lost their private copy (nothing of the result in it).
OWN_COPY_LOST = (
    "Discord did not deliver your private copy of roll #{roll_id}. The roll is recorded "
    "once; do not roll again: the GM can see it with /gm log."
)


async def _note_gm(interaction: Interaction, targets: GmTargets) -> None:
    """Remember a roller who acts with GM standing in the campaign as a known GM, so GM
    copies can reach them by DM (re-checked at each send). No query once they are known."""
    if targets.campaign_id is None or interaction.user.id in targets.candidate_ids:
        return
    if len(targets.candidate_ids) >= campaigns.MAX_KNOWN_GMS:
        return  # no room (read in the roll's transaction): a full list adds no one
    caller = caller_from(interaction)
    if caller.guild_id != targets.guild_id or not targets.admits(
        caller.role_ids, caller.manage_guild
    ):
        return
    try:
        await campaigns.remember_gm(interaction.client.db, targets.campaign_id, caller.user_id)
    except StorageUnavailable:  # the roll is answered; knowing the GM can wait for next time
        log.warning("campaign %s: GM %s not noted (storage)", targets.campaign_id, caller.user_id)


async def deliver(
    interaction: Interaction,
    roll: Delivery,
    *,
    roller_is_gm: bool = False,
    view: discord.ui.View | None = None,
) -> None:
    """Answer ``interaction`` with ``roll`` as its visibility allows; see the module docstring.

    ``view`` (buttons acting on the result) goes only with a copy the roller sees in full.
    ``roller_is_gm``: a GM's own blind roll is shown to them too. A roller with GM standing
    becomes a known GM of the campaign, after everything is answered.
    """
    await _answer(interaction, roll, roller_is_gm=roller_is_gm, view=view)
    await _note_gm(interaction, roll.gm_targets)


async def _answer(
    interaction: Interaction,
    roll: Delivery,
    *,
    roller_is_gm: bool,
    view: discord.ui.View | None,
) -> None:
    full, visibility, number = roll.full, roll.visibility, roll.number
    if visibility is Visibility.PUBLIC:
        await answer(interaction, embed=full, view=view, allowed_mentions=_QUIET)
        return
    marked = render.marked_copy(full, number, visibility, roll.commitment)
    if visibility is Visibility.SELF:
        await answer(interaction, embed=marked, view=view, ephemeral=True)
        return
    if roll.stub is None:
        raise ValueError("a gm or blind roll needs a public stub")
    stub_id = await answer(interaction, embed=roll.stub, allowed_mentions=_QUIET)
    if stub_id is not None and interaction.channel_id is not None:
        # /verify compares with the commitment as this message still shows it.
        await secrecy.record_stub(
            bot_of(interaction).db, roll.roll_id, interaction.channel_id, stub_id
        )
    followup = interaction.followup
    sees_full = visibility is Visibility.GM or roller_is_gm
    own_copy_lost = False
    if sees_full:
        try:
            if view is not None:
                await followup.send(embed=marked, view=view, ephemeral=True)
            else:
                await followup.send(embed=marked, ephemeral=True)
        except discord.HTTPException as exc:  # the roll is recorded: deliver the rest, then say so
            log.warning("roll %s: roller's copy lost: %s %s", number, exc.status, exc.code)
            own_copy_lost = True
    header = render.gm_copy_text(interaction.user.id, interaction.channel_id or 0)
    gm_copy = marked
    if roll.gm_full is not None:
        gm_copy = render.marked_copy(roll.gm_full, number, visibility, roll.commitment)
    delivered = await send_to_gm(
        interaction.client, roll.gm_targets, header, gm_copy, what=f"the GM copy of roll #{number}"
    )
    notes = [render.undelivered_text()] if not delivered else []
    if own_copy_lost:
        notes.append(OWN_COPY_LOST.format(roll_id=number))
    elif delivered and not sees_full:
        notes.append(render.sent_to_gm_text(number))
    for note in notes:
        try:
            await followup.send(note, ephemeral=True)
        except discord.HTTPException as exc:
            log.warning("note on roll %s undelivered: %s %s", number, exc.status, exc.code)


_DIGEST = re.compile(r"\b[0-9a-f]{64}\b")


class StubUnreadable(Exception):
    """Discord would not show the stub just now (no access, an outage): not proof it is gone."""


async def published_commitment(client: discord.Client, stub: secrecy.StubPlace) -> str | None:
    """The commitment as the stub message shows it now; None if the message is gone.

    Raises :class:`StubUnreadable` when Discord refuses or fails rather than saying the
    message does not exist, so /verify never calls a stub gone that it merely could not read.
    """
    try:
        channel = client.get_channel(stub.channel_id) or await client.fetch_channel(stub.channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            raise StubUnreadable()
        message = await channel.fetch_message(stub.message_id)
    except discord.NotFound:
        return None
    except discord.HTTPException as exc:
        log.info("stub %s unreadable: %s %s", stub.message_id, exc.status, exc.code)
        raise StubUnreadable() from exc
    for embed in message.embeds:
        for embed_field in embed.fields:
            if embed_field.name and "Commitment" in embed_field.name:
                found = _DIGEST.search(embed_field.value or "")
                if found:
                    return found.group(0)
    return None  # the message no longer shows a commitment: as good as gone


async def post_reveal(
    interaction: Interaction,
    found: RowAccess,
    view: discord.ui.View | None = None,
) -> None:
    """Post a revealed roll (``/gm reveal``, ``/reveal``) where the table reads it.

    In the campaign channel (answering there, or with a short note elsewhere); a roll of no
    campaign (a self roll made outside one) is revealed where the command is run. ``view``:
    the fortune choice the roll offers now that it is revealed.
    """
    embed = render.reveal_embed(found.row, secrecy.encoding_of_row(found.row))
    campaign = found.campaign
    channel = interaction.channel
    here = campaign is None or (
        interaction.channel_id == campaign.channel_id
        or (isinstance(channel, discord.Thread) and channel.parent_id == campaign.channel_id)
    )
    if here and not (awaits_answer(interaction) and deferred_ephemeral(interaction)):
        await answer(interaction, embed=embed, allowed_mentions=_QUIET, view=view)
        return
    # Posted as a message of its own (a REST call: deferred first), and the caller told where.
    # Here too when a scope check already deferred the answer privately: a reveal is public.
    await defer(interaction, ephemeral=True)
    where = interaction.channel_id if here or campaign is None else campaign.channel_id
    if where is None:
        raise TypeError("a reveal needs a channel")
    client = interaction.client
    posted = await places.post(client, where, embeds=[embed], view=view)
    if isinstance(posted, places.Gap):
        # The caller is the GM (or the roller of a self roll): told here, now, with the fix.
        name = client.user.name if client.user is not None else "pbp-dice"
        why = place_words.reason_and_fix(posted.problem, posted.place_id, posted.parent_id, name)
        await answer(
            interaction,
            f"Roll #{found.row.number} is revealed (/verify shows it to anyone), but I could "
            f"not post it: {why}.",
            ephemeral=True,
        )
        return
    await answer(interaction, f"Roll #{found.row.number} revealed in <#{where}>.", ephemeral=True)


# --- answering a recorded roll (its command, a saved roll, a reveal) ---


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


#: How each kind of recorded roll answers: the one place a result's type decides it.
_ANSWERS: dict[type, Callable[[Interaction, Any], Awaitable[None]]] = {
    DiceRoll: send_roll,
    CheckResult: send_check,
    AttackResult: send_attack,
}


async def answer_for(
    interaction: Interaction, result: DiceRoll | CheckResult | AttackResult
) -> None:
    """Answer with a recorded roll as its command does, whichever command made it (a saved
    roll's), then announce the seed rotation it set off."""
    await _ANSWERS[type(result)](interaction, result)
    await announce_rotation(interaction, result.rotation, result.visibility)
