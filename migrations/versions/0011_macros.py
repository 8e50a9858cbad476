"""Saved rolls (docs/in-character.md): a character's named roll texts.

Revision ID: 0011_macros
Revises: 0010_rule_options
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_macros"
down_revision: str | None = "0010_rule_options"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "macros",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("name_key", sa.String(length=32), nullable=False),
        sa.Column("roll", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("length(name) >= 1 AND length(name) <= 32", name=op.f("ck_macros_name")),
        sa.CheckConstraint(
            "length(roll) >= 1 AND length(roll) <= 1000", name=op.f("ck_macros_roll")
        ),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_macros_character_id_characters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_macros")),
        sa.UniqueConstraint(
            "character_id", "name_key", name=op.f("uq_macros_character_id_name_key")
        ),
    )


def downgrade() -> None:
    op.drop_table("macros")
