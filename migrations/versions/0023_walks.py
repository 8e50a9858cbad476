"""Where /verify log last found a campaign's chain intact, and the message that shows it.

Revision ID: 0023_walks
Revises: 0022_seeds
Create Date: 2026-12-01

``log_checkpoints`` keeps, per campaign, the number and head of the last intact check and the
public message the bot posted with that head: the next ``/verify log`` walks on from there once
it has read the head back from that message (a database edit alone cannot forge it).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023_walks"
down_revision: str | None = "0022_seeds"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "log_checkpoints",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.BigInteger(), nullable=False),
        sa.Column("head", sa.String(length=64), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_log_checkpoints_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("campaign_id", name=op.f("pk_log_checkpoints")),
    )


def downgrade() -> None:
    op.drop_table("log_checkpoints")
