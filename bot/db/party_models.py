"""Tables of party play: GM roll requests and their targets, group ability-score generations.

A roll request outlives the bot process: its persistent "Roll" button carries only the
request's id, and everything a click needs (who may roll, who has rolled, the one shared d20
of a roll-under group save) is read from here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

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
)
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models import NEVER_REUSE_IDS, Base, sql_in
from bot.db.types import IdList, UTCDateTime, utcnow
from bot.words import DefaultAction


class RollRequest(Base):
    """A GM's request for some characters to roll one ability, answered by button clicks."""

    __tablename__ = "roll_requests"
    __table_args__ = (
        Index("ix_roll_requests_campaign_id_id", "campaign_id", "id"),
        Index("ix_roll_requests_gm_user_id", "gm_user_id"),  # a person's (docs/privacy.md)
        CheckConstraint(
            "shared_roll IS NULL OR (shared_roll >= 1 AND shared_roll <= 20)", name="shared_roll"
        ),
        CheckConstraint("dc IS NULL OR (dc >= 1 AND dc <= 100)", name="dc"),
        CheckConstraint("NOT dc_hidden OR dc IS NOT NULL", name="hidden_needs_dc"),
        CheckConstraint(
            "default_action IS NULL OR " + sql_in("default_action", list(DefaultAction)),
            name="default_action",
        ),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    #: The posted message, set once it exists (the GM's reveal edits it).
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    gm_user_id: Mapped[int] = mapped_column(BigInteger)
    system: Mapped[str] = mapped_column(String(16))
    ability: Mapped[str] = mapped_column(String(32))
    #: d20 check: a saving throw rather than an ability check.
    is_save: Mapped[bool] = mapped_column(Boolean, default=False)
    #: A skill each target adds if their sheet has it (d20 check rule 9, "Group Checks").
    proficiency: Mapped[str | None] = mapped_column(String(64))
    dc: Mapped[int | None] = mapped_column(SmallInteger)
    #: Threshold: a difficulty tier instead of an exact threshold.
    difficulty: Mapped[str | None] = mapped_column(String(16))
    dc_hidden: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Roll-under group save: the one d20 of the whole group, rolled by the first click.
    shared_roll: Mapped[int | None] = mapped_column(SmallInteger)
    request: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    group_roll_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("ledger.id", ondelete="SET NULL")
    )
    #: The game clock (docs/clock.md): when the request closes, and what happens then to whoever
    #: has not rolled (``roll``, ``skip`` or ``fail``); a reminder time, if any.
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    default_action: Mapped[str | None] = mapped_column(String(8))
    remind_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RollRequestTarget(Base):
    """One requested character; ``answered_at`` is set once, by its owner's click."""

    __tablename__ = "roll_request_targets"
    __table_args__ = (
        UniqueConstraint("request_id", "character_id"),
        Index("ix_roll_request_targets_user_id", "user_id"),  # a person's (docs/privacy.md)
        # Deleting a character nulls its targets' character_id: by index, not a scan.
        Index("ix_roll_request_targets_character_id", "character_id"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("roll_requests.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(SmallInteger)
    character_id: Mapped[int | None] = mapped_column(
        ForeignKey("characters.id", ondelete="SET NULL")
    )
    character_name: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[int] = mapped_column(BigInteger)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    roll_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("ledger.id", ondelete="SET NULL")
    )
    #: The roll's summary (dice, modifiers, total, result) for re-rendering the message.
    result: Mapped[Any] = mapped_column(JSON, nullable=True)
    #: Set when the deadline's default answered for this character (``roll``, ``skip`` or
    #: ``fail``) instead of its player.
    defaulted: Mapped[str | None] = mapped_column(String(8))
    #: When the one reminder of this target was sent (or found unneeded), so never twice.
    reminded_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class AbilityGeneration(Base):
    """Six group ability scores (Pen & Dagger ruling 8), for the players who rolled them."""

    __tablename__ = "ability_generations"
    __table_args__ = (
        Index("ix_ability_generations_campaign_id_id", "campaign_id", "id"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    gm_user_id: Mapped[int] = mapped_column(BigInteger)
    player_ids: Mapped[list[int]] = mapped_column(IdList, default=list)
    scores: Mapped[Any] = mapped_column(JSON)
    roll_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("ledger.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


roll_requests = cast(Table, RollRequest.__table__)
roll_request_targets = cast(Table, RollRequestTarget.__table__)
ability_generations = cast(Table, AbilityGeneration.__table__)
