"""Secret rolls: each campaign's default visibility per rolling command.

Revision ID: 0005_secrecy
Revises: 0004_party
Create Date: 2026-11-30

The ledger already has ``visibility``, ``commitment``, ``salt`` and ``revealed_at`` (0001).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_secrecy"
down_revision: str | None = "0004_party"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("campaigns") as batch:
        batch.add_column(
            sa.Column(
                "secrecy_defaults", sa.JSON(), nullable=False, server_default=sa.text("'{}'")
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("campaigns") as batch:
        batch.drop_column("secrecy_defaults")
