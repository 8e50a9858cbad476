"""Provably fair dice (docs/fair-dice.md): server seeds committed by their hash before use, and
each player's own seed.

A scope (``campaign:<id>``, or ``channel:<snowflake>`` outside campaigns, as the ledger's
chains) has one current seed: its row not yet revealed. Two unique indexes make a seed drawn
once under concurrency: (scope, generation), and the scope among unrevealed rows, so two
processes creating or rotating at once cannot both add a seed.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Table, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models import Base
from bot.db.types import BigId, UTCDateTime, utcnow


class FairSeed(Base):
    """One server seed of a scope: secret until revealed, its SHA-256 published at once.

    Draw numbers are counted per player key in ``fair_draws`` (migration 0024); ``uses``
    counted them per seed before and is no longer moved. ``hidden_key`` makes the blinding
    values of hidden rolls and is never shown with the seed.
    """

    __tablename__ = "fair_seeds"
    __table_args__ = (
        UniqueConstraint("scope_key", "generation"),
        # One current seed per scope, by the database itself: a process that would make a
        # second one (creating or rotating at the same moment as another) inserts nothing.
        Index(
            "uq_fair_seeds_current",
            "scope_key",
            unique=True,
            sqlite_where=text("revealed_at IS NULL"),
            postgresql_where=text("revealed_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    scope_key: Mapped[str] = mapped_column(String(40))
    generation: Mapped[int] = mapped_column(Integer)
    seed: Mapped[str] = mapped_column(String(64))
    seed_hash: Mapped[str] = mapped_column(String(64))
    hidden_key: Mapped[str] = mapped_column(String(64))
    uses: Mapped[int] = mapped_column(BigInteger, default=0)
    #: Seconds a seed lasts before it rotates on its own (GM-set; None: only by count).
    period_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    revealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    #: When ``hidden_key`` was revealed: at the rotation if no hidden roll drawn from the seed
    #: was still unrevealed then (it would reveal that roll), else never.
    hidden_revealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class FairDraw(Base):
    """How many draws a player key took from a server seed: its n-th roll from the seed is draw
    n, whatever anyone else rolls (one upsert per roll, so never twice)."""

    __tablename__ = "fair_draws"

    seed_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("fair_seeds.id", ondelete="CASCADE"), primary_key=True
    )
    player: Mapped[str] = mapped_column(String(64), primary_key=True)
    uses: Mapped[int] = mapped_column(BigInteger)


class PlayerSeed(Base):
    """A player's own seed: the text they chose (personal, erased with their data) and the
    key it enters the dice as (recorded with each roll, so the rolls stay checkable)."""

    __tablename__ = "player_seeds"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    text: Mapped[str | None] = mapped_column(String(200), nullable=True)
    key: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PlayerSeedChange(Base):
    """When a player's seed changed, and to which key (never the text): the log a player shows
    to prove they changed it after a server seed's hash was published."""

    __tablename__ = "player_seed_changes"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)
    key: Mapped[str] = mapped_column(String(64))
    changed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


fair_seeds = cast(Table, FairSeed.__table__)
player_seeds = cast(Table, PlayerSeed.__table__)
fair_draws = cast(Table, FairDraw.__table__)
player_seed_changes = cast(Table, PlayerSeedChange.__table__)
