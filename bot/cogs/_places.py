"""Posting on the bot's own account where play by post happens: a channel, a thread (public
or private), a forum post, a thread Discord archived after a quiet day.

Every message the bot posts by itself (a clock notice, a reminder, a verdict, a round's
reveal, a GM copy) goes through :func:`post`, and every in-place edit of its own message
through :func:`edit`:

- the place is looked up in the cache, else fetched from Discord (discord.py drops archived
  threads from its cache; "not cached" is never "gone": only Unknown Channel is);
- an archived thread that is not locked is posted in as it is: Discord reopens it ("Sending a
  message will automatically unarchive the thread", Discord's threads documentation); a
  locked one is refused here, before a request Discord would refuse;
- the permissions the post needs are read off the cache first: a missing one is reported
  without a request (Discord counts refused requests against the bot), except Embed Links,
  whose absence makes Discord drop embeds silently: the message is then sent as plain text;
- a transient failure (a 5xx, a rate limit, the network) is retried with backoff
  (:data:`RETRY_DELAYS`); a refusal (403, 404) is not, and comes back as a :class:`Gap`.

What a gap means and how to fix it is said by bot/render/places.py; who is told is decided
by bot/cogs/_notices.py.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp
import discord

from bot.render.places import embeds_as_text

log = logging.getLogger(__name__)

#: Seconds to wait before each retry of a transient failure; then it is given up.
RETRY_DELAYS: tuple[float, ...] = (1.0, 4.0, 15.0)
QUIET = discord.AllowedMentions.none()

#: Problems (the ``problem`` column of undelivered notices).
GONE = "gone"
MESSAGE_GONE = "message-gone"
LOCKED = "locked"
PRIVATE_THREAD = "private-thread"
UNANSWERED = "unanswered"
NOT_MESSAGEABLE = "not-messageable"
ARCHIVED = "archived"
REFUSED = "refused"
PERMISSION = "permission:"

Place = discord.abc.GuildChannel | discord.Thread | discord.abc.PrivateChannel

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Gap:
    """Why the bot could not post in ``place_id``: one of the problems above (a missing
    permission as ``permission:<discord.py name>``), after ``attempts`` tries."""

    place_id: int
    problem: str
    attempts: int = 1
    #: The thread's parent (its permissions are the parent's), when the place is a thread.
    parent_id: int | None = None

    @property
    def permission(self) -> str | None:
        return self.problem.removeprefix(PERMISSION) if self.is_permission else None

    @property
    def is_permission(self) -> bool:
        return self.problem.startswith(PERMISSION)


@dataclass(frozen=True, slots=True)
class Posted:
    """A post that got through; ``degraded``: what it lacked (Embed Links: sent as text)."""

    message: discord.Message
    degraded: Gap | None = None


def _transient(exc: BaseException) -> bool:
    """A 5xx, a rate limit (discord.py waits out and retries both itself first), the network."""
    if isinstance(exc, discord.HTTPException):
        return exc.status >= 500 or exc.status == 429
    return isinstance(exc, (aiohttp.ClientError, asyncio.TimeoutError, OSError))


async def with_retries(call: Callable[[], Awaitable[_T]], what: str) -> tuple[_T | None, int]:
    """``call()``; a transient failure is retried after each of :data:`RETRY_DELAYS`.

    Returns (the result, attempts), or (None, attempts) when every try failed transiently;
    a refusal (any other :class:`discord.HTTPException`) is raised at once.
    """
    attempts = 0
    for delay in (*RETRY_DELAYS, None):
        attempts += 1
        try:
            return await call(), attempts
        except Exception as exc:
            if not _transient(exc):
                raise
            status = getattr(exc, "status", type(exc).__name__)
            log.info("%s: transient failure (%s), attempt %d", what, status, attempts)
            if delay is None:
                break
            await asyncio.sleep(delay)
    log.warning("%s: Discord did not answer after %d attempts", what, attempts)
    return None, attempts


def _parent_id(place: Any) -> int | None:
    return place.parent_id if isinstance(place, discord.Thread) else None


async def resolve(client: discord.Client, channel_id: int) -> Place | Gap:
    """The place, from the cache or Discord (an archived thread is only in Discord)."""
    place = client.get_channel(channel_id)
    if place is not None:
        return place
    try:
        fetched, attempts = await with_retries(
            lambda: client.fetch_channel(channel_id), f"channel {channel_id}"
        )
    except (discord.NotFound, discord.InvalidData):
        return Gap(channel_id, GONE)
    except discord.Forbidden:
        # Missing Access: the bot cannot see it (no View Channels), or a private thread it
        # is not in (then Discord does not say which: the cache may not know the thread).
        return Gap(channel_id, PERMISSION + "view_channel")
    if fetched is None:
        return Gap(channel_id, UNANSWERED, attempts)
    return fetched


def missing(place: Place, *, thread_post: bool | None = None) -> list[str]:
    """The permissions the bot lacks to post in ``place`` (discord.py names), from the cache;
    empty when it cannot tell (a direct message, a parent not cached)."""
    guild = getattr(place, "guild", None)
    me = guild.me if guild is not None else None
    if me is None:
        return []
    try:
        perms = place.permissions_for(me)  # type: ignore[union-attr]
    except (discord.ClientException, AttributeError):
        return []
    in_thread = isinstance(place, discord.Thread) if thread_post is None else thread_post
    wanted = ["view_channel", "send_messages_in_threads" if in_thread else "send_messages"]
    return [name for name in wanted if not getattr(perms, name)]


def _lacks(place: Place, permission: str) -> bool:
    guild = getattr(place, "guild", None)
    me = guild.me if guild is not None else None
    if me is None:
        return False
    try:
        return not getattr(place.permissions_for(me), permission)  # type: ignore[union-attr]
    except (discord.ClientException, AttributeError):
        return False


def _blocked(place: Place) -> Gap | None:
    """A refusal known before any request: a locked thread, a missing permission."""
    if isinstance(place, discord.Thread) and place.locked and _lacks(place, "manage_threads"):
        return Gap(place.id, LOCKED, parent_id=place.parent_id)
    lacking = missing(place)
    if lacking:
        return Gap(place.id, PERMISSION + lacking[0], parent_id=_parent_id(place))
    return None


def _refused(place: Place, exc: discord.HTTPException) -> Gap:
    """What a 403 or 404 from Discord means here."""
    parent = _parent_id(place)
    if isinstance(exc, discord.NotFound):
        # Unknown Message: the place is there, the message (a request's) was deleted.
        return Gap(place.id, MESSAGE_GONE if exc.code == 10008 else GONE, parent_id=parent)
    if exc.code == 160005:  # Thread is locked
        return Gap(place.id, LOCKED, parent_id=parent)
    if exc.code == 50083:  # Thread is archived: an edit there (a post would reopen it)
        return Gap(place.id, ARCHIVED, parent_id=parent)
    if not isinstance(exc, discord.Forbidden):
        return Gap(place.id, REFUSED, parent_id=parent)
    if isinstance(place, discord.Thread) and place.is_private():
        lacking = missing(place)
        if not lacking:  # allowed everywhere it could be, so: not a member of the thread
            return Gap(place.id, PRIVATE_THREAD, parent_id=parent)
        return Gap(place.id, PERMISSION + lacking[0], parent_id=parent)
    lacking = missing(place)
    return Gap(place.id, PERMISSION + (lacking[0] if lacking else "view_channel"), parent_id=parent)


def _chunks(text: str, limit: int = 2000) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at line ends where possible."""
    pieces: list[str] = []
    while len(text) > limit:
        cut = text.rfind("\n", 0, limit)
        cut = cut if cut > limit // 2 else limit
        pieces.append(text[:cut])
        text = text[cut:].lstrip("\n")
    if text:
        pieces.append(text)
    return pieces


async def post(
    client: discord.Client,
    channel_id: int,
    content: str | None = None,
    *,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
    mentions: discord.AllowedMentions = QUIET,
) -> Posted | Gap:
    """Post a message of the bot's own in a place; see the module docstring."""
    place = await resolve(client, channel_id)
    if isinstance(place, Gap):
        return place
    if not isinstance(place, discord.abc.Messageable):
        return Gap(channel_id, NOT_MESSAGEABLE)
    blocked = _blocked(place)
    if blocked is not None:
        return blocked
    degraded = None
    messages: list[tuple[str | None, list[discord.Embed]]] = [(content, list(embeds))]
    if embeds and _lacks(place, "embed_links"):
        # Discord would drop the embeds and post the rest: the same words as plain text.
        degraded = Gap(place.id, PERMISSION + "embed_links", parent_id=_parent_id(place))
        plain = "\n".join(part for part in (content, embeds_as_text(embeds)) if part)
        messages = [(piece, []) for piece in _chunks(plain)]
    target = place
    first: discord.Message | None = None
    for index, (text, shown) in enumerate(messages):
        last = index == len(messages) - 1

        async def send(
            text: str | None = text, shown: list[discord.Embed] = shown, last: bool = last
        ) -> Any:
            return await target.send(
                text,
                embeds=shown,
                view=view if (last and view is not None) else discord.utils.MISSING,
                allowed_mentions=mentions,
            )

        try:
            sent, attempts = await with_retries(send, f"post in {channel_id}")
        except discord.HTTPException as exc:
            log.warning("post in %s refused: %s %s", channel_id, exc.status, exc.code)
            return _refused(place, exc)
        if sent is None:
            return Gap(place.id, UNANSWERED, attempts, parent_id=_parent_id(place))
        first = first or sent
    assert first is not None
    return Posted(first, degraded)


async def edit(
    client: discord.Client,
    channel_id: int,
    message_id: int,
    *,
    embed: discord.Embed | None = None,
    view: discord.ui.View | None = None,
    content: str | None = None,
) -> Gap | None:
    """Edit one of the bot's own messages in place (a roll request's button and result).

    Discord refuses edits in an archived thread, so post in it first (which reopens it).
    """
    place = await resolve(client, channel_id)
    if isinstance(place, Gap):
        return place
    if not isinstance(place, (discord.TextChannel, discord.Thread, discord.VoiceChannel)):
        return Gap(channel_id, NOT_MESSAGEABLE)
    partial = place.get_partial_message(message_id)
    kwargs: dict[str, Any] = {"view": view, "allowed_mentions": QUIET}
    if embed is not None:
        kwargs["embed"] = embed
    if content is not None:
        kwargs["content"] = content
    try:
        done, attempts = await with_retries(
            lambda: partial.edit(**kwargs), f"edit of {message_id} in {channel_id}"
        )
    except discord.HTTPException as exc:
        log.warning("edit in %s refused: %s %s", channel_id, exc.status, exc.code)
        return _refused(place, exc)
    if done is None:
        return Gap(place.id, UNANSWERED, attempts, parent_id=_parent_id(place))
    return None
