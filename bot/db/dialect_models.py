"""Dice dialects (docs/dice.md, "Dialects"): a player's ``/me dice`` choice and a campaign's
default, set by its GM. Absent rows mean the campaign's default, then ``pbp``."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, String, Table
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models import Base, sql_in
from bot.db.types import UTCDateTime, utcnow
from bot.dice.dialects import DIALECTS


class PlayerDialect(Base):
    """The dialect a player's rolls are read in, wherever they roll."""

    __tablename__ = "dice_dialects"
    __table_args__ = (CheckConstraint(sql_in("dialect", list(DIALECTS)), name="dialect"),)

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    dialect: Mapped[str] = mapped_column(String(16))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class CampaignDialect(Base):
    """The dialect a campaign's GM chose for players who chose none."""

    __tablename__ = "campaign_dice_dialects"
    __table_args__ = (CheckConstraint(sql_in("dialect", list(DIALECTS)), name="dialect"),)

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    dialect: Mapped[str] = mapped_column(String(16))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


dice_dialects = cast(Table, PlayerDialect.__table__)
campaign_dice_dialects = cast(Table, CampaignDialect.__table__)
