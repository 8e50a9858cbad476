"""The bot's webhook in each channel it posts in as characters: found or created once, then
kept in memory (one per channel; a thread posts through its parent's, with ``thread=``)."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.render.posts import webhook_username

log = logging.getLogger(__name__)

#: What the bot's webhooks are called when its own name cannot be used.
DEFAULT_NAME = "pbp-dice"

HookChannel = discord.TextChannel | discord.ForumChannel


class Webhooks:
    """Channel id → the bot's webhook there (with its token, so it can post and edit)."""

    def __init__(self) -> None:
        self._cache: dict[int, discord.Webhook] = {}

    def forget(self, channel_id: int) -> None:
        """Drop a webhook found deleted; the next post finds or creates another."""
        self._cache.pop(channel_id, None)

    async def for_channel(self, channel: HookChannel, me: discord.abc.User) -> discord.Webhook:
        """The bot's webhook in ``channel``; raises :class:`discord.Forbidden` without Manage
        Webhooks."""
        cached = self._cache.get(channel.id)
        if cached is not None:
            return cached
        for hook in await channel.webhooks():
            if hook.user is not None and hook.user.id == me.id and hook.token:
                self._cache[channel.id] = hook
                return hook
        name = webhook_username(me.name or DEFAULT_NAME)
        hook = await channel.create_webhook(name=name, reason="/post: posts as characters")
        log.info("created a webhook in channel %s", channel.id)
        self._cache[channel.id] = hook
        return hook


def hook_place(channel: Any) -> tuple[HookChannel | None, discord.Thread | None]:
    """Where a webhook lives for a message in ``channel``: the channel itself, or a thread's
    parent with the thread to post into."""
    if isinstance(channel, discord.Thread):
        parent = channel.parent
        if isinstance(parent, (discord.TextChannel, discord.ForumChannel)):
            return parent, channel
        return None, channel
    if isinstance(channel, discord.TextChannel):
        return channel, None
    return None, None
