"""Tables of sealed declarations (docs/rounds.md): a GM's round, and each player's sealed action.

The text of a declaration is never stored here: it lives in its ledger row (kind
``declaration``), sealed like a hidden roll (salt and commitment, bot/services/store/ledger.py), and
shown to nobody until the round is revealed. These tables say only which rows belong to which
round and which of a player's declarations is their current one.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, Integer, String, Table, text
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models import NEVER_REUSE_IDS, Base, sql_in
from bot.db.types import UTCDateTime, utcnow
from bot.words import RoundState


class Round(Base):
    """A GM's round of sealed declarations in one channel (or thread); one open at a time."""

    __tablename__ = "rounds"
    __table_args__ = (
        # One open round per channel, even when two GMs open one at the same moment.
        Index(
            "uq_rounds_one_open",
            "channel_id",
            unique=True,
            sqlite_where=text("state = 'open'"),
            postgresql_where=text("state = 'open'"),
        ),
        Index("ix_rounds_campaign_id_id", "campaign_id", "id"),
        Index("ix_rounds_opened_by", "opened_by"),  # a person's (docs/privacy.md)
        CheckConstraint(sql_in("state", [s.value for s in RoundState]), name="state"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    #: The GM who opened it (an erasure replaces it with 0).
    opened_by: Mapped[int] = mapped_column(BigInteger)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    #: When it reveals itself (a scheduled job); None: the GM reveals it.
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    state: Mapped[str] = mapped_column(String(12), default=RoundState.OPEN.value)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RoundDeclaration(Base):
    """One sealed declaration: its ledger row, and whether a newer one of the player replaced it.

    A player's current declaration in a round is the one with ``replaced_at`` NULL; the round's
    row lock (taken by every declare) keeps it to one.
    """

    __tablename__ = "round_declarations"
    __table_args__ = (
        Index("ix_round_declarations_round_id_id", "round_id", "id"),
        Index("ix_round_declarations_user_id", "user_id"),  # a person's (docs/privacy.md)
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id", ondelete="CASCADE"))
    #: The sealed row (text, salt, commitment): ``ledger.id``.
    ledger_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("ledger.id"))
    user_id: Mapped[int] = mapped_column(BigInteger)
    #: Who declared, as the channel was told: the active character's name, else the member's.
    name: Mapped[str] = mapped_column(String(100))
    declared_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    replaced_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


rounds = cast(Table, Round.__table__)
round_declarations = cast(Table, RoundDeclaration.__table__)
