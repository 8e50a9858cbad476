"""Posting as a character (docs/posting.md): a post, its inline rolls, its edits, its portrait.

A post and its rolls are one transaction: the post's row, its first version, every `[[...]]`
rolled (bot/services/rolling/inline.py) and its
own ledger row (kind :data:`LedgerKind.POST`: the text's
digest and the rolls' numbers, so the tamper-evident log binds what was posted). A bad inline
roll raises before anything is written, and the cog posts nothing. The Discord message is sent
after the commit and its id attached (:func:`attach_message`).

An edit never rerolls: the new text must hold the very same `[[...]]`, in the same order
(:func:`edit_post` refuses anything else), and every earlier text stays in ``post_versions``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import delete, func, select, update

from bot.db.engine import Database
from bot.db.models import characters
from bot.db.post_models import (
    MAX_POST_TEXT as MAX_POST_TEXT,  # the cog sizes its text box by it
)
from bot.db.post_models import (
    post_channels,
    post_rolls,
    post_settings,
    post_versions,
    posts,
)
from bot.db.types import utcnow
from bot.quoting import quote
from bot.services.kit import commitments as cm
from bot.services.kit import personal
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NotAllowed, NotFound
from bot.services.kit.personal import DELETED, Person, PersonalData, Shown, declare, in_scope
from bot.services.kit.sql import Executor, insert_for, transaction
from bot.services.rolling.inline import (
    InlineRoll,
    InlineRolls,
    InlineSpan,
    find_rolls,
    prepare_text_in,
    roll_prepared_text_in,
)
from bot.services.rolling.reads import Reads
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView, get_campaign_in
from bot.services.store.characters import CharacterView, active_character_in
from bot.services.trust.access import is_gm, require_gm, target_character
from bot.words import LedgerKind

#: The ledger kind of a post, and of each edit of one (a new version of its text).

#: A portrait: an https URL of at most this many characters (Discord's embed URL limit) ...
MAX_AVATAR_URL = 2048
#: ... naming an image of one of these types ...
AVATAR_TYPES: dict[str, str] = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
}
#: ... and an uploaded one at most this large (Discord's own limit on an avatar upload).
MAX_AVATAR_BYTES = 8 * 1024 * 1024


# --- portraits ---------------------------------------------------------------------------------


def _extension(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def check_avatar_url(url: str) -> str:
    """An https image URL, or :class:`InvalidValue` saying why not. It is not fetched (the bot
    never downloads what a player links): the scheme, host and file type are checked."""
    url = url.strip()
    if len(url) > MAX_AVATAR_URL:
        raise InvalidValue(f"That link is too long ({MAX_AVATAR_URL} characters at most).")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        raise InvalidValue(f"{quote(url)} is not a link.") from None
    if parts.scheme.lower() != "https":
        raise InvalidValue(
            f"{quote(url)} is not an https:// link: Discord shows portraits only from https."
        )
    if not host or "." not in host or parts.username or parts.password:
        raise InvalidValue(f"{quote(url)} does not name a web server.")
    if any(c.isspace() for c in url):
        raise InvalidValue(f"{quote(url)} has spaces in it; links have none.")
    if _extension(parts.path) not in AVATAR_TYPES:
        raise InvalidValue(
            f"{quote(url)} does not end in an image file name ("
            + ", ".join(f".{e}" for e in AVATAR_TYPES)
            + ")."
        )
    return url


def check_avatar_upload(url: str, filename: str, content_type: str | None, size: int) -> str:
    """An uploaded image's URL, once its type and size are acceptable."""
    kind = (content_type or "").split(";", 1)[0].strip().lower()
    if kind not in AVATAR_TYPES.values() and _extension(filename) not in AVATAR_TYPES:
        raise InvalidValue(
            f"{quote(filename)} is not an image Discord can show (PNG, JPEG, GIF or WebP)."
        )
    if kind and kind not in AVATAR_TYPES.values():
        raise InvalidValue(f"{quote(filename)} is {quote(kind)}, not a PNG, JPEG, GIF or WebP.")
    if size > MAX_AVATAR_BYTES:
        raise InvalidValue(
            f"{quote(filename)} is {size / 1024 / 1024:.1f} MB; a portrait is at most "
            f"{MAX_AVATAR_BYTES // 1024 // 1024} MB."
        )
    return check_avatar_url(url)


async def set_avatar(
    db: Database, caller: Caller, url: str | None, name: str | None = None
) -> CharacterView:
    """Set (a checked URL) or clear (None) a character's portrait: the owner's or the GM's."""
    _, character = await target_character(db, caller, name, "change its portrait")
    async with transaction(db) as session:
        done = await session.execute(
            update(characters)
            .where(characters.c.id == character.id)
            .values(avatar_url=url)
            .returning(characters.c.id)
        )
        if done.first() is None:
            raise NotFound("That character no longer exists.")
    return dataclasses.replace(character, avatar_url=url)


# --- settings ----------------------------------------------------------------------------------


async def pingable_in(session: Executor, campaign_id: int) -> frozenset[int]:
    """The players a post may ping: none, unless the GM allowed it; then the campaign's
    players (whoever has a character in it), never anyone else."""
    stmt = select(post_settings.c.mentions).where(post_settings.c.campaign_id == campaign_id)
    if not (await session.execute(stmt)).scalar_one_or_none():
        return frozenset()
    players = select(characters.c.user_id).where(characters.c.campaign_id == campaign_id)
    return frozenset(int(u) for u in (await session.execute(players.distinct())).scalars())


async def set_mentions(db: Database, caller: Caller, on: bool) -> CampaignView:
    """GM: let posts in this campaign ping the players they mention (never @everyone, @here
    or a role), or not (the default)."""
    async with transaction(db) as session:
        campaign = await _campaign_in(session, caller)
        require_gm(campaign, caller, "change how posts mention players")
        stmt = insert_for(session, post_settings).values(
            campaign_id=campaign.id, mentions=on, updated_at=utcnow()
        )
        await session.execute(
            stmt.on_conflict_do_update(
                index_elements=["campaign_id"],
                set_={"mentions": on, "updated_at": utcnow()},
            )
        )
    return campaign


async def claim_webhook_hint(db: Database, channel_id: int, guild_id: int | None) -> bool:
    """True the first time only, per channel: the bot says once how to let it post as
    characters (Manage Webhooks), and remembers that it did."""
    async with transaction(db) as session:
        stmt = (
            insert_for(session, post_channels)
            .values(channel_id=channel_id, guild_id=guild_id, webhook_hint_at=utcnow())
            .on_conflict_do_nothing(index_elements=["channel_id"])
            .returning(post_channels.c.channel_id)
        )
        if (await session.execute(stmt)).first() is not None:
            return True
        stmt2 = (
            update(post_channels)
            .where(post_channels.c.channel_id == channel_id)
            .where(post_channels.c.webhook_hint_at.is_(None))
            .values(webhook_hint_at=utcnow())
            .returning(post_channels.c.channel_id)
        )
        return (await session.execute(stmt2)).first() is not None


# --- posting -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PostAuthor:
    """Who a post is written as, and what it may ping."""

    character_id: int | None
    name: str
    avatar_url: str | None
    #: The players its mentions may ping (empty: nobody).
    mentions: frozenset[int]


@dataclass(frozen=True, slots=True)
class NewPost:
    """A post recorded and ready to send: its id, the text, its rolls, its ledger number."""

    id: int
    author: PostAuthor
    text: str
    rolls: InlineRolls
    number: int


def digest(text: str) -> str:
    """The SHA-256 of a post's text (UTF-8), as its ledger row binds it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_text(text: str) -> str:
    if not text.strip():
        raise InvalidValue("A post needs some text.")
    if len(text) > MAX_POST_TEXT:
        raise InvalidValue(
            f"A post is at most {MAX_POST_TEXT:,} characters (this one has {len(text):,})."
        )
    return text


async def _campaign_in(
    session: Executor, caller: Caller, reads: Reads | None = None
) -> CampaignView:
    if caller.guild_id is None:
        raise NotAllowed("Posting as a character works in a campaign's channel on a server.")
    return await (reads or Reads(caller)).campaign_in(session)


async def post_author(db: Database, caller: Caller) -> PostAuthor:
    """The caller's active character here (refused early, before a modal opens)."""
    async with transaction(db) as session:
        campaign = await _campaign_in(session, caller)
        character = await active_character_in(session, campaign.id, caller.user_id)
        mentions = await pingable_in(session, campaign.id)
    return PostAuthor(character.id, character.name, character.avatar_url, mentions)


async def create_post(db: Database, caller: Caller, text: str, rng: random.Random) -> NewPost:
    """Record a post as the caller's active character, rolling its `[[...]]` (one transaction;
    a bad roll raises and nothing is written)."""
    _check_text(text)
    async with transaction(db) as session:
        # The campaign and the author, read once for the post and every roll in it.
        reads = Reads(caller)
        campaign = await _campaign_in(session, caller, reads)
        character = await reads.character_in(session)
        mentions = await pingable_in(session, campaign.id)
        # Every `[[...]]` read and checked before anything is written: a bad one refuses here.
        prepared = await prepare_text_in(session, caller, text, reads=reads)
        now = utcnow()
        post_id = int(
            (
                await session.execute(
                    posts.insert()
                    .values(
                        campaign_id=campaign.id,
                        character_id=character.id,
                        character_name=character.name,
                        guild_id=caller.guild_id,
                        channel_id=caller.channel_id,
                        user_id=caller.user_id,
                        version=1,
                        created_at=now,
                    )
                    .returning(posts.c.id)
                )
            ).scalar_one()
        )
        rolled = await roll_prepared_text_in(
            session, prepared, rng, caller, bound_to=f"post {post_id}"
        )
        numbers = [r.number for r in rolled.rolls]
        recorded = await ledger.record_in(
            session,
            ledger.NewRoll(
                # The interaction id goes on one row only: the first inline roll's when there
                # is one (a retried interaction is refused there), else the post's own.
                origin=ledger.Origin.of(caller, with_interaction=not rolled.rolls),
                kind=LedgerKind.POST,
                request=f"/post (post {post_id})",
                dice=[],
                outcome={"post": post_id, "version": 1, "sha256": digest(text), "rolls": numbers},
                campaign_id=campaign.id,
                character_id=character.id,
                character_name=character.name,
            ),
        )
        await session.execute(
            update(posts).where(posts.c.id == post_id).values(ledger_id=recorded.id)
        )
        await session.execute(
            post_versions.insert().values(
                post_id=post_id, version=1, text=text, ledger_id=recorded.id, created_at=now
            )
        )
        if rolled.rolls:
            await session.execute(
                post_rolls.insert(),
                [
                    {
                        "post_id": post_id,
                        "position": i,
                        "source": r.span.source,
                        "ledger_id": r.ledger_id,
                        "number": r.number,
                        "total": r.total,
                        "detail": r.detail,
                    }
                    for i, r in enumerate(rolled.rolls)
                ],
            )
    author = PostAuthor(character.id, character.name, character.avatar_url, mentions)
    return NewPost(post_id, author, text, rolled, recorded.number)


async def attach_message(
    db: Database,
    post_id: int,
    message_id: int,
    webhook_id: int | None,
    continued: Sequence[int] = (),
) -> None:
    """The Discord message that shows a post (sent after the post was recorded), and those
    that continue it when it is longer than one message holds."""
    async with transaction(db) as session:
        await session.execute(
            update(posts)
            .where(posts.c.id == post_id)
            .values(
                message_id=message_id,
                webhook_id=webhook_id,
                continued_ids=[int(i) for i in continued] or None,
            )
        )


# --- finding, editing, history -----------------------------------------------------------------

_LINK = re.compile(r"discord(?:app)?\.com/channels/(\d+|@me)/(\d+)/(\d+)")


def parse_message_ref(ref: str) -> tuple[int | None, int]:
    """A message link (its channel and id) or a bare message id (channel: None)."""
    ref = ref.strip()
    found = _LINK.search(ref)
    if found:
        return int(found[2]), int(found[3])
    if ref.isdigit() and len(ref) <= 20:
        return None, int(ref)
    raise InvalidValue(
        f"{quote(ref)} is not a message link or id: right-click the post, Copy Message Link."
    )


@dataclass(frozen=True, slots=True)
class StoredPost:
    """A post as stored: where it is, who wrote it, its current text and its rolls."""

    id: int
    campaign_id: int
    channel_id: int
    message_id: int | None
    webhook_id: int | None
    user_id: int
    character_name: str
    #: The messages that continue it, in order (a post longer than one message).
    continued_ids: tuple[int, ...]
    avatar_url: str | None
    #: The players its mentions may ping (empty: nobody).
    mentions: frozenset[int]
    version: int
    text: str
    rolls: tuple[InlineRoll, ...]
    number: int = 0


async def _find_in(session: Executor, caller: Caller, ref: str) -> StoredPost:
    """A post of this server by its message's link or id, from any of its channels (a GM may
    look at a post's history from the GM channel)."""
    channel_id, message_id = parse_message_ref(ref)
    if caller.guild_id is None:
        raise NotAllowed("Posts are found on the server they were posted in.")
    stmt = select(posts).where(posts.c.message_id == message_id)
    stmt = stmt.where(posts.c.guild_id == caller.guild_id)
    if channel_id is not None:
        stmt = stmt.where(posts.c.channel_id == channel_id)
    row = (await session.execute(stmt.order_by(posts.c.id.desc()).limit(1))).first()
    if row is None:
        raise NotFound("That message is not a post (posts are made with /post).")
    return await _load_in(session, row)


async def _load_in(session: Executor, row: Any) -> StoredPost:
    text_row: str = (
        await session.execute(
            select(post_versions.c.text).where(
                post_versions.c.post_id == row.id, post_versions.c.version == row.version
            )
        )
    ).scalar_one()
    avatar = None
    if row.character_id is not None:
        avatar = (
            await session.execute(
                select(characters.c.avatar_url).where(characters.c.id == row.character_id)
            )
        ).scalar_one_or_none()
    bound = (
        await session.execute(
            select(post_rolls).where(post_rolls.c.post_id == row.id).order_by(post_rolls.c.position)
        )
    ).all()
    spans = find_rolls(str(text_row))
    rolls = tuple(
        InlineRoll(
            span=spans[i] if i < len(spans) else InlineSpan(0, 0, b.source),
            ledger_id=int(b.ledger_id or 0),
            number=int(b.number),
            outcome=None,
            total=str(b.total),
            detail=str(b.detail),
        )
        for i, b in enumerate(bound)
    )
    return StoredPost(
        id=int(row.id),
        campaign_id=int(row.campaign_id),
        channel_id=int(row.channel_id),
        message_id=row.message_id,
        webhook_id=row.webhook_id,
        user_id=int(row.user_id),
        continued_ids=tuple(int(i) for i in (row.continued_ids or ())),
        character_name=str(row.character_name),
        avatar_url=avatar,
        mentions=await pingable_in(session, int(row.campaign_id)),
        version=int(row.version),
        text=str(text_row),
        rolls=rolls,
    )


async def post_to_edit(db: Database, caller: Caller, ref: str) -> StoredPost:
    """The caller's own post named by a message link or id (for the edit modal)."""
    async with transaction(db) as session:
        found = await _find_in(session, caller, ref)
    if found.user_id != caller.user_id:
        raise NotAllowed("Only the player who wrote a post can edit it.")
    return found


def _roll_sources(text: str) -> list[str]:
    return [" ".join(span.source.split()) for span in find_rolls(text)]


async def edit_post(db: Database, caller: Caller, post_id: int, text: str) -> StoredPost:
    """A new version of the caller's post. Its rolls stay as rolled: the new text must hold
    the same `[[...]]` in the same order, or the edit is refused and nothing changes."""
    _check_text(text)
    async with transaction(db) as session:
        row = (
            await session.execute(select(posts).where(posts.c.id == post_id).with_for_update())
        ).first()
        if row is None:
            raise NotFound("That post no longer exists.")
        if row.user_id != caller.user_id:
            raise NotAllowed("Only the player who wrote a post can edit it.")
        bound = (
            await session.execute(
                select(post_rolls.c.source, post_rolls.c.number)
                .where(post_rolls.c.post_id == post_id)
                .order_by(post_rolls.c.position)
            )
        ).all()
        before = [" ".join(str(b.source).split()) for b in bound]
        after = _roll_sources(text)
        if before != after:
            raise InvalidValue(_roll_change(before, after))
        version = int(row.version) + 1
        recorded = await ledger.record_in(
            session,
            ledger.NewRoll(
                origin=ledger.Origin.of(caller),
                kind=LedgerKind.POST_EDIT,
                request=f"/post edit (post {post_id})",
                dice=[],
                outcome={
                    "post": post_id,
                    "version": version,
                    "sha256": digest(text),
                    "rolls": [int(b.number) for b in bound],
                },
                campaign_id=row.campaign_id,
                character_id=row.character_id,
                character_name=row.character_name,
            ),
        )
        now = utcnow()
        await session.execute(
            post_versions.insert().values(
                post_id=post_id, version=version, text=text, ledger_id=recorded.id, created_at=now
            )
        )
        await session.execute(
            update(posts).where(posts.c.id == post_id).values(version=version, edited_at=now)
        )
    return await _stored_by_id(db, post_id)


def _roll_change(before: list[str], after: list[str]) -> str:
    """Why an edit is refused, in the player's words."""
    head = "Rolls in a post are never rerolled, so an edit keeps every [[…]] exactly as it was."
    if len(after) > len(before):
        return f"{head} This edit adds a roll: post it separately. Nothing was changed."
    if len(after) < len(before):
        return f"{head} This edit removes a roll. Nothing was changed."
    changed = next(i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b)
    return (
        f"{head} Roll {changed + 1} was {quote('[[' + before[changed] + ']]')}, the edit makes "
        f"it {quote('[[' + after[changed] + ']]')}. Nothing was changed."
    )


async def _stored_by_id(db: Database, post_id: int) -> StoredPost:
    async with transaction(db) as session:
        row = (await session.execute(select(posts).where(posts.c.id == post_id))).first()
        if row is None:
            raise NotFound("That post no longer exists.")
        return await _load_in(session, row)


@dataclass(frozen=True, slots=True)
class Version:
    """One text a post showed."""

    version: int
    text: str
    created_at: datetime
    number: int | None


@dataclass(frozen=True, slots=True)
class PostHistory:
    """Every version of a post, oldest first."""

    post: StoredPost
    versions: tuple[Version, ...]


async def post_history(db: Database, caller: Caller, ref: str) -> PostHistory:
    """Every text a post showed: for the campaign's GMs and the post's author."""
    async with transaction(db) as session:
        found = await _find_in(session, caller, ref)
        campaign = await get_campaign_in(session, found.campaign_id)
        if found.user_id != caller.user_id and not is_gm(campaign, caller):
            raise NotAllowed("A post's earlier versions are for the GM and its author.")
        rows = (
            await session.execute(
                select(
                    post_versions.c.version,
                    post_versions.c.text,
                    post_versions.c.created_at,
                    post_versions.c.ledger_id,
                )
                .where(post_versions.c.post_id == found.id)
                .order_by(post_versions.c.version)
            )
        ).all()
        numbers = await ledger.numbers_in(session, [int(r.ledger_id) for r in rows if r.ledger_id])
    versions = tuple(
        Version(
            int(r.version),
            str(r.text),
            r.created_at,
            numbers.get(int(r.ledger_id)) if r.ledger_id else None,
        )
        for r in rows
    )
    return PostHistory(found, versions)


# --- what a post keeps about a person (bot/services/kit/personal.py) ----------------------------


async def _show_in(session: Executor, shown: Shown) -> None:
    """Posts written as a character, every version of their text kept."""
    written = (
        select(posts.c.guild_id, func.count())
        .where(posts.c.user_id == shown.user_id, in_scope(posts, shown.guild_id))
        .group_by(posts.c.guild_id)
    )
    for guild, count in await personal.rows(session, written):
        shown.server(guild)["posts"] = int(count)


async def _erase_posts(db: Database, person: Person) -> int:
    """Their posts are their own words: deleted, every version and bound copy with them (the
    rolls stay in the log like any other, tombstoned there), a page per transaction."""
    deleted = 0
    while True:
        async with person.transaction(db) as session:
            page = select(posts.c.id).where(
                posts.c.user_id == person.user_id, in_scope(posts, person.guild_id)
            )
            ids = [int(i) for (i,) in await personal.rows(session, page.limit(person.page))]
            if not ids:
                return deleted
            await session.execute(delete(posts).where(posts.c.id.in_(ids)))
            deleted += len(ids)
        await personal.turn()


async def _erase_mentions_in(session: Executor, person: Person) -> int:
    """A mention of them (``<@id>``, their id itself) in another player's post."""
    mention = re.compile(rf"<@!?{person.user_id}>")

    def version(row: Any) -> dict[str, Any]:
        text = mention.sub(cm.TOMBSTONE, row.text)
        return {"text": text} if text != row.text else {}

    selected = (
        select(post_versions.c.id, post_versions.c.text)
        .join(posts, posts.c.id == post_versions.c.post_id)
        .where(
            post_versions.c.text.contains(f"<@{person.user_id}>")
            | post_versions.c.text.contains(f"<@!{person.user_id}>"),
            in_scope(posts, person.guild_id),
        )
    )
    return await personal.rewrite(session, post_versions, selected, version)


async def _erase(db: Database, person: Person) -> int:
    deleted = await _erase_posts(db, person)
    return deleted + await personal.each_in_its_transaction(_erase_mentions_in)(db, person)


async def _copies_in(session: Executor, person: Person, ledger_ids: list[int]) -> list[int]:
    """Another player's post bound to a roll that names them: the post's copy of the roll (its
    ``[[...]]`` in every version, the result line). Returns the post's ledger rows, whose
    digest of its text would confirm a guess of what was erased. The roll's number and total
    stay."""
    stmt = (
        select(post_rolls.c.post_id, post_rolls.c.position, post_rolls.c.source)
        .join(posts, posts.c.id == post_rolls.c.post_id)
        .where(post_rolls.c.ledger_id.in_(ledger_ids), posts.c.user_id != person.user_id)
    )
    bound = await personal.rows(session, stmt)
    if not bound:
        return []
    by_post: dict[int, set[int]] = {}
    for post_id, position, source in bound:
        by_post.setdefault(int(post_id), set()).add(int(position))
        if source != cm.TOMBSTONE:
            await session.execute(
                update(post_rolls)
                .where(post_rolls.c.post_id == post_id, post_rolls.c.position == position)
                .values(source=cm.TOMBSTONE, detail=cm.TOMBSTONE)
            )
            person.other += 1
    digest_rows: list[int] = []
    for post_id, positions in by_post.items():
        versions = await personal.rows(
            session,
            select(post_versions.c.id, post_versions.c.text, post_versions.c.ledger_id).where(
                post_versions.c.post_id == post_id
            ),
        )
        for version_id, text, ledger_id in versions:
            if ledger_id is not None:
                digest_rows.append(int(ledger_id))
            spans = find_rolls(text)
            new = text
            for position in sorted(positions, reverse=True):
                if position < len(spans) and spans[position].source != cm.TOMBSTONE:
                    span = spans[position]
                    new = f"{new[: span.start]}[[{cm.TOMBSTONE}]]{new[span.end :]}"
            if new != text:
                await session.execute(
                    update(post_versions).where(post_versions.c.id == version_id).values(text=new)
                )
                person.other += 1
    return digest_rows


PERSONAL_DATA = declare(
    PersonalData(
        "posts",
        holdings=(
            personal.Holding("posts", "user_id", DELETED),
            personal.holding(
                "post_versions",
                "of their post (deleted); of another's post: a mention <@id>, or a bound roll "
                "that names them (its [[...]] becomes [[[erased]]])",
                "*",
                "text",
            ),
            personal.holding(
                "post_rolls",
                "of their post (deleted); of another's post: its roll names them",
                "*",
                "source",
                "detail",
            ),
        ),
        not_personal={
            "posts.continued_ids": "the ids of the messages a long post continues in",
            "post_rolls.total": "the roll's total, as the dice made it",
            "post_settings": "a campaign's posting options",
            "post_channels": "when a channel was told how to allow webhooks",
        },
        show_in=_show_in,
        erase=_erase,
        copies_in=_copies_in,
        order=10,
    )
)
