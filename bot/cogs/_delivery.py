"""Answer a rolling command with the right visibility (public, gm, blind or self).

- public: the result in the channel.
- gm: a stub in the channel, the result ephemerally to the roller, a copy to the GM.
- blind: a stub in the channel, a copy to the GM only (the roller gets a note).
- self: the result ephemerally to the roller only.

The GM copy goes to the campaign's GM channel; failing that, by direct message to the GMs
recorded at setup; failing both, the roller is told (without any of the result) how a GM sets
a GM channel. The roll is recorded before any of this, exactly once.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.cogs._common import bot_of
from bot.db.models import Visibility
from bot.render import secrecy as render
from bot.services import secrecy
from bot.services.secrecy import GmTargets, RowAccess

log = logging.getLogger(__name__)
_QUIET = discord.AllowedMentions.none()
#: Told to the roller when Discord lost their private copy (nothing of the result in it).
OWN_COPY_LOST = (
    "Discord did not deliver your private copy of roll #{roll_id}. The roll is recorded "
    "once; do not roll again: the GM can see it with /gm log."
)


async def _to_channel(
    client: discord.Client, channel_id: int, content: str, embed: discord.Embed
) -> bool:
    channel = client.get_channel(channel_id)
    try:
        if channel is None:
            channel = await client.fetch_channel(channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            return False
        await channel.send(content, embed=embed, allowed_mentions=_QUIET)
    except discord.HTTPException as exc:
        # Logged without the result: only ids and Discord's status.
        log.warning("GM channel %s unreachable: %s %s", channel_id, exc.status, exc.code)
        return False
    return True


async def _to_dms(
    client: discord.Client, user_ids: tuple[int, ...], content: str, embed: discord.Embed
) -> bool:
    delivered = False
    for user_id in user_ids:
        try:
            user = client.get_user(user_id) or await client.fetch_user(user_id)
            await user.send(content, embed=embed, allowed_mentions=_QUIET)
            delivered = True
        except discord.HTTPException as exc:
            log.warning("GM %s cannot be sent a DM: %s %s", user_id, exc.status, exc.code)
    return delivered


async def send_to_gm(
    client: discord.Client, targets: GmTargets, content: str, embed: discord.Embed
) -> bool:
    """The GM channel, else DMs to the GMs recorded at setup; True if anyone got it."""
    if targets.channel_id is not None and await _to_channel(
        client, targets.channel_id, content, embed
    ):
        return True
    return await _to_dms(client, targets.user_ids, content, embed)


async def deliver(
    interaction: discord.Interaction[Any],
    *,
    full: discord.Embed,
    stub: discord.Embed | None,
    visibility: Visibility,
    gm_targets: GmTargets,
    roll_id: int,
    number: int,
    commitment: str | None = None,
    roller_is_gm: bool = False,
    view: discord.ui.View | None = None,
) -> None:
    """Answer ``interaction`` with ``full`` as ``visibility`` allows; see the module docstring.

    ``view`` (buttons acting on the result) goes only with a copy the roller sees in full.
    ``roller_is_gm``: a GM's own blind roll is shown to them too. ``roll_id`` is the ledger
    row (internal), ``number`` what the messages print.
    """
    response = interaction.response
    if visibility is Visibility.PUBLIC:
        if view is not None:
            await response.send_message(embed=full, view=view, allowed_mentions=_QUIET)
        else:
            await response.send_message(embed=full, allowed_mentions=_QUIET)
        return
    marked = render.marked_copy(full, number, visibility, commitment)
    if visibility is Visibility.SELF:
        if view is not None:
            await response.send_message(embed=marked, view=view, ephemeral=True)
        else:
            await response.send_message(embed=marked, ephemeral=True)
        return
    if stub is None:
        raise ValueError("a gm or blind roll needs a public stub")
    sent = await response.send_message(embed=stub, allowed_mentions=_QUIET)
    if sent.message_id is not None and interaction.channel_id is not None:
        # /verify compares with the commitment as this message still shows it (issue 15).
        await secrecy.record_stub(
            bot_of(interaction).db, roll_id, interaction.channel_id, sent.message_id
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
    delivered = await send_to_gm(interaction.client, gm_targets, header, marked)
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


async def published_commitment(client: discord.Client, stub: secrecy.StubPlace) -> str | None:
    """The commitment as the stub message shows it now, or None if it is gone (issue 15)."""
    try:
        channel = client.get_channel(stub.channel_id) or await client.fetch_channel(
            stub.channel_id
        )
        if not isinstance(channel, discord.abc.Messageable):
            return None
        message = await channel.fetch_message(stub.message_id)
    except discord.HTTPException as exc:
        log.info("stub %s unreadable: %s %s", stub.message_id, exc.status, exc.code)
        return None
    for embed in message.embeds:
        for embed_field in embed.fields:
            if embed_field.name and "Commitment" in embed_field.name:
                found = _DIGEST.search(embed_field.value or "")
                if found:
                    return found.group(0)
    return None


async def post_reveal(interaction: discord.Interaction[Any], found: RowAccess) -> None:
    """Post a revealed roll (``/gm reveal``, ``/reveal``) where the table reads it.

    In the campaign channel (answering there, or with a short note elsewhere); a roll of no
    campaign (a self roll made outside one) is revealed where the command is run.
    """
    embed = render.reveal_embed(found.row, secrecy.encoding_of_row(found.row))
    campaign = found.campaign
    channel = interaction.channel
    here = campaign is None or (
        interaction.channel_id == campaign.channel_id
        or (isinstance(channel, discord.Thread) and channel.parent_id == campaign.channel_id)
    )
    if here or campaign is None:
        await interaction.response.send_message(embed=embed, allowed_mentions=_QUIET)
        return
    client = interaction.client
    target = client.get_channel(campaign.channel_id) or await client.fetch_channel(
        campaign.channel_id
    )
    if not isinstance(target, discord.abc.Messageable):
        raise TypeError("the campaign channel cannot receive messages")
    await target.send(embed=embed, allowed_mentions=_QUIET)
    await interaction.response.send_message(
        f"Roll #{found.row.number} revealed in <#{campaign.channel_id}>.", ephemeral=True
    )
