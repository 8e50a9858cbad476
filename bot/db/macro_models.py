"""Saved rolls (docs/in-character.md): a character's named roll texts, run by /macro run or
`[[name]]`.

A macro belongs to one character (and so to the character's player): deleting the character
deletes its macros, and erasing a person's data (bot/services/trust/privacy.py) deletes theirs.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String, Table, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models import Base
from bot.db.types import UTCDateTime, utcnow


class Macro(Base):
    """A saved roll: what the player would type after a slash (`check DEX Stealth adv`)."""

    __tablename__ = "macros"
    __table_args__ = (
        UniqueConstraint("character_id", "name_key"),
        CheckConstraint("length(name) >= 1 AND length(name) <= 32", name="name"),
        CheckConstraint("length(roll) >= 1 AND length(roll) <= 1000", name="roll"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(32))
    #: ``name.casefold()``: names are unique per character, case-insensitively.
    name_key: Mapped[str] = mapped_column(String(32))
    roll: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


macros = cast(Table, Macro.__table__)
