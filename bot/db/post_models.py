"""Tables of posting in character (docs/posting.md): posts, every version of their text, the rolls
bound to them, and the campaign's and channel's posting settings.

A post's rolls are ledger rows (public, numbered, chained) made in the same transaction as the
post; ``post_rolls`` keeps which ones and the ``[[...]]`` each answered, so an edit can refuse
to change them. Every text a post ever showed stays in ``post_versions``.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models import NEVER_REUSE_IDS, Base
from bot.db.types import BigId, UTCDateTime, utcnow

#: Discord's paragraph text input holds at most 4,000 characters.
MAX_POST_TEXT = 4000


class Post(Base):
    """One message posted as a character (through a webhook, or an embed when the bot may not
    manage webhooks). Its id is shown (its rolls are "in post 12"), so never reused."""

    __tablename__ = "posts"
    __table_args__ = (
        Index("ix_posts_campaign_id_id", "campaign_id", "id"),
        Index("ix_posts_channel_id_message_id", "channel_id", "message_id"),
        Index("ix_posts_user_id", "user_id"),  # a person's posts (docs/privacy.md)
        # Deleting a character nulls its posts' character_id: found by index, not a scan.
        Index("ix_posts_character_id", "character_id"),
        CheckConstraint("version >= 1", name="version"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    character_id: Mapped[int | None] = mapped_column(
        ForeignKey("characters.id", ondelete="SET NULL")
    )
    #: Kept so the post still says who wrote it after the character is deleted.
    character_name: Mapped[str] = mapped_column(String(64))
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    #: Where it was posted (a thread's own id in a thread).
    channel_id: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger)
    #: The Discord message, set once it exists.
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    #: The webhook that posted it (None: the bot's own embed).
    webhook_id: Mapped[int | None] = mapped_column(BigInteger)
    #: The messages that continue it, in order, when it is longer than one message holds.
    continued_ids: Mapped[list[int] | None] = mapped_column(JSON)
    #: The current version's number (``post_versions``).
    version: Mapped[int] = mapped_column(SmallInteger, default=1)
    #: The post's ledger row (kind ``post``): its text's digest and its rolls' numbers.
    ledger_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("ledger.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    edited_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class PostVersion(Base):
    """A text a post showed; version 1 is the original, each edit adds the next."""

    __tablename__ = "post_versions"
    __table_args__ = (
        UniqueConstraint("post_id", "version"),
        CheckConstraint(f"length(text) <= {MAX_POST_TEXT}", name="text"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(SmallInteger)
    text: Mapped[str] = mapped_column(Text)
    #: This version's ledger row (kind ``post`` or ``post-edit``).
    ledger_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("ledger.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PostRoll(Base):
    """An inline roll of a post: its place among the post's ``[[...]]``, what it said, and
    its ledger row."""

    __tablename__ = "post_rolls"
    #: The copies of a roll in posts, by the roll (an erasure of someone it names).
    __table_args__ = (Index("ix_post_rolls_ledger_id", "ledger_id"),)

    post_id: Mapped[int] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    source: Mapped[str] = mapped_column(Text)
    ledger_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("ledger.id", ondelete="SET NULL")
    )
    number: Mapped[int] = mapped_column(BigInteger)
    #: The bold result shown in place and the compact dice line, to render edits unchanged.
    total: Mapped[str] = mapped_column(Text)
    detail: Mapped[str] = mapped_column(Text)


class PostSettings(Base):
    """A campaign's posting options (absent: the defaults)."""

    __tablename__ = "post_settings"

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    #: The GM allows posts to ping the players they @mention (never @everyone or roles).
    mentions: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PostChannel(Base):
    """What the bot remembers of a channel it posts in: when it said how to grant Manage
    Webhooks there (said once)."""

    __tablename__ = "post_channels"

    channel_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    webhook_hint_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


posts = cast(Table, Post.__table__)
post_versions = cast(Table, PostVersion.__table__)
post_rolls = cast(Table, PostRoll.__table__)
post_settings = cast(Table, PostSettings.__table__)
post_channels = cast(Table, PostChannel.__table__)
