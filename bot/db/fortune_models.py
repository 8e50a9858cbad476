"""Fortune-dice choices on rolls (Pen & Dagger rulings 5 and 6).

One row per original roll, keyed by its ledger id: the natural-20 choice (keep or trade) or a
fortune-die reroll. The primary key makes a choice happen once, whatever the number of clicks,
shards or messages; the ledger itself stays append-only (the choice's own roll is a new row).
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, String, Table
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models import Base, sql_in
from bot.db.types import BigId, UTCDateTime, utcnow
from bot.words import RollChoice


class FortuneChoice(Base):
    """The one choice made on a roll; ``result_roll_id`` is the ledger row recording it."""

    __tablename__ = "fortune_choices"
    __table_args__ = (
        CheckConstraint(sql_in("choice", list(RollChoice)), name="choice"),
        Index("ix_fortune_choices_user_id", "user_id"),  # a person's (docs/privacy.md)
    )

    roll_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("ledger.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    choice: Mapped[str] = mapped_column(String(8))
    user_id: Mapped[int] = mapped_column(BigInteger)
    result_roll_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("ledger.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


fortune_choices = cast(Table, FortuneChoice.__table__)
