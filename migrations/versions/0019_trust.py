"""Nobody passes for someone else; targets' own armour; the last rule options; once per message.

Revision ID: 0019_trust
Revises: 0018_person
Create Date: 2026-12-01

* ``characters.name_skeleton``: the name's confusables skeleton (bot/services/kit/names.py), unique
  per campaign. Existing characters get theirs here; of two that already read the same, the
  older keeps it and the newer is left NULL (never a clash, never renamed).
* ``characters.ac``, ``armour_quality``, ``armour_magic``: a d20 check character's own Armour
  Class and armour, which another player's attack on it uses.
* ``campaigns.crit_double_dice``: a Critical Hit rolls every damage die twice (a GM option,
  off: the text rolls the damage as normal).
* ``character_proficiencies.halved``: a proficiency whose bonus is halved.
* ``rolled_messages``: the messages whose dice the context menu rolled, by message id; filled
  here from the rows that name their message in full (`` in message <link>`` at the end).

Columns are added with plain ``ALTER TABLE`` (no table rebuild: see 0006).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019_trust"
down_revision: str | None = "0018_person"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _big_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _backfill_skeletons() -> None:
    from bot.services.kit.names import skeleton  # the migration uses the bot's own rule

    connection = op.get_bind()
    rows = connection.execute(
        sa.text("SELECT id, campaign_id, name FROM characters ORDER BY id")
    ).all()
    seen: set[tuple[int, str]] = set()
    for row in rows:
        key = (int(row.campaign_id), skeleton(str(row.name)))
        if key in seen:
            continue
        seen.add(key)
        connection.execute(
            sa.text("UPDATE characters SET name_skeleton = :key WHERE id = :id"),
            {"key": key[1], "id": int(row.id)},
        )


_BOUND = re.compile(r" in message https://discord(?:app)?\.com/channels/[^/\s]+/\d+/(\d+)$")


def _backfill_rolled_messages() -> None:
    connection = op.get_bind()
    rows = connection.execute(
        sa.text(
            "SELECT id, user_id, request, created_at FROM ledger "
            "WHERE request LIKE '% in message https://discord%' ORDER BY id"
        )
    ).all()
    seen: set[int] = set()
    for row in rows:
        found = _BOUND.search(str(row.request))
        if found is None or int(found[1]) in seen:
            continue
        seen.add(int(found[1]))
        connection.execute(
            sa.text(
                "INSERT INTO rolled_messages (message_id, user_id, ledger_id, created_at) "
                "VALUES (:message, :user, :ledger, :at)"
            ),
            {
                "message": int(found[1]),
                "user": int(row.user_id),
                "ledger": int(row.id),
                "at": row.created_at,
            },
        )


def upgrade() -> None:
    op.add_column("characters", sa.Column("name_skeleton", sa.String(64), nullable=True))
    op.add_column("characters", sa.Column("ac", sa.SmallInteger(), nullable=True))
    op.add_column("characters", sa.Column("armour_quality", sa.String(16), nullable=True))
    op.add_column("characters", sa.Column("armour_magic", sa.SmallInteger(), nullable=True))
    _backfill_skeletons()
    op.create_index(
        "uq_characters_campaign_id_name_skeleton",
        "characters",
        ["campaign_id", "name_skeleton"],
        unique=True,
    )
    op.add_column(
        "campaigns",
        sa.Column(
            "crit_double_dice", sa.Boolean(), nullable=False, server_default=sa.text("false")
        ),
    )
    op.add_column(
        "character_proficiencies",
        sa.Column("halved", sa.Boolean(), nullable=False, server_default=sa.text("false")),
    )
    op.create_table(
        "rolled_messages",
        sa.Column("message_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("ledger_id", _big_id(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ledger_id"],
            ["ledger.id"],
            name=op.f("fk_rolled_messages_ledger_id_ledger"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("message_id", name=op.f("pk_rolled_messages")),
    )
    _backfill_rolled_messages()


def downgrade() -> None:
    op.drop_table("rolled_messages")
    op.drop_index("uq_characters_campaign_id_name_skeleton", table_name="characters")
    for table, column in (
        ("character_proficiencies", "halved"),
        ("campaigns", "crit_double_dice"),
        ("characters", "armour_magic"),
        ("characters", "armour_quality"),
        ("characters", "ac"),
        ("characters", "name_skeleton"),
    ):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
