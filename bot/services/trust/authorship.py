"""Who posted this? A post's player, for anyone in its server (the question proxy bots answer).

A post goes out through a webhook under the character's name and portrait, and Discord shows
nothing of the member who sent it; the bot kept who did (``posts.user_id``). Anyone who can see
the post may ask: a character's player is no secret at the table, and an impostor must not be
able to hide behind a name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from bot.db.engine import Database
from bot.db.post_models import posts
from bot.services.kit.context import Caller
from bot.services.kit.errors import NotFound
from bot.services.kit.sql import transaction
from bot.services.store import ledger


@dataclass(frozen=True, slots=True)
class Authorship:
    """A post's author: the member, the character they posted as, when, and its log number."""

    post_id: int
    user_id: int
    character_name: str
    posted_at: datetime
    edited_at: datetime | None
    version: int
    #: The post's row in the game log (0 when it has none).
    number: int


async def who_posted(db: Database, caller: Caller, channel_id: int, message_id: int) -> Authorship:
    """The post a message of this server is, and who wrote it; :class:`NotFound` for any other
    message (the bot cannot vouch for what it did not post)."""
    async with transaction(db) as session:
        row = (
            await session.execute(
                select(posts).where(
                    posts.c.message_id == message_id,
                    posts.c.channel_id == channel_id,
                    posts.c.guild_id == caller.guild_id,
                )
            )
        ).first()
        if row is None:
            raise NotFound(
                "That message is not a post made with this bot's /post, so the bot cannot say "
                "who sent it."
            )
        number = 0
        if row.ledger_id is not None:
            number = (await ledger.numbers_in(session, [int(row.ledger_id)])).get(
                int(row.ledger_id), 0
            )
    return Authorship(
        post_id=int(row.id),
        user_id=int(row.user_id),
        character_name=str(row.character_name),
        posted_at=row.created_at,
        edited_at=row.edited_at,
        version=int(row.version),
        number=int(number),
    )
