"""A ledger whose promises survive every move: public numbers, the hash chain, stubs, triggers.

Revision ID: 0007_ledger_chain
Revises: 0006_ids_never_reused
Create Date: 2026-11-30

Every row gets what names it forever (``scope_id``, ``number``), the salted digest of
its personal fields (``who``, ``who_salt``) and its link in its campaign's hash chain
(``chain``); ``ledger_chains`` keeps each chain's head and last number, ``ledger_stubs`` where
each hidden roll's stub was posted. Existing rows keep the number they were shown under (their
id) and are marked format 1, with the campaign id their commitment bound, so they still verify
after a deletion or an import. Then triggers make the ledger append-only in the database itself:
no DELETE, and no UPDATE but the reveal stamp (once) and the foreign keys a deletion nulls.

A later migration that rebuilds the ``ledger`` table on SQLite (batch mode) drops these
triggers with the old table: it must create them again (:func:`create_triggers`).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

from bot.services.kit import commitments as cm

revision: str = "0007_ledger_chain"
down_revision: str | None = "0006_ids_never_reused"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: Columns no UPDATE may change (all but revealed_at, campaign_id and character_id).
FROZEN = (
    "id",
    "character_name",
    "guild_id",
    "channel_id",
    "user_id",
    "interaction_id",
    "kind",
    "request",
    "dice",
    "outcome",
    "visibility",
    "created_at",
    "commitment",
    "salt",
    "scope_id",
    "number",
    "who",
    "who_salt",
    "chain",
    "format",
    "legacy_campaign_id",
)
APPEND_ONLY = "ledger rows are append-only: only the reveal stamp may be set, once"


def _sqlite_same(column: str) -> str:
    # JSON columns are stored as text on SQLite, so IS compares them exactly.
    return f"NEW.{column} IS OLD.{column}"


def trigger_statements(dialect: str) -> list[str]:
    """The SQL that refuses DELETE, and any UPDATE but the reveal stamp and nulled foreign
    keys (the tests re-create the triggers with it after dropping them on purpose)."""
    if dialect == "sqlite":
        allowed = " AND ".join(
            [_sqlite_same(c) for c in FROZEN]
            + [
                "(NEW.revealed_at IS OLD.revealed_at OR OLD.revealed_at IS NULL)",
                "(NEW.campaign_id IS OLD.campaign_id OR NEW.campaign_id IS NULL)",
                "(NEW.character_id IS OLD.character_id OR NEW.character_id IS NULL)",
            ]
        )
        return [
            "CREATE TRIGGER ledger_append_only BEFORE UPDATE ON ledger "
            f"WHEN NOT ({allowed}) BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END",
            "CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger "
            f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END",
        ]
    # JSON has no equality operator on PostgreSQL: compare the text forms.
    same = " AND ".join(
        f"NEW.{c}::text IS NOT DISTINCT FROM OLD.{c}::text"
        if c in ("dice", "outcome")
        else f"NEW.{c} IS NOT DISTINCT FROM OLD.{c}"
        for c in FROZEN
    )
    function = f"""
        CREATE OR REPLACE FUNCTION ledger_append_only() RETURNS trigger AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                RAISE EXCEPTION '{APPEND_ONLY}' USING ERRCODE = 'integrity_constraint_violation';
            END IF;
            IF NOT ({same}
                AND (NEW.revealed_at IS NOT DISTINCT FROM OLD.revealed_at
                     OR OLD.revealed_at IS NULL)
                AND (NEW.campaign_id IS NOT DISTINCT FROM OLD.campaign_id
                     OR NEW.campaign_id IS NULL)
                AND (NEW.character_id IS NOT DISTINCT FROM OLD.character_id
                     OR NEW.character_id IS NULL)) THEN
                RAISE EXCEPTION '{APPEND_ONLY}' USING ERRCODE = 'integrity_constraint_violation';
            END IF;
            RETURN NEW;
        END;
        $$ LANGUAGE plpgsql
        """
    return [
        function,
        "CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ledger "
        "FOR EACH ROW EXECUTE FUNCTION ledger_append_only()",
    ]


def drop_statements(dialect: str) -> list[str]:
    """Drop the triggers (the function stays on PostgreSQL until the downgrade)."""
    if dialect == "sqlite":
        return [
            "DROP TRIGGER IF EXISTS ledger_append_only",
            "DROP TRIGGER IF EXISTS ledger_no_delete",
        ]
    return ["DROP TRIGGER IF EXISTS ledger_append_only ON ledger"]


def create_triggers(dialect: str) -> None:
    for statement in trigger_statements(dialect):
        op.execute(statement)


def drop_triggers(dialect: str) -> None:
    for statement in drop_statements(dialect):
        op.execute(statement)
    if dialect != "sqlite":
        op.execute("DROP FUNCTION IF EXISTS ledger_append_only()")


def _aware(value: Any) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _json(value: Any) -> Any:
    import json

    return json.loads(value) if isinstance(value, str) else value


#: How many campaign ids past the largest kept one are tried for a roll whose campaign was
#: deleted before this migration (its commitment bound that id; see _committed_campaign).
_DELETED_CAMPAIGNS_SEARCHED = 2000


def _committed_campaign(row: Any, highest: int) -> int | None:
    """The campaign id a format 1 commitment bound, for a roll whose campaign is gone.

    The deletion nulled it, but the commitment and its salt are kept: trying each id that can
    have existed finds the one it was committed with, so the roll still verifies.
    """
    for candidate in [None, *range(1, highest + 1)]:
        encoding = cm.legacy_encoding(
            roll_id=row["id"],
            campaign_id=candidate,
            user_id=row["user_id"],
            request=row["request"],
            dice=_json(row["dice"]),
            outcome=_json(row["outcome"]),
            salt=row["salt"],
        )
        if cm.sha256_hex(encoding) == row["commitment"]:
            return candidate
    return None


def _backfill(bind: sa.Connection) -> None:
    """Number, seal and chain every existing row, oldest first."""
    ledger = sa.table(
        "ledger",
        *(
            sa.column(name)
            for name in (
                "id",
                "campaign_id",
                "character_name",
                "guild_id",
                "channel_id",
                "user_id",
                "kind",
                "request",
                "dice",
                "outcome",
                "visibility",
                "created_at",
                "commitment",
                "salt",
            )
        ),
    )
    scopes = dict(bind.execute(sa.text("SELECT id, channel_id FROM campaigns")).all())
    # Campaign ids ever handed out lie below the largest one kept, plus those deleted since.
    highest = max([0, *scopes]) + _DELETED_CAMPAIGNS_SEARCHED
    heads: dict[str, tuple[int, int, str]] = {}
    updates: list[dict[str, Any]] = []
    for row in bind.execute(sa.select(ledger).order_by(ledger.c.id)).mappings():
        campaign_id = row["campaign_id"]
        scope = scopes.get(campaign_id, row["channel_id"])
        key = f"campaign:{campaign_id}" if campaign_id is not None else f"channel:{scope}"
        _, _, previous = heads.get(key, (scope, 0, cm.GENESIS))
        who_salt = secrets.token_hex(cm.SALT_BYTES)
        who = cm.who_digest(row["user_id"], row["character_name"], row["request"], who_salt)
        identity = cm.Identity(
            row["id"], scope, row["guild_id"], row["channel_id"], _aware(row["created_at"])
        )
        hidden = row["visibility"] != "public"
        entry = cm.entry_encoding(
            identity,
            kind=row["kind"],
            visibility=row["visibility"],
            who=who,
            commitment=row["commitment"] if hidden else None,
            dice=_json(row["dice"]),
            outcome=_json(row["outcome"]),
        )
        link = cm.link(previous, entry)
        heads[key] = (scope, row["id"], link)
        if campaign_id is None and hidden and row["commitment"] and row["salt"]:
            campaign_id = _committed_campaign(row, highest)
        updates.append(
            {
                "row_id": row["id"],
                "scope_id": scope,
                "number": row["id"],
                "who": who,
                "who_salt": who_salt,
                "chain": link,
                "legacy_campaign_id": campaign_id,
            }
        )
    if updates:
        bind.execute(
            sa.text(
                "UPDATE ledger SET scope_id = :scope_id, number = :number, who = :who, "
                "who_salt = :who_salt, chain = :chain, format = 1, "
                "legacy_campaign_id = :legacy_campaign_id WHERE id = :row_id"
            ),
            updates,
        )
    chains = sa.table(
        "ledger_chains",
        sa.column("key"),
        sa.column("scope_id"),
        sa.column("last_number"),
        sa.column("head"),
    )
    if heads:
        bind.execute(
            sa.insert(chains),
            [
                {"key": key, "scope_id": scope, "last_number": last, "head": head}
                for key, (scope, last, head) in heads.items()
            ],
        )


#: The columns added to the ledger: name, type, and whether the row must have it.
_LEDGER_COLUMNS = (
    ("scope_id", "BIGINT", True),
    ("number", "BIGINT", True),
    ("who", "VARCHAR(64)", True),
    ("who_salt", "VARCHAR(64)", False),
    ("chain", "VARCHAR(64)", True),
    ("format", "SMALLINT", True),
    ("legacy_campaign_id", "BIGINT", False),
)


def _add_columns(dialect: str) -> None:
    """Add the new columns in place.

    Not with batch mode on SQLite: it rebuilds a table by dropping the old one, and with
    foreign keys on (the bot migrates inside one transaction, where the pragma cannot change)
    that drop first deletes every row, firing ON DELETE SET NULL / CASCADE in the tables that
    refer to it: every ledger row would lose its campaign. SQLite adds a NOT NULL column in
    place when it has a default; the backfill then sets every row's real value. (Its CHECK
    constraints on ``number`` and ``format`` are PostgreSQL's only: SQLite cannot add one in
    place, and the code never writes anything else.)
    """
    if dialect == "sqlite":
        op.execute("ALTER TABLE campaigns ADD COLUMN ledger_scope BIGINT NOT NULL DEFAULT 0")
        for name, kind, required in _LEDGER_COLUMNS:
            default = " NOT NULL DEFAULT " + ("2" if name == "format" else "0") if required else ""
            op.execute(f"ALTER TABLE ledger ADD COLUMN {name} {kind}{default}")
        return
    op.add_column("campaigns", sa.Column("ledger_scope", sa.BigInteger(), nullable=True))
    for name, kind, _ in _LEDGER_COLUMNS:
        column_type = {
            "BIGINT": sa.BigInteger(),
            "VARCHAR(64)": sa.String(64),
            "SMALLINT": sa.SmallInteger(),
        }[kind]
        server_default = "2" if name == "format" else None
        op.add_column(
            "ledger", sa.Column(name, column_type, nullable=True, server_default=server_default)
        )


def _require_columns(dialect: str) -> None:
    """PostgreSQL: NOT NULL and CHECK once every row has its values (SQLite has them)."""
    if dialect == "sqlite":
        return
    op.alter_column("campaigns", "ledger_scope", nullable=False)
    for name, _, required in _LEDGER_COLUMNS:
        if required:
            op.alter_column("ledger", name, nullable=False)
    op.alter_column("ledger", "format", server_default=None)
    op.create_check_constraint("number", "ledger", "number >= 1")
    op.create_check_constraint("format", "ledger", "format IN (1, 2)")


def upgrade() -> None:
    bind = op.get_bind()
    dialect = bind.dialect.name
    big_id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "ledger_chains",
        sa.Column("key", sa.String(40), nullable=False),
        sa.Column("scope_id", sa.BigInteger(), nullable=False),
        sa.Column("last_number", sa.BigInteger(), nullable=False),
        sa.Column("head", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_ledger_chains")),
    )
    op.create_table(
        "ledger_stubs",
        sa.Column("ledger_id", big_id, nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ledger_id"],
            ["ledger.id"],
            name=op.f("fk_ledger_stubs_ledger_id_ledger"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("ledger_id", name=op.f("pk_ledger_stubs")),
    )
    _add_columns(dialect)
    op.execute("UPDATE campaigns SET ledger_scope = channel_id")
    _backfill(bind)
    _require_columns(dialect)
    op.create_index("ix_ledger_campaign_id_number", "ledger", ["campaign_id", "number"])
    op.create_index("ix_ledger_scope_id_number", "ledger", ["scope_id", "number"])
    create_triggers(dialect)


def downgrade() -> None:
    bind = op.get_bind()
    dialect = bind.dialect.name
    drop_triggers(dialect)
    op.drop_index("ix_ledger_scope_id_number", "ledger")
    op.drop_index("ix_ledger_campaign_id_number", "ledger")
    if dialect != "sqlite":
        op.drop_constraint(op.f("ck_ledger_format"), "ledger", type_="check")
        op.drop_constraint(op.f("ck_ledger_number"), "ledger", type_="check")
    # In place on SQLite too (ALTER TABLE DROP COLUMN, SQLite 3.35+): no table rebuild.
    for name, _, _ in reversed(_LEDGER_COLUMNS):
        op.execute(f"ALTER TABLE ledger DROP COLUMN {name}")
    op.execute("ALTER TABLE campaigns DROP COLUMN ledger_scope")
    op.drop_table("ledger_stubs")
    op.drop_table("ledger_chains")
