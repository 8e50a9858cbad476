"""Sealed pre-rolls (docs/prerolls.md): each sealed d20's character, and the check that used it.

Revision ID: 0014_prerolls
Revises: 0013_rounds
Create Date: 2026-11-30

Each sealed d20 is a hidden ``preroll`` ledger row; ``prerolls`` names its character and, once
the GM applies it, the check's row that used it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_prerolls"
down_revision: str | None = "0013_rounds"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _big_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "prerolls",
        sa.Column("ledger_id", _big_id(), autoincrement=False, nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("used_by", _big_id(), nullable=True),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["ledger_id"],
            ["ledger.id"],
            name=op.f("fk_prerolls_ledger_id_ledger"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_prerolls_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_prerolls_character_id_characters"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["used_by"],
            ["ledger.id"],
            name=op.f("fk_prerolls_used_by_ledger"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("ledger_id", name=op.f("pk_prerolls")),
    )
    op.create_index(
        "ix_prerolls_character_id_ledger_id", "prerolls", ["character_id", "ledger_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_prerolls_character_id_ledger_id", table_name="prerolls")
    op.drop_table("prerolls")
