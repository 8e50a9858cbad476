"""What the bot could not post on its own (docs/deploying.md, "Permissions").

A clock notice, a reminder, a verdict, a round's reveal, a GM copy: when Discord refused it
(a missing permission, a locked or deleted thread) or did not answer after the retries, one
row here says what, where and why, for /catchup and /gm log, and whether the GM has been told
(once per place and problem until a post there gets through again).
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Table
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models import Base
from bot.db.types import BigId, UTCDateTime, utcnow


class UndeliveredNotice(Base):
    """One message the bot meant to post and could not."""

    __tablename__ = "undelivered_notices"
    __table_args__ = (
        Index("ix_undelivered_notices_campaign_id_id", "campaign_id", "id"),
        Index("ix_undelivered_notices_place", "campaign_id", "channel_id", "problem"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    guild_id: Mapped[int] = mapped_column(BigInteger)
    #: The place it was for: a channel, a thread or a forum post.
    channel_id: Mapped[int] = mapped_column(BigInteger)
    #: The game clock's job whose notice it was (none for a GM copy of a command).
    job_id: Mapped[int | None] = mapped_column(BigInteger)
    #: What it was, in words that show nothing hidden ("the verdict of roll request #4").
    what: Mapped[str] = mapped_column(String(200))
    #: Why, as a key of bot/render/places.py (``permission:send_messages_in_threads``, ``locked``).
    problem: Mapped[str] = mapped_column(String(64))
    #: Whether it is a GM copy (shown to GMs only) rather than a notice for the table.
    gm_only: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    #: When the GM was told of this place's problem (set on the first row of its kind).
    gm_told_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: When a later post in the same place got through: the problem is fixed.
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: Retries made before giving up (transient failures only).
    attempts: Mapped[int] = mapped_column(Integer, default=1)


undelivered_notices = cast(Table, UndeliveredNotice.__table__)
