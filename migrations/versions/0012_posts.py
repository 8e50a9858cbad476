"""Posting in character (docs/posting.md): posts, versions, bound rolls, settings and portraits.

Posts, every version of their text, the rolls bound to them, posting settings, and a
character's portrait.

Revision ID: 0012_posts
Revises: 0011_macros
Create Date: 2026-11-30

``characters.avatar_url`` is added with a plain ``ALTER TABLE`` (no table rebuild, see 0006)
and dropped the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_posts"
down_revision: str | None = "0011_macros"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _big_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _ledger_fk(table: str, column: str = "ledger_id") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["ledger.id"], name=op.f(f"fk_{table}_{column}_ledger"), ondelete="SET NULL"
    )


def _post_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["post_id"], ["posts.id"], name=op.f(f"fk_{table}_post_id_posts"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.add_column("characters", sa.Column("avatar_url", sa.Text(), nullable=True))
    op.create_table(
        "posts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("character_id", sa.Integer(), nullable=True),
        sa.Column("character_name", sa.String(length=64), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("webhook_id", sa.BigInteger(), nullable=True),
        sa.Column("version", sa.SmallInteger(), nullable=False),
        sa.Column("ledger_id", _big_id(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("edited_at", _utc(), nullable=True),
        sa.CheckConstraint("version >= 1", name=op.f("ck_posts_version")),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_posts_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_posts_character_id_characters"),
            ondelete="SET NULL",
        ),
        _ledger_fk("posts"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_posts")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_posts_campaign_id_id", "posts", ["campaign_id", "id"], unique=False)
    op.create_index(
        "ix_posts_channel_id_message_id", "posts", ["channel_id", "message_id"], unique=False
    )
    op.create_table(
        "post_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.SmallInteger(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("ledger_id", _big_id(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.CheckConstraint("length(text) <= 4000", name=op.f("ck_post_versions_text")),
        _post_fk("post_versions"),
        _ledger_fk("post_versions"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_post_versions")),
        sa.UniqueConstraint("post_id", "version", name=op.f("uq_post_versions_post_id_version")),
    )
    op.create_table(
        "post_rolls",
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.SmallInteger(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("ledger_id", _big_id(), nullable=True),
        sa.Column("number", sa.BigInteger(), nullable=False),
        sa.Column("total", sa.Text(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        _post_fk("post_rolls"),
        _ledger_fk("post_rolls"),
        sa.PrimaryKeyConstraint("post_id", "position", name=op.f("pk_post_rolls")),
    )
    op.create_table(
        "post_settings",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("mentions", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_post_settings_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("campaign_id", name=op.f("pk_post_settings")),
    )
    op.create_table(
        "post_channels",
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("webhook_hint_at", _utc(), nullable=True),
        sa.PrimaryKeyConstraint("channel_id", name=op.f("pk_post_channels")),
    )


def downgrade() -> None:
    for table in ("post_channels", "post_settings", "post_rolls", "post_versions"):
        op.drop_table(table)
    op.drop_index("ix_posts_channel_id_message_id", table_name="posts")
    op.drop_index("ix_posts_campaign_id_id", table_name="posts")
    op.drop_table("posts")
    op.execute("ALTER TABLE characters DROP COLUMN avatar_url")
