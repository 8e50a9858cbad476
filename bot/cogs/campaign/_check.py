"""/campaign check: what the bot can and cannot do in each place of the campaign, and the one
change that fixes each gap (also shown to the GM at the end of /campaign setup).

The places: the campaign's channel (or forum), its GM channel, each of its threads or forum
posts Discord reports active, and any place where a post of the bot's was refused and not
fixed since (an archived thread among them: fetched, not taken from the cache). Permissions
are read off discord.py's cache (a thread's are its parent's); a private thread also needs
the bot in it.
"""

from __future__ import annotations

import asyncio

import discord

from bot.cogs import _places as places
from bot.permissions import OPTIONAL
from bot.render.places import Capability, PlaceCheck
from bot.services.store.campaigns import CampaignView
from bot.services.table import delivery

Place = discord.abc.GuildChannel | discord.Thread


def _kind(place: Place, campaign: CampaignView) -> str:
    if isinstance(place, discord.Thread):
        parent = place.parent
        if isinstance(parent, discord.ForumChannel):
            kind = "forum post"
        else:
            kind = "private thread" if place.is_private() else "thread"
        if place.locked:
            return f"{kind}, locked"
        return f"{kind}, archived" if place.archived else kind
    if place.id == campaign.gm_channel_id:
        return "GM channel"
    return "forum" if isinstance(place, discord.ForumChannel) else "campaign channel"


def _capabilities(place: Place, campaign: CampaignView) -> list[Capability]:
    guild = place.guild
    me = guild.me
    try:
        perms = place.permissions_for(me)
    except discord.ClientException:  # a thread whose parent is not cached
        return [Capability("see it", False, "permission:view_channel")]
    in_thread = isinstance(place, discord.Thread)
    is_forum = isinstance(place, discord.ForumChannel)
    send = "send_messages_in_threads" if in_thread or is_forum else "send_messages"
    found: list[Capability] = [Capability("see it", perms.view_channel, "permission:view_channel")]
    if not perms.view_channel:
        return found
    if place.id == campaign.gm_channel_id:
        found.append(
            Capability(
                "post GM copies of hidden rolls", perms.send_messages, "permission:send_messages"
            )
        )
        if found[-1].ok:
            found.append(
                Capability("show them as embeds", perms.embed_links, "permission:embed_links")
            )
        return found
    where = "in its threads and posts" if is_forum else ""
    posts = f"post clock notices, verdicts and reveals {where}".strip()
    if isinstance(place, discord.Thread) and place.locked and not perms.manage_threads:
        found.append(Capability(posts, False, "locked"))
    elif (
        isinstance(place, discord.Thread)
        and place.is_private()
        and place.me is None
        and not perms.manage_threads
    ):
        found.append(Capability(posts, False, "private-thread"))
    else:
        found.append(Capability(posts, getattr(perms, send), f"permission:{send}"))
        if not is_forum and place.id == campaign.channel_id and not perms.send_messages_in_threads:
            found.append(
                Capability("post them in its threads", False, "permission:send_messages_in_threads")
            )
    if found[-1].ok or found[-1].what.startswith("post them in"):
        # Where it cannot post (a thread without Send Messages in Threads), Discord reports
        # no Embed Links either: one gap, not two.
        found.append(Capability("show them as embeds", perms.embed_links, "permission:embed_links"))
    found.append(
        Capability(
            "read stubs back for /verify",
            perms.read_message_history,
            "permission:read_message_history",
        )
    )
    webhooks = place.parent if isinstance(place, discord.Thread) else place
    if webhooks is not None and "manage_webhooks" in OPTIONAL:
        hook_perms = (
            webhooks.permissions_for(me) if not isinstance(webhooks, discord.Thread) else perms
        )
        found.append(
            Capability(
                "/post under each character's name (optional)",
                hook_perms.manage_webhooks,
                "permission:manage_webhooks",
                optional=True,
            )
        )
    return found


async def _place(client: discord.Client, channel_id: int) -> Place | places.Gap:
    found = await places.resolve(client, channel_id)
    if isinstance(found, (places.Gap, discord.abc.GuildChannel, discord.Thread)):
        return found
    return places.Gap(channel_id, places.NOT_MESSAGEABLE)


async def check_places(
    client: discord.Client, guild: discord.Guild, campaign: CampaignView
) -> list[PlaceCheck]:
    """Each place of the campaign, what the bot can do there, and what it cannot."""
    ids: list[int] = [campaign.channel_id]
    if campaign.gm_channel_id is not None:
        ids.append(campaign.gm_channel_id)
    ids += [t.id for t in guild.threads if t.parent_id == campaign.channel_id]
    db = getattr(client, "db", None)
    if db is not None:
        ids += [place for place, _ in await delivery.open_problems(db, campaign.id)]
    ids = list(dict.fromkeys(ids))
    found = await asyncio.gather(*(_place(client, i) for i in ids))
    checks: list[PlaceCheck] = []
    for place_id, place in zip(ids, found, strict=True):
        if isinstance(place, places.Gap):
            checks.append(
                PlaceCheck(
                    place_id, "out of reach", None, [Capability("see it", False, place.problem)]
                )
            )
            continue
        parent = place.parent_id if isinstance(place, discord.Thread) else None
        checks.append(
            PlaceCheck(place.id, _kind(place, campaign), parent, _capabilities(place, campaign))
        )
    return checks
