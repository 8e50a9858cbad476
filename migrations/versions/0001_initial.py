"""Initial schema: campaigns, characters and their data, pending modifiers, the roll ledger.

Revision ID: 0001
Revises:
Create Date: 2026-11-29

Hand-checked against ``bot/db/models.py``; ``tests/db/test_migrations.py`` proves they agree.
Column types are plain SQLAlchemy types (the models' validating TypeDecorators store JSON and
timestamps), so this file never changes when the Python side does.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RANKS = (
    "'Doomed', 'Hopeless', 'Inept', 'Untrained', 'Novice', 'Trained', 'Adept', 'Master', "
    "'Epic', 'Legendary', 'Godlike'"
)


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "campaigns",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("system", sa.String(length=16), nullable=False),
        sa.Column("gm_role_ids", sa.JSON(), nullable=False),
        sa.Column("gm_user_ids", sa.JSON(), nullable=False),
        sa.Column("gm_channel_id", sa.BigInteger(), nullable=True),
        sa.Column("fortune_boon_default", sa.Boolean(), nullable=False),
        sa.Column("crit_rules", sa.Boolean(), nullable=False),
        sa.Column("tier_very_easy", sa.SmallInteger(), nullable=False),
        sa.Column("tier_easy", sa.SmallInteger(), nullable=False),
        sa.Column("tier_moderate", sa.SmallInteger(), nullable=False),
        sa.Column("tier_hard", sa.SmallInteger(), nullable=False),
        sa.Column("tier_very_hard", sa.SmallInteger(), nullable=False),
        sa.Column("ability_names", sa.JSON(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.CheckConstraint(
            "system IN ('pen-and-dagger', 'roll-under', 'threshold', 'd20-check')",
            name=op.f("ck_campaigns_system"),
        ),
        sa.CheckConstraint(
            "tier_very_easy >= 1 AND tier_very_easy <= tier_easy AND tier_easy <= tier_moderate"
            " AND tier_moderate <= tier_hard AND tier_hard <= tier_very_hard"
            " AND tier_very_hard <= 40",
            name=op.f("ck_campaigns_tiers"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaigns")),
        sa.UniqueConstraint("channel_id", name=op.f("uq_campaigns_channel_id")),
    )
    op.create_table(
        "characters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("name_key", sa.String(length=64), nullable=False),
        sa.Column("level", sa.SmallInteger(), nullable=False),
        sa.Column("fortune", sa.SmallInteger(), nullable=False),
        sa.Column("double_fortune", sa.Boolean(), nullable=False),
        sa.Column("in_party", sa.Boolean(), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.CheckConstraint(
            "fortune >= 0 AND fortune <= CASE WHEN double_fortune THEN 4 ELSE 2 END",
            name=op.f("ck_characters_fortune"),
        ),
        sa.CheckConstraint(
            "length(name) >= 1 AND length(name) <= 64", name=op.f("ck_characters_name")
        ),
        sa.CheckConstraint("level >= 1 AND level <= 20", name=op.f("ck_characters_level")),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_characters_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_characters")),
        sa.UniqueConstraint(
            "campaign_id", "name_key", name=op.f("uq_characters_campaign_id_name_key")
        ),
    )
    op.create_index("ix_characters_campaign_id_user_id", "characters", ["campaign_id", "user_id"])
    op.create_index(
        "uq_characters_one_active",
        "characters",
        ["campaign_id", "user_id"],
        unique=True,
        sqlite_where=sa.text("is_active"),
        postgresql_where=sa.text("is_active"),
    )
    op.create_table(
        "character_proficiencies",
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("name_key", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("rank", sa.String(length=12), nullable=True),
        sa.Column("degree", sa.SmallInteger(), nullable=True),
        sa.CheckConstraint(f"rank IN ({RANKS})", name=op.f("ck_character_proficiencies_rank")),
        sa.CheckConstraint(
            "(rank IS NULL) <> (degree IS NULL)",
            name=op.f("ck_character_proficiencies_rank_or_degree"),
        ),
        sa.CheckConstraint("degree IN (1, 2)", name=op.f("ck_character_proficiencies_degree")),
        sa.CheckConstraint("length(name) >= 1", name=op.f("ck_character_proficiencies_name")),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_character_proficiencies_character_id_characters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "character_id", "name_key", name=op.f("pk_character_proficiencies")
        ),
    )
    op.create_table(
        "character_saves",
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("ability", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_character_saves_character_id_characters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("character_id", "ability", name=op.f("pk_character_saves")),
    )
    op.create_table(
        "character_scores",
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("ability", sa.String(length=32), nullable=False),
        sa.Column("value", sa.SmallInteger(), nullable=False),
        sa.CheckConstraint(
            "value >= -100 AND value <= 100", name=op.f("ck_character_scores_value")
        ),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_character_scores_character_id_characters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("character_id", "ability", name=op.f("pk_character_scores")),
    )
    op.create_table(
        "ledger",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=True),
        sa.Column("character_id", sa.Integer(), nullable=True),
        sa.Column("character_name", sa.String(length=64), nullable=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("interaction_id", sa.BigInteger(), nullable=True),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.Column("request", sa.Text(), nullable=False),
        sa.Column("dice", sa.JSON(), nullable=False),
        sa.Column("outcome", sa.JSON(), nullable=False),
        sa.Column("visibility", sa.String(length=8), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=True),
        sa.Column("salt", sa.String(length=64), nullable=True),
        sa.Column("revealed_at", _utc(), nullable=True),
        sa.CheckConstraint(
            "visibility IN ('public', 'gm', 'blind', 'self')", name=op.f("ck_ledger_visibility")
        ),
        sa.CheckConstraint(
            "commitment IS NULL OR length(commitment) = 64", name=op.f("ck_ledger_commitment")
        ),
        sa.CheckConstraint("length(kind) >= 1", name=op.f("ck_ledger_kind")),
        sa.CheckConstraint("length(request) <= 4000", name=op.f("ck_ledger_request")),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_ledger_campaign_id_campaigns"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_ledger_character_id_characters"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger")),
        sa.UniqueConstraint("interaction_id", name=op.f("uq_ledger_interaction_id")),
    )
    op.create_index("ix_ledger_campaign_id_id", "ledger", ["campaign_id", "id"])
    op.create_index("ix_ledger_character_id_id", "ledger", ["character_id", "id"])
    op.create_table(
        "pending_modifiers",
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("ability", sa.String(length=32), nullable=False),
        sa.Column("value", sa.SmallInteger(), nullable=False),
        sa.Column("source_roll_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.CheckConstraint(
            "value >= -20 AND value <= 20 AND value <> 0",
            name=op.f("ck_pending_modifiers_value"),
        ),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_pending_modifiers_character_id_characters"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["source_roll_id"],
            ["ledger.id"],
            name=op.f("fk_pending_modifiers_source_roll_id_ledger"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("character_id", "ability", name=op.f("pk_pending_modifiers")),
    )


def downgrade() -> None:
    op.drop_table("pending_modifiers")
    op.drop_index("ix_ledger_character_id_id", table_name="ledger")
    op.drop_index("ix_ledger_campaign_id_id", table_name="ledger")
    op.drop_table("ledger")
    op.drop_table("character_scores")
    op.drop_table("character_saves")
    op.drop_table("character_proficiencies")
    op.drop_index("uq_characters_one_active", table_name="characters")
    op.drop_index("ix_characters_campaign_id_user_id", table_name="characters")
    op.drop_table("characters")
    op.drop_table("campaigns")
