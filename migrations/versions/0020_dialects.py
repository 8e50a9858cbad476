"""Dice dialects: a player's /me dice choice and a campaign's default.

Which bot's notation habits a player's rolls follow (docs/dice.md, "Coming from another bot:
dialects").

Revision ID: 0020_dialects
Revises: 0019_trust
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_dialects"
down_revision: str | None = "0019_trust"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DIALECTS = "dialect IN ('pbp', 'avrae', 'roll20', 'dice-maiden')"


def upgrade() -> None:
    op.create_table(
        "dice_dialects",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("dialect", sa.String(length=16), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(_DIALECTS, name=op.f("ck_dice_dialects_dialect")),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_dice_dialects")),
    )
    op.create_table(
        "campaign_dice_dialects",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("dialect", sa.String(length=16), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(_DIALECTS, name=op.f("ck_campaign_dice_dialects_dialect")),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_campaign_dice_dialects_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("campaign_id", name=op.f("pk_campaign_dice_dialects")),
    )


def downgrade() -> None:
    op.drop_table("campaign_dice_dialects")
    op.drop_table("dice_dialects")
