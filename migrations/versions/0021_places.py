"""Where play by post happens: what the bot could not post, and the party's auto-join.

Revision ID: 0021_places
Revises: 0020_dialects
Create Date: 2026-12-02

``undelivered_notices`` keeps each message the bot meant to post on its own and could not
(where, why, whether the GM was told); ``scheduled_jobs.delivery`` says whether a job's notice
got through; ``posts.continued_ids`` the messages that continue a post longer than one
message. ``campaigns.party_auto_join``: new characters join the party (on for campaigns
set up from now on, off for existing ones, whose GMs built their party by hand).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021_places"
down_revision: str | None = "0020_dialects"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _big_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "undelivered_notices",
        sa.Column("id", _big_id(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("job_id", sa.BigInteger(), nullable=True),
        sa.Column("what", sa.String(length=200), nullable=False),
        sa.Column("problem", sa.String(length=64), nullable=False),
        sa.Column("gm_only", sa.Boolean(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("gm_told_at", _utc(), nullable=True),
        sa.Column("resolved_at", _utc(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_undelivered_notices_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_undelivered_notices")),
    )
    op.create_index(
        "ix_undelivered_notices_campaign_id_id", "undelivered_notices", ["campaign_id", "id"]
    )
    op.create_index(
        "ix_undelivered_notices_place",
        "undelivered_notices",
        ["campaign_id", "channel_id", "problem"],
    )
    op.add_column("scheduled_jobs", sa.Column("delivery", sa.String(length=12), nullable=True))
    op.add_column("posts", sa.Column("continued_ids", sa.JSON(), nullable=True))
    op.add_column(
        "campaigns",
        sa.Column("party_auto_join", sa.Boolean(), server_default=sa.text("false"), nullable=False),
    )


def downgrade() -> None:
    with op.batch_alter_table("campaigns") as batch:
        batch.drop_column("party_auto_join")
    with op.batch_alter_table("posts") as batch:
        batch.drop_column("continued_ids")
    with op.batch_alter_table("scheduled_jobs") as batch:
        batch.drop_column("delivery")
    op.drop_index("ix_undelivered_notices_place", table_name="undelivered_notices")
    op.drop_index("ix_undelivered_notices_campaign_id_id", table_name="undelivered_notices")
    op.drop_table("undelivered_notices")
