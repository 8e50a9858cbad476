"""Messages the bot posts on its own, and what happens when one does not get through.

A clock notice, a reminder, a verdict, a round's reveal, a GM copy is posted with
:func:`post_notice` (or a message edited with :func:`edit_notice`), through
bot/cogs/_places.py. When it does not get through, :func:`report` keeps it (it shows in
/catchup and /gm log) and tells the GM, once per place and problem, in the GM channel or by
DM, where, why and the one change that fixes it (bot/render/places.py).

GM copies go to the campaign's GM channel; failing that, by direct message to today's GMs
among the campaign's known GMs (each fetched afresh: a GM role or Manage Server now, not when
they were seen). Without the privileged members intent the bot cannot list who holds a role,
so the known GMs (users seen acting with GM standing in the campaign) are the only candidates
for a DM; a GM the bot has never seen gets none.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import TYPE_CHECKING, cast

import discord

from bot.cogs import _places as places
from bot.cogs._places import Gap, Posted
from bot.render import places as render
from bot.services.kit.errors import StorageUnavailable
from bot.services.store import campaigns
from bot.services.table import delivery
from bot.services.trust.secrecy import GmTargets

if TYPE_CHECKING:
    from bot.app import PbpBot

log = logging.getLogger(__name__)
_QUIET = discord.AllowedMentions.none()

#: Places of this process with a problem on record: a post that gets through there resolves it
#: (one query then, none on every GM copy).
_KNOWN_GAPS: set[int] = set()


def _bot_name(client: discord.Client) -> str:
    return client.user.name if client.user is not None else "pbp-dice"


# --- GM copies: the GM channel, else DMs ------------------------------------------------------


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


async def _dm(member: discord.Member, content: str, embed: discord.Embed | None) -> bool:
    try:
        sent, _ = await places.with_retries(
            lambda: member.send(
                content, embed=embed or discord.utils.MISSING, allowed_mentions=_QUIET
            ),
            f"DM to GM {member.id}",
        )
    except discord.HTTPException as exc:
        log.warning("GM %s cannot be sent a DM: %s %s", member.id, exc.status, exc.code)
        return False
    return sent is not None


async def _to_dms(
    client: discord.Client, targets: GmTargets, content: str, embed: discord.Embed | None
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
    client: discord.Client,
    targets: GmTargets,
    content: str,
    embed: discord.Embed | None = None,
    *,
    what: str = "a GM copy",
) -> bool:
    """The GM channel, else DMs to the campaign's current GMs; True if anyone got it.

    When the GM channel refuses, the GM hears why (once per problem, :func:`report`), in
    the DM that carries the copy instead. Makes REST calls: call it only after the
    interaction has been answered (or deferred).
    """
    gap: Gap | None = None
    if targets.channel_id is not None:
        posted = await places.post(
            client, targets.channel_id, content, embeds=[embed] if embed else []
        )
        if isinstance(posted, Posted) and posted.degraded is None:
            await _worked(client, targets.campaign_id, targets.channel_id)
            return True
        if isinstance(posted, Posted):
            assert posted.degraded is not None
            await report(client, targets, posted.degraded, f"GM copies in <#{targets.channel_id}>")
            return True
        gap = posted
    delivered = await _to_dms(client, targets, content, embed)
    if gap is not None:
        shown = what if not delivered else f"{what} in the GM channel (sent by DM instead)"
        await report(client, targets, gap, shown, gm_only=True, delivered=delivered)
    return delivered


# --- reporting --------------------------------------------------------------------------------


async def load_known_gaps(client: discord.Client) -> None:
    """At start-up: the places with a problem on record, so a post that gets through there
    marks it fixed (and a new problem there is told again)."""
    try:
        _KNOWN_GAPS.update(await delivery.places_with_problems(cast("PbpBot", client).db))
    except StorageUnavailable:
        log.warning("places with problems not loaded (storage); they resolve on the next one")


async def _worked(client: discord.Client, campaign_id: int | None, place_id: int) -> None:
    if campaign_id is None or place_id not in _KNOWN_GAPS:
        return
    _KNOWN_GAPS.discard(place_id)
    try:
        await delivery.worked_in(cast("PbpBot", client).db, campaign_id, [place_id])
    except StorageUnavailable:
        log.warning("campaign %s: place %s not marked as working (storage)", campaign_id, place_id)


async def report(
    client: discord.Client,
    targets: GmTargets,
    gap: Gap,
    what: str,
    *,
    job_id: int | None = None,
    gm_only: bool = False,
    delivered: bool = False,
) -> None:
    """Keep a post that did not get through and tell the GM, the first time for its place and
    problem: in the GM channel, or by DM when the GM channel is the place (or refuses too).

    ``delivered``: it reached the GMs another way (a GM copy by DM); the GM channel's problem
    is still told and kept.
    """
    if targets.campaign_id is None or targets.guild_id is None:
        log.warning(
            "%s not posted in %s (%s): no campaign to tell", what, gap.place_id, gap.problem
        )
        return
    bot = cast("PbpBot", client)
    _KNOWN_GAPS.add(gap.place_id)
    try:
        recorded = await delivery.record(
            bot.db,
            campaign_id=targets.campaign_id,
            guild_id=targets.guild_id,
            channel_id=gap.place_id,
            what=what,
            problem=gap.problem,
            job_id=job_id,
            gm_only=gm_only,
            attempts=gap.attempts,
        )
    except StorageUnavailable:
        log.warning("%s not posted in %s (%s); not kept (storage)", what, gap.place_id, gap.problem)
        return
    if not recorded.tell_gm:
        return
    note = render.gm_notice(what, gap.problem, gap.place_id, gap.parent_id, _bot_name(client))
    if delivered:
        # The GMs got the copy by DM: the note goes with it, by DM too.
        told = await _to_dms(client, targets, note, None)
    else:
        elsewhere = targets
        if targets.channel_id == gap.place_id:
            elsewhere = dataclasses.replace(targets, channel_id=None)
        told = await _tell(client, elsewhere, note)
    if not told:
        log.warning(
            "campaign %s: no GM could be told that %s was not posted", targets.campaign_id, what
        )
        await delivery.untold(bot.db, recorded.id)


async def _tell(client: discord.Client, targets: GmTargets, note: str) -> bool:
    """The note in the GM channel, else by DM (no report of its own: no loop)."""
    if targets.channel_id is not None:
        posted = await places.post(client, targets.channel_id, note)
        if isinstance(posted, Posted):
            return True
    return await _to_dms(client, targets, note, None)


async def targets_of(client: discord.Client, campaign_id: int) -> GmTargets:
    """Where a campaign's GMs are told (its GM channel, its known GMs), read now."""
    try:
        campaign = await campaigns.get_campaign(cast("PbpBot", client).db, campaign_id)
    except Exception:  # a campaign deleted since: nobody to tell
        return GmTargets(None, ())
    return GmTargets.of(campaign)


# --- the game clock's notices -------------------------------------------------------------------


async def post_notice(
    client: discord.Client,
    campaign_id: int,
    channel_id: int,
    what: str,
    content: str | None = None,
    *,
    embeds: list[discord.Embed] | None = None,
    view: discord.ui.View | None = None,
    mentions: discord.AllowedMentions = _QUIET,
    job_id: int | None = None,
) -> discord.Message | None:
    """Post a notice for the table in its place; None if it did not get through (then it is
    kept and the GM told, :func:`report`)."""
    posted = await places.post(
        client, channel_id, content, embeds=embeds or [], view=view, mentions=mentions
    )
    if isinstance(posted, Gap):
        await report(client, await targets_of(client, campaign_id), posted, what, job_id=job_id)
        return None
    if posted.degraded is not None:
        await report(client, await targets_of(client, campaign_id), posted.degraded, what)
    else:
        _KNOWN_GAPS.add(channel_id)  # a clock notice is rare: always resolve on success
        await _worked(client, campaign_id, channel_id)
    return posted.message


async def edit_notice(
    client: discord.Client,
    campaign_id: int,
    channel_id: int,
    message_id: int,
    what: str,
    *,
    embed: discord.Embed,
    view: discord.ui.View | None,
    job_id: int | None = None,
) -> bool:
    """Edit one of the bot's messages in place; False (kept, the GM told) if refused."""
    gap = await places.edit(client, channel_id, message_id, embed=embed, view=view)
    if gap is None:
        return True
    await report(client, await targets_of(client, campaign_id), gap, what, job_id=job_id)
    return False
