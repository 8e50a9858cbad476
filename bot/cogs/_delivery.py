"""Answer a rolling command with the right visibility (public, gm, blind or self).

- public: the result in the channel.
- gm: a stub in the channel, the result ephemerally to the roller, a copy to the GM.
- blind: a stub in the channel, a copy to the GM only (the roller gets a note).
- self: the result ephemerally to the roller only.

The GM copy goes to the campaign's GM channel; failing that, by direct message to today's
GMs among the campaign's known GMs (each fetched afresh: a GM role or Manage Server now, not
when they were seen; issue 15); failing both, the roller is told (without any of the result)
that a GM channel is the reliable way. The roll is recorded before any of this, exactly once.

Without the privileged members intent the bot cannot list who holds a role, so the known GMs
(users seen acting with GM standing in the campaign, noted here and in the services) are the
only candidates for a DM; a GM the bot has never seen gets none.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING, Any, cast

import discord

from bot.cogs._common import bot_of, caller_from
from bot.cogs._respond import answer, awaits_answer, defer, deferred_ephemeral
from bot.cogs._types import Interaction
from bot.render import secrecy as render
from bot.render.secrecy import Delivery
from bot.services import secrecy
from bot.services.errors import StorageUnavailable
from bot.services.secrecy import GmTargets, RowAccess
from bot.services.store import campaigns
from bot.words import Visibility

if TYPE_CHECKING:
    from bot.app import PbpBot

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


async def _guild(client: discord.Client, guild_id: int) -> discord.Guild | None:
    guild = client.get_guild(guild_id)
    if guild is not None:
        return guild
    try:
        return await client.fetch_guild(guild_id)
    except discord.HTTPException as exc:
        log.warning("server %s unreachable for GM copies: %s %s", guild_id, exc.status, exc.code)
        return None


async def _current_gm(
    guild: discord.Guild, targets: GmTargets, user_id: int
) -> tuple[int, discord.Member | None, bool]:
    """One known GM fetched afresh: (id, the member if they are a GM now, whether to forget
    them because they are no GM now or left the server)."""
    try:
        member = await guild.fetch_member(user_id)
    except discord.NotFound:
        return user_id, None, True
    except discord.HTTPException as exc:  # unknown standing: no copy, but keep them known
        log.warning("GM %s could not be checked: %s %s", user_id, exc.status, exc.code)
        return user_id, None, False
    roles = frozenset(role.id for role in member.roles)
    if targets.admits(roles, member.guild_permissions.manage_guild):
        return user_id, member, False
    return user_id, None, True


async def _dm(member: discord.Member, content: str, embed: discord.Embed) -> bool:
    try:
        await member.send(content, embed=embed, allowed_mentions=_QUIET)
    except discord.HTTPException as exc:
        log.warning("GM %s cannot be sent a DM: %s %s", member.id, exc.status, exc.code)
        return False
    return True


async def _to_dms(
    client: discord.Client, targets: GmTargets, content: str, embed: discord.Embed
) -> bool:
    """DM the known GMs who are GMs now, each checked by REST (concurrently); known GMs who
    are not (or left) are forgotten."""
    if targets.guild_id is None or not targets.candidate_ids:
        return False
    guild = await _guild(client, targets.guild_id)
    if guild is None:
        return False
    checked = await asyncio.gather(
        *(_current_gm(guild, targets, user_id) for user_id in targets.candidate_ids)
    )
    gms = [member for _, member, _ in checked if member is not None]
    sent = await asyncio.gather(*(_dm(member, content, embed) for member in gms))
    stale = [user_id for user_id, _, forget in checked if forget]
    if stale and targets.campaign_id is not None:
        try:
            await campaigns.forget_gms(cast("PbpBot", client).db, targets.campaign_id, stale)
        except StorageUnavailable:
            log.warning("campaign %s: stale known GMs kept (storage)", targets.campaign_id)
    return any(sent)


async def send_to_gm(
    client: discord.Client, targets: GmTargets, content: str, embed: discord.Embed
) -> bool:
    """The GM channel, else DMs to the campaign's current GMs; True if anyone got it.

    Makes REST calls: call it only after the interaction has been answered (or deferred).
    """
    if targets.channel_id is not None and await _to_channel(
        client, targets.channel_id, content, embed
    ):
        return True
    return await _to_dms(client, targets, content, embed)


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
        # /verify compares with the commitment as this message still shows it (issue 15).
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
    delivered = await send_to_gm(interaction.client, roll.gm_targets, header, gm_copy)
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
    """The commitment as the stub message shows it now; None if the message is gone (issue 15).

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
    the fortune choice the roll offers now that it is revealed (issue 15).
    """
    shown: Any = discord.utils.MISSING if view is None else view
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
    target = client.get_channel(where) or await client.fetch_channel(where)
    if not isinstance(target, discord.abc.Messageable):
        raise TypeError("the campaign channel cannot receive messages")
    await target.send(embed=embed, allowed_mentions=_QUIET, view=shown)
    await answer(interaction, f"Roll #{found.row.number} revealed in <#{where}>.", ephemeral=True)
