"""GM options for the optional rules, and what attacks and Null saves need per character.

Revision ID: 0010_rule_options
Revises: 0009_scheduler
Create Date: 2026-11-30

Campaigns: ``carry_over`` (threshold: +2/−2 after a critical, default on as before),
``luck_trade`` (Pen & Dagger: trade a natural 20 for a fortune die, default on as before) and
``rerolls`` (d20 check: something in the game lets a player reroll one d20 of an advantage
roll, default off). Characters: ``null_bonus`` (d20 check: a Null's bonus to Mana saves; NULL
for a character who is not a Null) and ``ac_loss`` (AC taken away by critical hits). Roll
requests: ``proficiency`` (a skill each target adds if they have it, for group checks).

Columns are added with plain ``ALTER TABLE`` (no table rebuild: see 0006 on why rebuilds are
avoided), and dropped the same way (SQLite 3.35+ and PostgreSQL both support DROP COLUMN).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_rule_options"
down_revision: str | None = "0009_scheduler"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CAMPAIGN_FLAGS = (("carry_over", True), ("luck_trade", True), ("rerolls", False))


def upgrade() -> None:
    for name, default in _CAMPAIGN_FLAGS:
        op.add_column(
            "campaigns",
            sa.Column(
                name,
                sa.Boolean(),
                nullable=False,
                server_default=sa.text("true" if default else "false"),
            ),
        )
    op.add_column("characters", sa.Column("null_bonus", sa.SmallInteger(), nullable=True))
    op.add_column(
        "characters",
        sa.Column("ac_loss", sa.SmallInteger(), nullable=False, server_default=sa.text("0")),
    )
    op.add_column("roll_requests", sa.Column("proficiency", sa.String(64), nullable=True))


def downgrade() -> None:
    for table, column in (
        ("roll_requests", "proficiency"),
        ("characters", "ac_loss"),
        ("characters", "null_bonus"),
        *(("campaigns", name) for name, _ in _CAMPAIGN_FLAGS),
    ):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
