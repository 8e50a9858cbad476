"""Provably fair dice: server seeds committed by hash, players' own seeds (docs/fair-dice.md).

Revision ID: 0022_seeds
Revises: 0021_places
Create Date: 2026-12-01

``fair_seeds`` keeps each scope's server seeds (secret until revealed), their published
SHA-256 and the last roll number drawn from each; (scope_key, generation) is unique, and so is
the scope among unrevealed seeds, so a seed is created or rotated once under concurrency.
``player_seeds`` keeps each player's own seed (text personal, key not) and
``player_seed_changes`` when it changed.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022_seeds"
down_revision: str | None = "0021_places"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _big_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "fair_seeds",
        sa.Column("id", _big_id(), nullable=False),
        sa.Column("scope_key", sa.String(length=40), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(length=64), nullable=False),
        sa.Column("seed_hash", sa.String(length=64), nullable=False),
        sa.Column("hidden_key", sa.String(length=64), nullable=False),
        sa.Column("uses", sa.BigInteger(), nullable=False),
        sa.Column("period_s", sa.Integer(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("revealed_at", _utc(), nullable=True),
        sa.Column("hidden_revealed_at", _utc(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fair_seeds")),
        sa.UniqueConstraint(
            "scope_key", "generation", name=op.f("uq_fair_seeds_scope_key_generation")
        ),
    )
    op.create_index(
        "uq_fair_seeds_current",
        "fair_seeds",
        ["scope_key"],
        unique=True,
        sqlite_where=sa.text("revealed_at IS NULL"),
        postgresql_where=sa.text("revealed_at IS NULL"),
    )
    op.create_table(
        "player_seeds",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("text", sa.String(length=200), nullable=True),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_player_seeds")),
    )
    op.create_table(
        "player_seed_changes",
        sa.Column("id", _big_id(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("changed_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_seed_changes")),
    )
    op.create_index(op.f("ix_player_seed_changes_user_id"), "player_seed_changes", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_player_seed_changes_user_id"), table_name="player_seed_changes")
    op.drop_table("player_seed_changes")
    op.drop_table("player_seeds")
    op.drop_index("uq_fair_seeds_current", table_name="fair_seeds")
    op.drop_table("fair_seeds")
