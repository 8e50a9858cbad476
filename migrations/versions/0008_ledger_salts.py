"""Salts apart from the ledger, and the one update an erasure may make (docs/privacy.md).

Revision ID: 0008_ledger_salts
Revises: 0007_ledger_chain
Create Date: 2026-11-30

``ledger_salts`` holds each row's salt (``field = '*'``), moved out of ``ledger.who_salt``, so
erasing a person deletes salts without touching the append-only ledger's bound columns; after an
erasure it also keeps the salt of each field kept and the digest of each field erased (see
bot/services/kit/commitments.py, format 3).

The append-only triggers are replaced: as before no DELETE, and no UPDATE but the reveal stamp
(once) and the foreign keys a deletion nulls; and now also the tombstoning of personal data: the
roller id may become 0, the character name and the request the tombstone, and any string inside
the dice or the outcome the tombstone, with every other value, key and number unchanged. Nothing
can be un-erased, and no die, outcome number, commitment, number or link can change.

On SQLite the column is dropped in place (ALTER TABLE DROP COLUMN, 3.35+): no table rebuild, so
the foreign keys pointing at the ledger are untouched (migration 0007's note).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_ledger_salts"
down_revision: str | None = "0007_ledger_chain"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: What an erased text field holds and an erased roller id (bot/services/kit/commitments.py; kept
#: here as literals so this migration never changes with the code).
TOMBSTONE = "[erased]"
TOMBSTONE_ID = 0
#: Columns no UPDATE may change.
FROZEN = (
    "id",
    "guild_id",
    "channel_id",
    "interaction_id",
    "kind",
    "visibility",
    "created_at",
    "commitment",
    "salt",
    "scope_id",
    "number",
    "who",
    "chain",
    "format",
    "legacy_campaign_id",
)
#: JSON columns whose strings (only) an erasure may replace with the tombstone.
TOMBSTONED_JSON = ("dice", "outcome")
APPEND_ONLY = (
    "ledger rows are append-only: only the reveal stamp may be set, once, and personal data erased"
)


def _sqlite_json_tombstoned(column: str) -> str:
    """NEW.column equals OLD.column but for strings turned into the tombstone: the same paths,
    types and non-string values (json_tree walks every node of both)."""
    old, new = f"OLD.{column}", f"NEW.{column}"
    return (
        f"({new} IS {old} OR ("
        f"(SELECT count(*) FROM json_tree({old})) = (SELECT count(*) FROM json_tree({new})) "
        f"AND NOT EXISTS (SELECT 1 FROM json_tree({old}) a "
        f"LEFT JOIN json_tree({new}) b ON b.fullkey = a.fullkey "
        "WHERE b.fullkey IS NULL OR b.type IS NOT a.type OR ("
        "a.type NOT IN ('object', 'array') AND b.atom IS NOT a.atom "
        f"AND NOT (a.type = 'text' AND b.atom = '{TOMBSTONE}')))))"
    )


def _personal(column: str, tombstone: str, same: str) -> str:
    return f"({same} OR NEW.{column} = {tombstone})"


def trigger_statements(dialect: str) -> list[str]:
    """The SQL that refuses DELETE, and any UPDATE but the reveal stamp, nulled foreign keys
    and tombstoned personal data (the tests re-create the triggers with it)."""
    if dialect == "sqlite":
        allowed = " AND ".join(
            [f"NEW.{c} IS OLD.{c}" for c in FROZEN]
            + [_sqlite_json_tombstoned(c) for c in TOMBSTONED_JSON]
            + [
                _personal("user_id", str(TOMBSTONE_ID), "NEW.user_id IS OLD.user_id"),
                _personal(
                    "character_name", f"'{TOMBSTONE}'", "NEW.character_name IS OLD.character_name"
                ),
                _personal("request", f"'{TOMBSTONE}'", "NEW.request IS OLD.request"),
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
    same = " AND ".join(f"NEW.{c} IS NOT DISTINCT FROM OLD.{c}" for c in FROZEN)
    # The text comparison first: an unchanged value (every update but an erasure) costs no walk.
    json_ok = " AND ".join(
        f"(NEW.{c}::text IS NOT DISTINCT FROM OLD.{c}::text "
        f"OR ledger_tombstoned_only(OLD.{c}::jsonb, NEW.{c}::jsonb))"
        for c in TOMBSTONED_JSON
    )
    # Recursive over jsonb: the same shape, keys and non-string values; a string either the
    # same or the tombstone.
    compare = f"""
        CREATE OR REPLACE FUNCTION ledger_tombstoned_only(o jsonb, n jsonb) RETURNS boolean AS $$
        DECLARE
            k text;
            i integer;
        BEGIN
            IF o IS NULL OR n IS NULL THEN
                RETURN o IS NULL AND n IS NULL;
            END IF;
            IF jsonb_typeof(o) <> jsonb_typeof(n) THEN
                RETURN false;
            END IF;
            IF jsonb_typeof(o) = 'object' THEN
                IF (SELECT array_agg(x ORDER BY x) FROM jsonb_object_keys(o) x)
                   IS DISTINCT FROM (SELECT array_agg(x ORDER BY x) FROM jsonb_object_keys(n) x)
                THEN
                    RETURN false;
                END IF;
                FOR k IN SELECT jsonb_object_keys(o) LOOP
                    IF NOT ledger_tombstoned_only(o -> k, n -> k) THEN
                        RETURN false;
                    END IF;
                END LOOP;
                RETURN true;
            END IF;
            IF jsonb_typeof(o) = 'array' THEN
                IF jsonb_array_length(o) <> jsonb_array_length(n) THEN
                    RETURN false;
                END IF;
                FOR i IN 0 .. jsonb_array_length(o) - 1 LOOP
                    IF NOT ledger_tombstoned_only(o -> i, n -> i) THEN
                        RETURN false;
                    END IF;
                END LOOP;
                RETURN true;
            END IF;
            IF jsonb_typeof(o) = 'string' THEN
                RETURN n = o OR n = to_jsonb('{TOMBSTONE}'::text);
            END IF;
            RETURN n = o;
        END;
        $$ LANGUAGE plpgsql IMMUTABLE
        """
    function = f"""
        CREATE OR REPLACE FUNCTION ledger_append_only() RETURNS trigger AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                RAISE EXCEPTION '{APPEND_ONLY}' USING ERRCODE = 'integrity_constraint_violation';
            END IF;
            IF NOT ({same}
                AND {json_ok}
                AND (NEW.user_id IS NOT DISTINCT FROM OLD.user_id OR NEW.user_id = {TOMBSTONE_ID})
                AND (NEW.character_name IS NOT DISTINCT FROM OLD.character_name
                     OR NEW.character_name = '{TOMBSTONE}')
                AND (NEW.request IS NOT DISTINCT FROM OLD.request
                     OR NEW.request = '{TOMBSTONE}')
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
        compare,
        function,
        "CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ledger "
        "FOR EACH ROW EXECUTE FUNCTION ledger_append_only()",
    ]


def drop_statements(dialect: str) -> list[str]:
    """Drop the triggers (the functions stay on PostgreSQL until the downgrade)."""
    if dialect == "sqlite":
        return [
            "DROP TRIGGER IF EXISTS ledger_append_only",
            "DROP TRIGGER IF EXISTS ledger_no_delete",
        ]
    return ["DROP TRIGGER IF EXISTS ledger_append_only ON ledger"]


def _previous():  # type: ignore[no-untyped-def]
    """Migration 0007's module, for its triggers on the way down."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).with_name("0007_ledger_chain.py")
    spec = importlib.util.spec_from_file_location("ledger_chain_0007", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def upgrade() -> None:
    bind = op.get_bind()
    dialect = bind.dialect.name
    big_id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "ledger_salts",
        sa.Column("ledger_id", big_id, nullable=False),
        sa.Column("field", sa.Text(), nullable=False),
        sa.Column("salt", sa.String(64), nullable=True),
        sa.Column("digest", sa.String(64), nullable=True),
        sa.CheckConstraint("(salt IS NULL) <> (digest IS NULL)", name=op.f("ck_ledger_salts_one")),
        sa.ForeignKeyConstraint(
            ["ledger_id"],
            ["ledger.id"],
            name=op.f("fk_ledger_salts_ledger_id_ledger"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("ledger_id", "field", name=op.f("pk_ledger_salts")),
    )
    op.execute(
        "INSERT INTO ledger_salts (ledger_id, field, salt) "
        "SELECT id, '*', who_salt FROM ledger WHERE who_salt IS NOT NULL"
    )
    for statement in _previous().drop_statements(dialect):
        op.execute(statement)
    if dialect != "sqlite":
        op.execute("DROP FUNCTION IF EXISTS ledger_append_only()")
        op.drop_constraint(op.f("ck_ledger_format"), "ledger", type_="check")
        op.create_check_constraint("format", "ledger", "format IN (1, 2, 3)")
    op.execute("ALTER TABLE ledger DROP COLUMN who_salt")
    for statement in trigger_statements(dialect):
        op.execute(statement)


def downgrade() -> None:
    """Back to 0007's schema: each row's salt returns to ``ledger.who_salt``.

    For development: rows recorded since (format 3) and erasures' kept digests cannot be
    represented there, so 0007's code could not check them (the digests of erased fields are
    dropped; the personal data stays erased).
    """
    bind = op.get_bind()
    dialect = bind.dialect.name
    for statement in drop_statements(dialect):
        op.execute(statement)
    op.execute("ALTER TABLE ledger ADD COLUMN who_salt VARCHAR(64)")
    op.execute(
        "UPDATE ledger SET who_salt = (SELECT s.salt FROM ledger_salts s "
        "WHERE s.ledger_id = ledger.id AND s.field = '*')"
    )
    if dialect != "sqlite":
        op.execute("DROP FUNCTION IF EXISTS ledger_append_only()")
        op.execute("DROP FUNCTION IF EXISTS ledger_tombstoned_only(jsonb, jsonb)")
        op.drop_constraint(op.f("ck_ledger_format"), "ledger", type_="check")
        # NOT VALID: rows of format 3 may remain (see above).
        op.execute(
            "ALTER TABLE ledger ADD CONSTRAINT ck_ledger_format CHECK (format IN (1, 2)) NOT VALID"
        )
    op.drop_table("ledger_salts")
    for statement in _previous().trigger_statements(dialect):
        op.execute(statement)
