"""Fortune-dice choices: one keep / trade / reroll per roll (Pen & Dagger rulings 5 and 6).

Revision ID: 0003_fortune
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_fortune"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _big_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "fortune_choices",
        sa.Column("roll_id", _big_id(), autoincrement=False, nullable=False),
        sa.Column("choice", sa.String(length=8), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("result_roll_id", _big_id(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "choice IN ('keep', 'trade', 'reroll')", name=op.f("ck_fortune_choices_choice")
        ),
        sa.ForeignKeyConstraint(
            ["roll_id"],
            ["ledger.id"],
            name=op.f("fk_fortune_choices_roll_id_ledger"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["result_roll_id"],
            ["ledger.id"],
            name=op.f("fk_fortune_choices_result_roll_id_ledger"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("roll_id", name=op.f("pk_fortune_choices")),
    )


def downgrade() -> None:
    op.drop_table("fortune_choices")
