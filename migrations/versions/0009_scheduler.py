"""The game clock: scheduled jobs, notify settings, turn orders, request deadlines.

Revision ID: 0009_scheduler
Revises: 0007_ledger_chain
Create Date: 2026-11-30

``scheduled_jobs`` is the durable scheduler's queue; ``notify_settings`` each
player's ``/me notify``; ``turn_orders`` the ``/turns`` rounds (one open per channel).
Roll requests get a deadline, its default and a reminder time; their targets who answered by
default and when they were reminded. New columns are added in place (no table rebuild), so
SQLite keeps AUTOINCREMENT on ``roll_requests``; the check on ``default_action`` is added on
PostgreSQL only (SQLite cannot add a constraint without a rebuild; the service validates it).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_scheduler"
down_revision: str | None = "0008_ledger_salts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "scheduled_jobs",
        sa.Column("id", _id(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=80), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("due_at", _utc(), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("attempts", sa.SmallInteger(), nullable=False),
        sa.Column("last_error", sa.String(length=120), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("done_at", _utc(), nullable=True),
        sa.CheckConstraint(
            "state IN ('pending', 'done', 'failed', 'cancelled')",
            name=op.f("ck_scheduled_jobs_state"),
        ),
        sa.CheckConstraint("length(kind) >= 1", name=op.f("ck_scheduled_jobs_kind")),
        sa.CheckConstraint("attempts >= 0", name=op.f("ck_scheduled_jobs_attempts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scheduled_jobs")),
    )
    op.create_index("ix_scheduled_jobs_state_due_at", "scheduled_jobs", ["state", "due_at"])
    op.create_index("ix_scheduled_jobs_key", "scheduled_jobs", ["key"])
    op.create_table(
        "notify_settings",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.CheckConstraint(
            "mode IN ('channel', 'dm', 'off')", name=op.f("ck_notify_settings_mode")
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_notify_settings")),
    )
    op.create_table(
        "turn_orders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("order_kind", sa.String(length=12), nullable=False),
        sa.Column("entries", sa.JSON(), nullable=False),
        sa.Column("held", sa.JSON(), nullable=False),
        sa.Column("position", sa.SmallInteger(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("turn_seconds", sa.Integer(), nullable=True),
        sa.Column("turn_started_at", _utc(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("ended_at", _utc(), nullable=True),
        sa.CheckConstraint("position >= 0", name=op.f("ck_turn_orders_position")),
        sa.CheckConstraint("round >= 1", name=op.f("ck_turn_orders_round")),
        sa.CheckConstraint(
            "turn_seconds IS NULL OR turn_seconds >= 60", name=op.f("ck_turn_orders_turn_seconds")
        ),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_turn_orders_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_turn_orders")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "uq_turn_orders_one_open",
        "turn_orders",
        ["channel_id"],
        unique=True,
        sqlite_where=sa.text("ended_at IS NULL"),
        postgresql_where=sa.text("ended_at IS NULL"),
    )
    op.add_column("roll_requests", sa.Column("deadline_at", _utc(), nullable=True))
    op.add_column("roll_requests", sa.Column("default_action", sa.String(length=8), nullable=True))
    op.add_column("roll_requests", sa.Column("remind_at", _utc(), nullable=True))
    op.add_column(
        "roll_request_targets", sa.Column("defaulted", sa.String(length=8), nullable=True)
    )
    op.add_column("roll_request_targets", sa.Column("reminded_at", _utc(), nullable=True))
    if op.get_bind().dialect.name != "sqlite":
        op.create_check_constraint(
            op.f("ck_roll_requests_default_action"),
            "roll_requests",
            "default_action IS NULL OR default_action IN ('roll', 'skip', 'fail')",
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint(op.f("ck_roll_requests_default_action"), "roll_requests", type_="check")
    # In place on SQLite too (ALTER TABLE DROP COLUMN, SQLite 3.35+): no table rebuild.
    for table, column in (
        ("roll_request_targets", "reminded_at"),
        ("roll_request_targets", "defaulted"),
        ("roll_requests", "remind_at"),
        ("roll_requests", "default_action"),
        ("roll_requests", "deadline_at"),
    ):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    op.drop_index("uq_turn_orders_one_open", "turn_orders")
    op.drop_table("turn_orders")
    op.drop_table("notify_settings")
    op.drop_index("ix_scheduled_jobs_key", "scheduled_jobs")
    op.drop_index("ix_scheduled_jobs_state_due_at", "scheduled_jobs")
    op.drop_table("scheduled_jobs")
