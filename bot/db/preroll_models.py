"""Sealed pre-rolls (docs/prerolls.md): d20s a player rolls in advance, applied later by the GM.

Each sealed die is a hidden ledger row (kind ``preroll``) that nobody may see, its roller
included, until the GM applies it to a check; this table says whose it is and whether it was
used, and by which check's row. ``used_at`` is set once, by an atomic claim
(bot/services/rolling/prerolls.py), so a die is used once.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import ForeignKey, Index, Integer, Table
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models import Base
from bot.db.types import BigId, UTCDateTime


class Preroll(Base):
    """One sealed d20: its ledger row, its character, and the check row that used it."""

    __tablename__ = "prerolls"
    __table_args__ = (Index("ix_prerolls_character_id_ledger_id", "character_id", "ledger_id"),)

    ledger_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("ledger.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    campaign_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("campaigns.id", ondelete="CASCADE")
    )
    character_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("characters.id", ondelete="CASCADE")
    )
    #: The check's ledger row that used the die (None: still sealed).
    used_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("ledger.id", ondelete="SET NULL"))
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


prerolls = cast(Table, Preroll.__table__)
