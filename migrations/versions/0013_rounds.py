"""Sealed declarations (docs/rounds.md): rounds, and each player's sealed declaration in one.

Revision ID: 0013_rounds
Revises: 0012_posts
Create Date: 2026-11-30

A declaration's text is in its ledger row (kind ``declaration``, sealed like a hidden roll);
these tables only tie the rows to their round.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_rounds"
down_revision: str | None = "0012_posts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("opened_by", sa.BigInteger(), nullable=False),
        sa.Column("opened_at", _utc(), nullable=False),
        sa.Column("deadline_at", _utc(), nullable=True),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("closed_at", _utc(), nullable=True),
        sa.CheckConstraint(
            "state IN ('open', 'revealed', 'cancelled')", name=op.f("ck_rounds_state")
        ),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_rounds_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_rounds_campaign_id_id", "rounds", ["campaign_id", "id"])
    op.create_index(
        "uq_rounds_one_open",
        "rounds",
        ["channel_id"],
        unique=True,
        sqlite_where=sa.text("state = 'open'"),
        postgresql_where=sa.text("state = 'open'"),
    )
    op.create_table(
        "round_declarations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("ledger_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("declared_at", _utc(), nullable=False),
        sa.Column("replaced_at", _utc(), nullable=True),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["rounds.id"],
            name=op.f("fk_round_declarations_round_id_rounds"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["ledger_id"], ["ledger.id"], name=op.f("fk_round_declarations_ledger_id_ledger")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_round_declarations")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_round_declarations_round_id_id", "round_declarations", ["round_id", "id"]
    )


def downgrade() -> None:
    op.drop_index("ix_round_declarations_round_id_id", table_name="round_declarations")
    op.drop_table("round_declarations")
    op.drop_index("uq_rounds_one_open", table_name="rounds")
    op.drop_index("ix_rounds_campaign_id_id", table_name="rounds")
    op.drop_table("rounds")
