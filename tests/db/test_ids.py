"""Migration 0006: ids are never reused, and the rebuild keeps every row and rule.

A database at 0005 (the last schema without AUTOINCREMENT) holds rows in every table, with the
newest campaign and rolls deleted and, on SQLite, their ids already handed out again; upgraded,
it keeps all of it, and new ids are greater than any it holds and than any handed out since,
even after the newest rows are deleted again, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import sqlalchemy as sa

from bot.db.engine import create_database
from bot.db.migrate import upgrade_to, upgrade_to_head
from bot.db.models import RuleSystem
from bot.db.schema import metadata
from bot.services.kit.context import Caller
from bot.services.store import ledger
from bot.services.store.campaigns import setup_campaign
from bot.services.store.characters import create_character, set_score
from bot.services.table import requests

ROOT = Path(__file__).resolve().parents[2]
REVISION = "0006_ids_never_reused"
#: The tables whose ids buttons, messages and commands show.
NEVER_REUSED = {
    "campaigns",
    "characters",
    "ledger",
    "roll_requests",
    "roll_request_targets",
    "ability_generations",
}
#: At head: also the tables added after 0006 whose ids are shown (turn orders;
#: posts, rounds of sealed declarations and their declarations: their rolls are "in post 12").
NEVER_REUSED_AT_HEAD = NEVER_REUSED | {"turn_orders", "posts", "rounds", "round_declarations"}
GUILD = 1_000_000_000_000_001
GM_ROLE = 3_000_000_000_000_001
GM = 4_000_000_000_000_009
WHEN = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _migration() -> ModuleType:
    path = ROOT / "migrations" / "versions" / f"{REVISION}.py"
    spec = importlib.util.spec_from_file_location("migration_0006", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: The 0005 tables, frozen in the migration: rows are written as a 0005 bot wrote them.
OLD = {t.name: t for t in _migration()._schema(autoincrement=False)}


class Seen:
    """The largest id each table ever handed out, as the test saw them."""

    def __init__(self) -> None:
        self.largest: dict[str, int] = {}

    def insert(self, connection: sa.Connection, table: str, **values: Any) -> int:
        new_id = connection.execute(
            sa.insert(OLD[table]).values(**values).returning(OLD[table].c.id)
        ).scalar_one()
        self.largest[table] = max(self.largest.get(table, 0), int(new_id))
        return int(new_id)


def _campaign(seen: Seen, connection: sa.Connection, channel: int) -> int:
    return seen.insert(
        connection,
        "campaigns",
        guild_id=GUILD,
        channel_id=channel,
        system="d20-check",
        gm_role_ids=[GM_ROLE],
        gm_user_ids=[],
        fortune_boon_default=False,
        crit_rules=False,
        tier_very_easy=3,
        tier_easy=7,
        tier_moderate=12,
        tier_hard=17,
        tier_very_hard=20,
        ability_names=["STR", "DEX", "CON", "INT", "WIS", "CHA"],
        created_at=WHEN,
        secrecy_defaults={"check": "gm"},
    )


def _character(
    seen: Seen, connection: sa.Connection, campaign: int, name: str, user: int = 1
) -> int:
    character = seen.insert(
        connection,
        "characters",
        campaign_id=campaign,
        user_id=4_000_000_000_000_000 + user,
        name=name,
        name_key=name.casefold(),
        level=3,
        fortune=1,
        double_fortune=False,
        in_party=True,
        is_active=True,
        created_at=WHEN,
    )
    connection.execute(
        sa.insert(OLD["character_scores"]).values(character_id=character, ability="DEX", value=14)
    )
    connection.execute(
        sa.insert(OLD["character_proficiencies"]).values(
            character_id=character, name_key="stealth", name="Stealth", degree=1
        )
    )
    connection.execute(
        sa.insert(OLD["character_saves"]).values(character_id=character, ability="DEX")
    )
    return character


def _roll(seen: Seen, connection: sa.Connection, campaign: int | None, character: int) -> int:
    return seen.insert(
        connection,
        "ledger",
        campaign_id=campaign,
        character_id=character,
        character_name="Ann",
        guild_id=GUILD,
        channel_id=11,
        user_id=4_000_000_000_000_001,
        kind="check",
        request="/check ability:DEX",
        dice=[17],
        outcome={"total": 19},
        visibility="gm",
        created_at=WHEN,
        commitment="a" * 64,
        salt="b" * 64,
    )


def _request(seen: Seen, connection: sa.Connection, campaign: int, character: int) -> int:
    request = seen.insert(
        connection,
        "roll_requests",
        campaign_id=campaign,
        guild_id=GUILD,
        channel_id=11,
        gm_user_id=GM,
        system="d20-check",
        ability="DEX",
        is_save=False,
        dc=12,
        dc_hidden=False,
        request="/gm request roll ability:DEX",
        created_at=WHEN,
    )
    seen.insert(
        connection,
        "roll_request_targets",
        request_id=request,
        position=0,
        character_id=character,
        character_name="Ann",
        user_id=4_000_000_000_000_001,
    )
    return request


def _generation(seen: Seen, connection: sa.Connection, campaign: int, **given: Any) -> int:
    return seen.insert(
        connection,
        "ability_generations",
        campaign_id=campaign,
        gm_user_id=GM,
        player_ids=[4_000_000_000_000_001],
        scores=[12, 11, 10, 9, 8, 7],
        created_at=WHEN,
        **given,
    )


def _a_campaign_with_everything(seen: Seen, connection: sa.Connection, channel: int) -> int:
    campaign = _campaign(seen, connection, channel)
    character = _character(seen, connection, campaign, f"Ann{channel}")
    roll = _roll(seen, connection, campaign, character)
    connection.execute(
        sa.insert(OLD["pending_modifiers"]).values(
            character_id=character, ability="DEX", value=2, source_roll_id=roll, created_at=WHEN
        )
    )
    _request(seen, connection, campaign, character)
    _generation(seen, connection, campaign)
    return campaign


def _seed_at_0005(connection: sa.Connection, seen: Seen) -> None:
    """Two campaigns with rows in every table; then the newest campaign and the newest rolls
    are deleted and a third campaign takes their place (on SQLite, with their very ids)."""
    first = _a_campaign_with_everything(seen, connection, 11)
    newest = _a_campaign_with_everything(seen, connection, 12)
    chosen = _roll(seen, connection, newest, _character(seen, connection, newest, "Bo", 2))
    result = _roll(seen, connection, newest, _character(seen, connection, newest, "Cy", 3))
    connection.execute(
        sa.insert(OLD["fortune_choices"]).values(
            roll_id=chosen, choice="trade", user_id=1, result_roll_id=result, created_at=WHEN
        )
    )
    connection.execute(sa.delete(OLD["campaigns"]).where(OLD["campaigns"].c.id == newest))
    connection.execute(sa.delete(OLD["ledger"]).where(OLD["ledger"].c.id > chosen))
    _a_campaign_with_everything(seen, connection, 13)
    # An id given by hand, past the PostgreSQL sequence: the migration moves the sequence on.
    _generation(seen, connection, first, id=500)


def _table_names() -> list[str]:
    return list(OLD)


def _dump(connection: sa.Connection) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table, in primary-key order, as the driver returns it."""
    inspector = sa.inspect(connection)
    rows: dict[str, list[dict[str, Any]]] = {}
    for name in _table_names():
        key = ", ".join(inspector.get_pk_constraint(name)["constrained_columns"])
        found = connection.exec_driver_sql(f"SELECT * FROM {name} ORDER BY {key}")
        rows[name] = [dict(row._mapping) for row in found]
    return rows


def _rules(connection: sa.Connection) -> dict[str, Any]:
    """Columns, keys, foreign keys (with their actions), checks, uniques and indexes."""
    inspector = sa.inspect(connection)

    def columns(name: str) -> list[tuple[Any, ...]]:
        found = inspector.get_columns(name)
        return [(c["name"], str(c["type"]), c["nullable"], c["default"]) for c in found]

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return sorted((k, plain(v)) for k, v in value.items())
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return str(value) if isinstance(value, sa.ClauseElement) else value

    def sort(items: list[Any]) -> list[str]:
        return sorted(repr(plain(item)) for item in items)

    return {
        name: {
            "columns": columns(name),
            "key": inspector.get_pk_constraint(name)["constrained_columns"],
            "foreign": sort(inspector.get_foreign_keys(name)),
            "checks": sort(inspector.get_check_constraints(name)),
            "uniques": sort(inspector.get_unique_constraints(name)),
            "indexes": sort(inspector.get_indexes(name)),
        }
        for name in _table_names()
    }


def _sqlite_sql(connection: sa.Connection) -> dict[str, str]:
    found = connection.exec_driver_sql(
        "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'"
    )
    return {name: sql for name, sql in found}


def _autoincremented(connection: sa.Connection) -> set[str]:
    sql = _sqlite_sql(connection)
    return {name for name in OLD if "AUTOINCREMENT" in sql[name]}


def _shared(
    rows: dict[str, list[dict[str, Any]]], other: dict[str, list[dict[str, Any]]]
) -> dict[str, list[dict[str, Any]]]:
    """``rows`` restricted to the columns ``other`` has too (later migrations may add some)."""
    shared: dict[str, list[dict[str, Any]]] = {}
    for name, found in rows.items():
        keep = set(other[name][0]) if other[name] else set()
        shared[name] = [{k: v for k, v in row.items() if k in keep} for row in found]
    return shared


def _replace_the_newest(connection: sa.Connection, seen: Seen) -> dict[str, int]:
    """Delete the newest campaign (cascading) and roll, then make new ones: their ids."""
    newest = connection.exec_driver_sql("SELECT max(id) FROM campaigns").scalar_one()
    connection.execute(sa.delete(OLD["campaigns"]).where(OLD["campaigns"].c.id == newest))
    top = connection.exec_driver_sql("SELECT max(id) FROM ledger").scalar_one()
    connection.execute(sa.delete(OLD["ledger"]).where(OLD["ledger"].c.id == top))
    # The foreign keys still act: the campaign's rows went with it.
    gone = connection.exec_driver_sql(
        f"SELECT count(*) FROM characters WHERE campaign_id = {int(newest)}"
    ).scalar_one()
    assert gone == 0
    fresh = Seen()
    campaign = _campaign(fresh, connection, 14)
    character = _character(fresh, connection, campaign, "Di")
    _roll(fresh, connection, campaign, character)
    _request(fresh, connection, campaign, character)
    _generation(fresh, connection, campaign)
    for table, new_id in fresh.largest.items():
        seen.largest[table] = max(seen.largest[table], new_id)
    return fresh.largest


async def test_upgrade_keeps_every_row_and_rule_and_ids_move_past_all_ever_used(
    url_at_0005: str,
) -> None:
    database = create_database(url_at_0005)
    seen = Seen()
    try:
        async with database.engine.begin() as connection:
            await connection.run_sync(_seed_at_0005, seen)
        async with database.engine.connect() as connection:
            rows_before = await connection.run_sync(_dump)
            rules_before = await connection.run_sync(_rules)
        assert all(rows_before.values()), "every table holds rows"

        await upgrade_to(url_at_0005, REVISION)
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_dump) == rows_before
            assert await connection.run_sync(_rules) == rules_before
            if database.dialect == "sqlite":
                assert await connection.run_sync(_autoincremented) == NEVER_REUSED
                broken = await connection.exec_driver_sql("PRAGMA foreign_key_check")
                assert broken.all() == []

        # Deleting the newest rows no longer frees their ids. PostgreSQL's sequences never
        # gave any id twice; on SQLite an id deleted at the top before 0006 left no trace, so
        # the counters start at the largest id the tables hold at the upgrade (including ids
        # already given twice before it).
        if database.dialect == "sqlite":
            seen.largest = {
                name: max(row["id"] for row in rows_before[name]) for name in NEVER_REUSED
            }
        largest_before = dict(seen.largest)
        async with database.engine.begin() as connection:
            fresh = await connection.run_sync(_replace_the_newest, seen)
        for table, new_id in fresh.items():
            assert new_id > largest_before[table], table
        async with database.engine.connect() as connection:
            rows_at_0006 = await connection.run_sync(_dump)

        # Later migrations keep every row and value too (a SQLite rebuild with foreign keys on
        # would cascade), and the bot's own inserts go on upward.
        await upgrade_to_head(url_at_0005)
        await database.dispose()  # PostgreSQL: statements prepared on the old tables are stale
        async with database.engine.connect() as connection:
            rows_at_head = await connection.run_sync(_dump)
            assert _shared(rows_at_head, rows_at_0006) == _shared(rows_at_0006, rows_at_head)
            if database.dialect == "sqlite":
                assert await connection.run_sync(_autoincremented) == NEVER_REUSED
        caller = Caller(user_id=GM, channel_id=15, guild_id=GUILD, role_ids=frozenset({GM_ROLE}))
        campaign = await setup_campaign(
            database, GUILD, 15, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE]
        )
        character = await create_character(database, campaign.id, 4_000_000_000_000_001, "Ed")
        await set_score(database, character.id, "DEX", 10)
        request = await requests.create(
            database, caller, "DEX", "/gm request roll", characters_text="Ed"
        )
        roll = await ledger.record(
            database,
            ledger.NewRoll(
                origin=ledger.Origin(channel_id=15, user_id=GM, guild_id=GUILD),
                kind="roll",
                request="/roll dice:1d20",
                dice=[3],
                outcome={"total": 3},
            ),
        )
        assert campaign.id > seen.largest["campaigns"]
        assert character.id > seen.largest["characters"]
        assert request.id > seen.largest["roll_requests"]
        assert roll.id > seen.largest["ledger"]
    finally:
        await database.dispose()


async def test_models_and_a_fresh_database_at_head_never_reuse_the_shown_ids(
    tmp_path: Path,
) -> None:
    # Alembic's comparison of models and migrations does not look at sqlite_autoincrement, and
    # a batch_alter_table rebuild silently drops it (reflection does not see AUTOINCREMENT).
    made = {t.name for t in metadata.sorted_tables if t.dialect_options["sqlite"]["autoincrement"]}
    assert made == NEVER_REUSED_AT_HEAD
    url = f"sqlite+aiosqlite:///{tmp_path / 'fresh.sqlite3'}"
    await upgrade_to_head(url)
    database = create_database(url)
    try:
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_autoincremented) == NEVER_REUSED
            sql = await connection.run_sync(_sqlite_sql)
            assert "AUTOINCREMENT" in sql["turn_orders"]
            assert "AUTOINCREMENT" in sql["rounds"] and "AUTOINCREMENT" in sql["round_declarations"]
    finally:
        await database.dispose()
