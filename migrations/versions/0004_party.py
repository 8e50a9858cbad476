"""Party play: GM roll requests with their targets, group ability-score generations.

Revision ID: 0004_party
Revises: 0003_fortune
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_party"
down_revision: str | None = "0003_fortune"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "roll_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("gm_user_id", sa.BigInteger(), nullable=False),
        sa.Column("system", sa.String(length=16), nullable=False),
        sa.Column("ability", sa.String(length=32), nullable=False),
        sa.Column("is_save", sa.Boolean(), nullable=False),
        sa.Column("dc", sa.SmallInteger(), nullable=True),
        sa.Column("difficulty", sa.String(length=16), nullable=True),
        sa.Column("dc_hidden", sa.Boolean(), nullable=False),
        sa.Column("shared_roll", sa.SmallInteger(), nullable=True),
        sa.Column("request", sa.Text(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("completed_at", _utc(), nullable=True),
        sa.Column("revealed_at", _utc(), nullable=True),
        sa.Column("group_roll_id", sa.BigInteger(), nullable=True),
        sa.CheckConstraint(
            "shared_roll IS NULL OR (shared_roll >= 1 AND shared_roll <= 20)",
            name=op.f("ck_roll_requests_shared_roll"),
        ),
        sa.CheckConstraint(
            "dc IS NULL OR (dc >= 1 AND dc <= 100)", name=op.f("ck_roll_requests_dc")
        ),
        sa.CheckConstraint(
            "NOT dc_hidden OR dc IS NOT NULL", name=op.f("ck_roll_requests_hidden_needs_dc")
        ),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_roll_requests_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["group_roll_id"],
            ["ledger.id"],
            name=op.f("fk_roll_requests_group_roll_id_ledger"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roll_requests")),
    )
    op.create_index(
        "ix_roll_requests_campaign_id_id", "roll_requests", ["campaign_id", "id"], unique=False
    )
    op.create_table(
        "roll_request_targets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("request_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.SmallInteger(), nullable=False),
        sa.Column("character_id", sa.Integer(), nullable=True),
        sa.Column("character_name", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("answered_at", _utc(), nullable=True),
        sa.Column("roll_id", sa.BigInteger(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["request_id"],
            ["roll_requests.id"],
            name=op.f("fk_roll_request_targets_request_id_roll_requests"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_roll_request_targets_character_id_characters"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["roll_id"],
            ["ledger.id"],
            name=op.f("fk_roll_request_targets_roll_id_ledger"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roll_request_targets")),
        sa.UniqueConstraint(
            "request_id",
            "character_id",
            name=op.f("uq_roll_request_targets_request_id_character_id"),
        ),
    )
    op.create_table(
        "ability_generations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("gm_user_id", sa.BigInteger(), nullable=False),
        sa.Column("player_ids", sa.JSON(), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("roll_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_ability_generations_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["roll_id"],
            ["ledger.id"],
            name=op.f("fk_ability_generations_roll_id_ledger"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ability_generations")),
    )
    op.create_index(
        "ix_ability_generations_campaign_id_id",
        "ability_generations",
        ["campaign_id", "id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_ability_generations_campaign_id_id", table_name="ability_generations")
    op.drop_table("ability_generations")
    op.drop_table("roll_request_targets")
    op.drop_index("ix_roll_requests_campaign_id_id", table_name="roll_requests")
    op.drop_table("roll_requests")
