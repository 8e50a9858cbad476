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

from tests.bot.conftest import Table

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


def _wrap(
    method: str, template: str, check: Callable[[Any], None], after: Callable[[Any], None]
) -> Any:
    segments = template.strip("/").split("/")
    routes = router._ROUTES[method]
    for index, (found, handler) in enumerate(routes):
        if found == segments:

            def wrapped(ctx: Any, handler: Any = handler) -> Any:
                check(ctx)
                result = handler(ctx)
                after(ctx)
                return result

            return routes, index, (found, wrapped), (found, handler)
    raise AssertionError(f"SimCord has no route {method} {template}")


@pytest.fixture
def discord_thread_rules() -> Iterator[None]:
    """Discord's rules for posting in archived and locked threads, which SimCord lacks."""

    def thread_id(ctx: Any) -> int | None:
        if "thread_id" in ctx.params:
            return int(ctx.params["thread_id"])
        if "channel_id" in ctx.args:
            return int(ctx.args["channel_id"])
        return None

    def may_post(ctx: Any) -> None:
        tid = thread_id(ctx)
        thread = _thread_of(ctx.backend, tid) if tid is not None else None
        if thread is None or thread.thread_metadata is None or not thread.thread_metadata.locked:
            return
        perms = ctx.backend.compute_permissions(thread.guild_id, ctx.backend.bot_user.id, thread.id)
        if not perms & discord.Permissions.manage_threads.flag:
            raise errors.BackendError(403, 160005, "Thread is locked")

    def reopen(ctx: Any) -> None:
        tid = thread_id(ctx)
        thread = _thread_of(ctx.backend, tid) if tid is not None else None
        if thread is not None and thread.thread_metadata and thread.thread_metadata.archived:
            ctx.backend.edit_channel(thread.id, {}, thread_metadata={"archived": False})

    def may_edit(ctx: Any) -> None:
        tid = thread_id(ctx)
        thread = _thread_of(ctx.backend, tid) if tid is not None else None
        if thread is not None and thread.thread_metadata and thread.thread_metadata.archived:
            raise errors.BackendError(400, 50083, "Thread is archived")

    def nothing(ctx: Any) -> None:
        return None

    patches = [
        _wrap("POST", "/channels/{channel_id}/messages", may_post, reopen),
        _wrap("POST", "/webhooks/{webhook_id}/{token}", may_post, reopen),
        _wrap("PATCH", "/channels/{channel_id}/messages/{message_id}", may_edit, nothing),
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
