"""Ids are never reused: AUTOINCREMENT on SQLite; PostgreSQL's sequences checked.

Revision ID: 0006_ids_never_reused
Revises: 0005_secrecy
Create Date: 2026-11-30

Without AUTOINCREMENT, SQLite gives a new row max(id) + 1: deleting the newest campaign (its
characters, requests and generations go with it) hands the same ids to the next ones, and a
button left on an old message (``pbp:req:<id>``, a confirm, ``pbp:n20:<roll>:...``) acts on the
new object. SQLite cannot add AUTOINCREMENT to a table, so this rebuilds the tables.

Why not ``batch_alter_table(recreate="always")``: batch mode drops the old table, which with
foreign keys on deletes its rows first and fires ON DELETE CASCADE / SET NULL in the tables that
refer to it (every character, every fortune choice). :mod:`bot.db.migrate` now turns foreign
keys off around migrations, but a runner that does not (``PRAGMA foreign_keys`` cannot change
inside a transaction) must not lose data, and reflection would also lose the partial index's
WHERE. So, safe either way, every table that refers to a rebuilt one is rebuilt too:

1. remember the indexes' SQL and drop them (their names are needed again);
2. rename each old table to ``<name>_old`` (SQLite rewrites the references between old tables
   to the new names, so old tables only refer to old tables);
3. create the new tables (the frozen 0005 schema below, plus AUTOINCREMENT) and copy every row,
   parents first, ids included;
4. drop the old tables, children first: no old table refers to one still to be dropped, and no
   new table refers to an old one, so nothing cascades;
5. recreate the indexes, and start each AUTOINCREMENT counter at the table's largest id.

An id deleted at the top before this migration leaves no trace and cannot be skipped; ids are
never reused from here on. The ledger is copied once (one INSERT ... SELECT).

PostgreSQL: serial and identity columns take ids from sequences, which never hand one out
twice; this checks each id column has one, and moves a sequence past the table's largest id
should rows have been inserted with explicit ids.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_ids_never_reused"
down_revision: str | None = "0005_secrecy"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: Tables whose ids a button, a message, a stub or a command shows (or that are such a table's
#: rows, as request targets): they get AUTOINCREMENT on SQLite, a checked sequence elsewhere.
NEVER_REUSED = (
    "campaigns",
    "characters",
    "ledger",
    "roll_requests",
    "roll_request_targets",
    "ability_generations",
)

RANKS = (
    "'Doomed', 'Hopeless', 'Inept', 'Untrained', 'Novice', 'Trained', 'Adept', 'Master', "
    "'Epic', 'Legendary', 'Godlike'"
)


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _big_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _schema(autoincrement: bool) -> list[sa.Table]:
    """The tables as of 0005 (indexes aside), parents first; frozen, never the models.

    ``autoincrement``: the tables of :data:`NEVER_REUSED` get ``AUTOINCREMENT`` (upgrade), or
    not (downgrade).
    """
    meta = sa.MetaData()

    def table(name: str, *items: sa.schema.SchemaItem) -> sa.Table:
        auto = autoincrement and name in NEVER_REUSED
        return sa.Table(name, meta, *items, sqlite_autoincrement=auto)

    def fk(column: str, target: str, table_name: str, ondelete: str) -> sa.ForeignKeyConstraint:
        referred = target.split(".")[0]
        return sa.ForeignKeyConstraint(
            [column], [target], name=f"fk_{table_name}_{column}_{referred}", ondelete=ondelete
        )

    campaigns = table(
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
        sa.Column("secrecy_defaults", sa.JSON(), nullable=False, server_default=sa.text("'{}'")),
        sa.CheckConstraint(
            "system IN ('pen-and-dagger', 'roll-under', 'threshold', 'd20-check')",
            name="ck_campaigns_system",
        ),
        sa.CheckConstraint(
            "tier_very_easy >= 1 AND tier_very_easy <= tier_easy AND tier_easy <= tier_moderate"
            " AND tier_moderate <= tier_hard AND tier_hard <= tier_very_hard"
            " AND tier_very_hard <= 40",
            name="ck_campaigns_tiers",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_campaigns"),
        sa.UniqueConstraint("channel_id", name="uq_campaigns_channel_id"),
    )
    characters = table(
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
            name="ck_characters_fortune",
        ),
        sa.CheckConstraint("length(name) >= 1 AND length(name) <= 64", name="ck_characters_name"),
        sa.CheckConstraint("level >= 1 AND level <= 20", name="ck_characters_level"),
        fk("campaign_id", "campaigns.id", "characters", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_characters"),
        sa.UniqueConstraint("campaign_id", "name_key", name="uq_characters_campaign_id_name_key"),
    )
    proficiencies = table(
        "character_proficiencies",
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("name_key", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("rank", sa.String(length=12), nullable=True),
        sa.Column("degree", sa.SmallInteger(), nullable=True),
        sa.CheckConstraint(f"rank IN ({RANKS})", name="ck_character_proficiencies_rank"),
        sa.CheckConstraint(
            "(rank IS NULL) <> (degree IS NULL)", name="ck_character_proficiencies_rank_or_degree"
        ),
        sa.CheckConstraint("degree IN (1, 2)", name="ck_character_proficiencies_degree"),
        sa.CheckConstraint("length(name) >= 1", name="ck_character_proficiencies_name"),
        fk("character_id", "characters.id", "character_proficiencies", "CASCADE"),
        sa.PrimaryKeyConstraint("character_id", "name_key", name="pk_character_proficiencies"),
    )
    saves = table(
        "character_saves",
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("ability", sa.String(length=32), nullable=False),
        fk("character_id", "characters.id", "character_saves", "CASCADE"),
        sa.PrimaryKeyConstraint("character_id", "ability", name="pk_character_saves"),
    )
    scores = table(
        "character_scores",
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("ability", sa.String(length=32), nullable=False),
        sa.Column("value", sa.SmallInteger(), nullable=False),
        sa.CheckConstraint("value >= -100 AND value <= 100", name="ck_character_scores_value"),
        fk("character_id", "characters.id", "character_scores", "CASCADE"),
        sa.PrimaryKeyConstraint("character_id", "ability", name="pk_character_scores"),
    )
    ledger = table(
        "ledger",
        sa.Column("id", _big_id(), nullable=False),
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
            "visibility IN ('public', 'gm', 'blind', 'self')", name="ck_ledger_visibility"
        ),
        sa.CheckConstraint(
            "commitment IS NULL OR length(commitment) = 64", name="ck_ledger_commitment"
        ),
        sa.CheckConstraint("length(kind) >= 1", name="ck_ledger_kind"),
        sa.CheckConstraint("length(request) <= 4000", name="ck_ledger_request"),
        fk("campaign_id", "campaigns.id", "ledger", "SET NULL"),
        fk("character_id", "characters.id", "ledger", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_ledger"),
        sa.UniqueConstraint("interaction_id", name="uq_ledger_interaction_id"),
    )
    pending = table(
        "pending_modifiers",
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("ability", sa.String(length=32), nullable=False),
        sa.Column("value", sa.SmallInteger(), nullable=False),
        sa.Column("source_roll_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.CheckConstraint(
            "value >= -20 AND value <= 20 AND value <> 0", name="ck_pending_modifiers_value"
        ),
        fk("character_id", "characters.id", "pending_modifiers", "CASCADE"),
        fk("source_roll_id", "ledger.id", "pending_modifiers", "SET NULL"),
        sa.PrimaryKeyConstraint("character_id", "ability", name="pk_pending_modifiers"),
    )
    fortune = table(
        "fortune_choices",
        sa.Column("roll_id", _big_id(), autoincrement=False, nullable=False),
        sa.Column("choice", sa.String(length=8), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("result_roll_id", _big_id(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.CheckConstraint(
            "choice IN ('keep', 'trade', 'reroll')", name="ck_fortune_choices_choice"
        ),
        fk("roll_id", "ledger.id", "fortune_choices", "CASCADE"),
        fk("result_roll_id", "ledger.id", "fortune_choices", "SET NULL"),
        sa.PrimaryKeyConstraint("roll_id", name="pk_fortune_choices"),
    )
    requests = table(
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
            name="ck_roll_requests_shared_roll",
        ),
        sa.CheckConstraint("dc IS NULL OR (dc >= 1 AND dc <= 100)", name="ck_roll_requests_dc"),
        sa.CheckConstraint(
            "NOT dc_hidden OR dc IS NOT NULL", name="ck_roll_requests_hidden_needs_dc"
        ),
        fk("campaign_id", "campaigns.id", "roll_requests", "CASCADE"),
        fk("group_roll_id", "ledger.id", "roll_requests", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_roll_requests"),
    )
    targets = table(
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
        fk("request_id", "roll_requests.id", "roll_request_targets", "CASCADE"),
        fk("character_id", "characters.id", "roll_request_targets", "SET NULL"),
        fk("roll_id", "ledger.id", "roll_request_targets", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_roll_request_targets"),
        sa.UniqueConstraint(
            "request_id", "character_id", name="uq_roll_request_targets_request_id_character_id"
        ),
    )
    generations = table(
        "ability_generations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("gm_user_id", sa.BigInteger(), nullable=False),
        sa.Column("player_ids", sa.JSON(), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("roll_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        fk("campaign_id", "campaigns.id", "ability_generations", "CASCADE"),
        fk("roll_id", "ledger.id", "ability_generations", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_ability_generations"),
    )
    return [
        campaigns,
        characters,
        proficiencies,
        saves,
        scores,
        ledger,
        pending,
        fortune,
        requests,
        targets,
        generations,
    ]


def _quote(connection: sa.Connection, name: str) -> str:
    return connection.dialect.identifier_preparer.quote(name)


def _rebuild_sqlite(connection: sa.Connection, autoincrement: bool) -> None:
    """Rebuild every table of :func:`_schema` in place, rows, ids and indexes kept."""
    tables = _schema(autoincrement)
    names = [t.name for t in tables]
    marks = ", ".join(f":n{i}" for i in range(len(names)))
    params = {f"n{i}": name for i, name in enumerate(names)}
    indexes = connection.execute(
        sa.text(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            f" AND tbl_name IN ({marks}) ORDER BY name"
        ),
        params,
    ).all()
    for name, _sql in indexes:
        connection.exec_driver_sql(f"DROP INDEX {_quote(connection, name)}")
    for name in names:
        connection.exec_driver_sql(
            f"ALTER TABLE {_quote(connection, name)} RENAME TO {_quote(connection, name + '_old')}"
        )
    for table in tables:
        table.create(connection)
        columns = ", ".join(_quote(connection, c.name) for c in table.columns)
        connection.exec_driver_sql(
            f"INSERT INTO {_quote(connection, table.name)} ({columns})"
            f" SELECT {columns} FROM {_quote(connection, table.name + '_old')}"
        )
    for table in reversed(tables):
        connection.exec_driver_sql(f"DROP TABLE {_quote(connection, table.name + '_old')}")
    for _name, sql in indexes:
        connection.exec_driver_sql(sql)
    if autoincrement:
        _seed_sqlite_sequence(connection)
    problems = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if problems:
        raise RuntimeError(f"foreign keys broken by the rebuild: {problems[:5]}")


def _seed_sqlite_sequence(connection: sa.Connection) -> None:
    """Start each AUTOINCREMENT counter at its table's largest id (copying did, made explicit)."""
    for name in NEVER_REUSED:
        table = _quote(connection, name)
        largest = connection.exec_driver_sql(f"SELECT max(id) FROM {table}").scalar()
        if largest is None:
            continue
        params = {"name": name, "largest": int(largest)}
        updated = connection.execute(
            sa.text("UPDATE sqlite_sequence SET seq = max(seq, :largest) WHERE name = :name"),
            params,
        )
        if updated.rowcount == 0:
            connection.execute(
                sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES (:name, :largest)"),
                params,
            )


def _check_postgresql_sequences(connection: sa.Connection) -> None:
    """Each id column draws from a sequence, and that sequence is past the table's largest id."""
    for name in NEVER_REUSED:
        sequence = connection.execute(
            sa.text("SELECT pg_get_serial_sequence(:table, 'id')"), {"table": name}
        ).scalar()
        if sequence is None:
            raise RuntimeError(f"{name}.id has no sequence: its ids could be handed out twice")
        last, called = connection.exec_driver_sql(
            f"SELECT last_value, is_called FROM {sequence}"
        ).one()
        next_id = last + 1 if called else last
        largest = connection.exec_driver_sql(
            f"SELECT max(id) FROM {_quote(connection, name)}"
        ).scalar()
        if largest is not None and largest >= next_id:
            connection.execute(
                sa.text("SELECT setval(CAST(:seq AS regclass), :largest)"),
                {"seq": sequence, "largest": int(largest)},
            )


def _live_connection() -> sa.Connection:
    if op.get_context().as_sql:
        raise RuntimeError("0006 reads the live schema and rows: run it against the database")
    return op.get_bind()


def upgrade() -> None:
    connection = _live_connection()
    if connection.dialect.name == "sqlite":
        _rebuild_sqlite(connection, autoincrement=True)
    elif connection.dialect.name == "postgresql":
        _check_postgresql_sequences(connection)


def downgrade() -> None:
    connection = _live_connection()
    if connection.dialect.name == "sqlite":
        _rebuild_sqlite(connection, autoincrement=False)
