"""Messages whose `[[…]]` were rolled by the message context menu: each message once.

"A message's dice roll once" is keyed on the Discord message's id (a snowflake no two messages
share), never on its text: the first roll of a message claims its row, in the transaction that
records the rolls, and a second try finds the claim and names the earlier roll.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import BigInteger, ForeignKey, Table
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models import Base
from bot.db.types import BigId, UTCDateTime, utcnow


class RolledMessage(Base):
    """A message whose dice were rolled: by whom, and the first ledger row of its rolls."""

    __tablename__ = "rolled_messages"

    message_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(BigInteger)
    ledger_id: Mapped[int] = mapped_column(BigId, ForeignKey("ledger.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


rolled_messages = cast(Table, RolledMessage.__table__)
