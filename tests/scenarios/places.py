"""The places play by post happens in, built in SimCord, and the thread rules SimCord lacks.

SimCord 3.2 models threads (public and private, with members), forum channels and their posts
(threads whose parent is the forum), archived and locked flags, permission overwrites (a
thread inherits its parent's) and Discord's 403s for missing permissions and access. It has no
builder or actor verb that opens a thread, so its backend's ``create_thread`` is used, as a
member's client would; and it does not apply two of Discord's documented rules about
archived and locked threads. :func:`discord_thread_rules` adds them, wrapping SimCord's own
route handlers (a test fixture, never the bot):

- "Sending a message will automatically unarchive the thread, unless the thread has been
  locked by a moderator" (Discord, Threads): a post in an archived, unlocked thread reopens it
  (SimCord posts it and leaves the thread archived);
- a locked thread takes posts only from members with Manage Threads: others get 403
  ``160005 Thread is locked``;
- a message in an archived thread cannot be edited: 400 ``50083 Thread is archived``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import discord
import pytest
from simcord.backend import errors
from simcord.backend.models import Overwrite
from simcord.builders import ChannelHandle
from simcord.enums import ChannelType, OverwriteType
from simcord.http import router

from tests.scenarios.conftest import Table

#: The place kinds a campaign covers (issue: "Every place a campaign covers works").
KINDS = (
    "channel",
    "public thread",
    "private thread",
    "forum post",
    "archived thread",
    "thread made later",
)


def _thread_of(backend: Any, channel_id: int) -> Any | None:
    channel = backend.channels.get(channel_id)
    return channel if channel is not None and channel.is_thread else None


Handler = Callable[[Any], Any]


def _wrap(method: str, template: str, around: Callable[[Any, Handler], Any]) -> Any:
    segments = template.strip("/").split("/")
    routes = router._ROUTES[method]
    for index, (found, handler) in enumerate(routes):
        if found == segments:

            def wrapped(ctx: Any, handler: Handler = handler) -> Any:
                return around(ctx, handler)

            return routes, index, (found, wrapped), (found, handler)
    raise AssertionError(f"SimCord has no route {method} {template}")


@pytest.fixture
def discord_thread_rules() -> Iterator[None]:
    """Discord's rules for threads that SimCord lacks (see the module docstring); also a
    webhook's ``thread_id`` (SimCord posts a webhook's message in its channel whatever the
    thread asked for: "Send a message to the specified thread within a webhook's channel",
    Discord's Execute Webhook)."""

    def thread_of(ctx: Any) -> Any | None:
        if "thread_id" in ctx.params:
            return _thread_of(ctx.backend, int(ctx.params["thread_id"]))
        if "channel_id" in ctx.args:
            return _thread_of(ctx.backend, int(ctx.args["channel_id"]))
        return None

    def post(ctx: Any, handler: Handler) -> Any:
        thread = thread_of(ctx)
        meta = thread.thread_metadata if thread is not None else None
        if thread is None or meta is None:
            return handler(ctx)
        if meta.locked:
            bot = ctx.backend.bot_user.id
            perms = ctx.backend.compute_permissions(thread.guild_id, bot, thread.id)
            if not perms & discord.Permissions.manage_threads.flag:
                raise errors.BackendError(403, 160005, "Thread is locked")
        result = in_thread(ctx, handler, thread)
        if meta.archived:
            ctx.backend.edit_channel(thread.id, {}, thread_metadata={"archived": False})
        return result

    def edit(ctx: Any, handler: Handler) -> Any:
        thread = thread_of(ctx)
        if thread is not None and thread.thread_metadata and thread.thread_metadata.archived:
            raise errors.BackendError(400, 50083, "Thread is archived")
        return in_thread(ctx, handler, thread)

    def in_thread(ctx: Any, handler: Handler, thread: Any) -> Any:
        """A webhook's request with ``thread_id``: served as if the webhook were the thread's."""
        token = ctx.args.get("token")
        hook_id = ctx.backend.webhook_tokens.get(token) if token else None
        if thread is None or hook_id is None or "thread_id" not in ctx.params:
            return handler(ctx)
        hook = ctx.backend.webhooks[hook_id]
        if thread.parent_id != hook.channel_id:
            raise errors.BackendError(400, 50001, "Unknown thread for this webhook")
        channel, hook.channel_id = hook.channel_id, thread.id
        try:
            return handler(ctx)
        finally:
            hook.channel_id = channel

    patches = [
        _wrap("POST", "/channels/{channel_id}/messages", post),
        _wrap("POST", "/webhooks/{webhook_id}/{token}", post),
        _wrap("PATCH", "/channels/{channel_id}/messages/{message_id}", edit),
        _wrap("PATCH", "/webhooks/{webhook_id}/{token}/messages/{message_id}", edit),
    ]
    for routes, index, new, _ in patches:
        routes[index] = new
    try:
        yield
    finally:
        for routes, index, _, old in patches:
            routes[index] = old


def bot_id(table: Table) -> int:
    return table.bot.user.id if table.bot.user else 0


def restrict_bot(table: Table, channel: Any, permissions: discord.Permissions) -> None:
    """The bot has exactly ``permissions`` in ``channel`` (a member overwrite of its own)."""
    allow = permissions.value
    deny = discord.Permissions.all().value & ~allow
    table.env.backend.set_overwrite(
        channel.id, Overwrite(bot_id(table), OverwriteType.MEMBER, allow=allow, deny=deny)
    )


def open_thread(
    table: Table, parent: ChannelHandle, name: str, *, private: bool = False, owner: Any = None
) -> ChannelHandle:
    """A thread a member opens under ``parent`` (SimCord has no verb for it: its backend)."""
    opener = owner or table.alice
    thread = table.env.backend.create_thread(
        parent.id,
        name,
        opener.id,
        type=ChannelType.PRIVATE_THREAD if private else ChannelType.PUBLIC_THREAD,
    )
    if private:
        # A member added the bot (mentioning it does): without it, it cannot post there.
        table.env.backend.add_thread_member(thread.id, bot_id(table))
        for member in (table.gm, table.bob, table.carol):
            table.env.backend.add_thread_member(thread.id, member.id)
    return next(t for t in parent.threads if t.id == thread.id)


def open_forum_post(table: Table, forum: ChannelHandle, name: str) -> ChannelHandle:
    """A post a member makes in a forum channel: a thread of the forum with a first message."""
    post = open_thread(table, forum, name)
    table.env.backend.create_message(post.id, table.alice.id, f"{name}: the scene opens.")
    return post


def archive(table: Table, place: ChannelHandle, *, locked: bool = False) -> None:
    """Discord archives a quiet thread (a day without a post); a moderator may lock it too."""
    table.env.backend.edit_channel(
        place.id, {}, thread_metadata={"archived": True, "locked": locked}
    )


def is_archived(table: Table, place: ChannelHandle) -> bool:
    meta = table.env.backend.channels[place.id].thread_metadata
    return bool(meta and meta.archived)
