"""Export / import of campaigns: SQLite <-> PostgreSQL round trips; refusals write nothing."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import func, select, update

from bot.db.engine import Database, create_database
from bot.db.models import RuleSystem, Visibility, campaigns, characters, ledger
from bot.services import characters as chars
from bot.services import fortune, pending
from bot.services.campaigns import setup_campaign
from bot.services.context import Caller
from bot.services.errors import AlreadyExists, InvalidValue, NotAllowed
from bot.services.export import (
    FORMAT_VERSION,
    export_campaigns,
    export_for_gm,
    import_campaigns,
)
from bot.services.ledger import Kind, NewRoll, Origin, record_roll
from tests.conftest import truncate_all

GUILD = 1_100_000_000_000_001
CHANNEL = 2_100_000_000_000_001
OTHER_CHANNEL = 2_100_000_000_000_002
GM_ROLE = 3_100_000_000_000_001
ALICE = 4_100_000_000_000_001
BOB = 4_100_000_000_000_002


@pytest.fixture
async def sqlite_db(database_url: str) -> AsyncIterator[Database]:
    database = create_database(database_url)
    try:
        yield database
    finally:
        await database.dispose()


@pytest.fixture
async def pg_db(pg_migrated: str) -> AsyncIterator[Database]:
    database = create_database(pg_migrated)
    await truncate_all(database)
    try:
        yield database
    finally:
        await database.dispose()


async def _count(db: Database, table: Any) -> int:
    async with db.engine.connect() as conn:
        return int(await conn.scalar(select(func.count()).select_from(table)) or 0)


async def fill(db: Database, channel: int = CHANNEL) -> int:
    """A campaign with two characters, every kind of per-character data, and rolls."""
    campaign = await setup_campaign(
        db,
        GUILD,
        channel,
        RuleSystem.D20_CHECK,
        gm_role_ids=[GM_ROLE],
        gm_channel_id=channel + 100,
        crit_rules=True,
        ability_names=["STR", "DEX", "Mana"],
    )
    jade = await chars.create_character(db, campaign.id, ALICE, "Jade", level=3)
    await chars.set_score(db, jade.id, "Mana", 14)
    await chars.set_score(db, jade.id, "DEX", 9)
    await chars.set_proficiency(db, jade.id, "Stealth", degree=2)
    await chars.set_save_proficiency(db, jade.id, "DEX", True)
    async with db.sessionmaker.begin() as session:  # the boon flag, as a GM would set it
        await session.execute(
            update(characters).where(characters.c.id == jade.id).values(double_fortune=True)
        )
    rook = await chars.create_character(db, campaign.id, BOB, "Rook")
    await chars.party_add(db, rook.id)
    origin = Origin(channel_id=channel, user_id=ALICE, guild_id=GUILD, interaction_id=channel + 7)
    public = await record_roll(
        db,
        NewRoll(
            origin=origin,
            kind=Kind.CHECK,
            request="/check ability:DEX",
            dice=[17],
            outcome={"total": 16, "ok": True},
            campaign_id=campaign.id,
            character_id=jade.id,
            character_name="Jade",
        ),
    )
    await record_roll(
        db,
        NewRoll(
            origin=Origin(channel_id=channel, user_id=BOB, guild_id=GUILD),
            kind=Kind.ROLL,
            request="/roll 1d20 (self)",
            dice=[4],
            outcome={"total": 4},
            visibility=Visibility.SELF,
            campaign_id=campaign.id,
            character_id=rook.id,
            character_name="Rook",
            commitment="a" * 64,
            salt="b" * 32,
        ),
    )
    await pending.set_pending(db, jade.id, "DEX", 2, source_roll_id=public.id)
    await fortune.give_fortune(db, jade.id, Origin(channel_id=channel, user_id=ALICE), 3)
    await fortune.spend_fortune(db, jade.id, Origin(channel_id=channel, user_id=ALICE), "hint")
    return campaign.id


def normalized(data: dict[str, Any]) -> list[dict[str, list[dict[str, Any]]]]:
    """The export's content with every database id replaced by the row's position.

    Two exports are "equal in content" when this matches: ids differ between databases.
    """
    out = []
    for item in data["campaigns"]:
        tables = copy.deepcopy(item["tables"])
        positions: dict[str, dict[int, int]] = {}
        for name in ("campaigns", "characters", "ledger"):
            positions[name] = {row["id"]: i for i, row in enumerate(tables.get(name, []))}
            for row in tables.get(name, []):
                row["id"] = positions[name][row["id"]]
        refs = {
            "campaign_id": "campaigns",
            "character_id": "characters",
            "source_roll_id": "ledger",
            "roll_id": "ledger",
            "result_roll_id": "ledger",
        }
        for rows in tables.values():
            for row in rows:
                for column, target in refs.items():
                    if row.get(column) is not None:
                        row[column] = positions[target][row[column]]
        out.append(tables)
    return out


async def _round_trip(source: Database, target: Database) -> None:
    await fill(source)
    exported = await export_campaigns(source, guild_id=GUILD)
    # A campaign already in the target, so the imported ids cannot coincide by chance.
    await setup_campaign(target, GUILD + 1, OTHER_CHANNEL, RuleSystem.THRESHOLD)
    text = json.dumps(exported)  # the file really is JSON
    [imported] = await import_campaigns(target, json.loads(text))
    assert imported.channel_id == CHANNEL
    again = await export_campaigns(target, campaign_id=imported.campaign_id)
    assert normalized(again) == normalized(exported)
    jade = await chars.get_character(target, imported.campaign_id, "jade")
    assert (jade.level, jade.fortune, jade.double_fortune) == (3, 2, True)
    assert dict(jade.scores) == {"Mana": 14, "DEX": 9}
    rows = again["campaigns"][0]["tables"]
    assert {r["kind"] for r in rows["ledger"]} == {"check", "roll", "fortune"}
    assert len(rows["ledger"]) == 4
    assert rows["pending_modifiers"][0]["value"] == 2


async def test_round_trip_sqlite_to_postgresql(sqlite_db: Database, pg_db: Database) -> None:
    await _round_trip(sqlite_db, pg_db)


async def test_round_trip_postgresql_to_sqlite(pg_db: Database, sqlite_db: Database) -> None:
    await _round_trip(pg_db, sqlite_db)


async def test_import_into_the_same_database_after_deletion_keeps_every_roll(
    db: Database,
) -> None:
    campaign_id = await fill(db)
    exported = await export_campaigns(db, campaign_id=campaign_id)
    from bot.services.campaigns import delete_campaign

    await delete_campaign(db, campaign_id)
    [imported] = await import_campaigns(db, exported)
    # The old rolls stay in the ledger (append-only) and the imported copies join them.
    assert await _count(db, ledger) == 8
    assert imported.rows["ledger"] == 4


async def test_a_newer_schema_file_is_refused_and_nothing_is_written(db: Database) -> None:
    await fill(db)
    exported = await export_campaigns(db, guild_id=GUILD)
    exported["version"] = FORMAT_VERSION + 1
    exported["campaigns"][0]["tables"]["campaigns"][0]["channel_id"] = OTHER_CHANNEL
    before = [await _count(db, t) for t in (campaigns, characters, ledger)]
    with pytest.raises(InvalidValue, match="newer pbp-dice") as refused:
        await import_campaigns(db, exported)
    assert "Upgrade the bot" in str(refused.value)
    assert [await _count(db, t) for t in (campaigns, characters, ledger)] == before


async def test_unknown_tables_or_columns_are_refused_as_newer(db: Database) -> None:
    await fill(db)
    exported = await export_campaigns(db, guild_id=GUILD)
    exported["campaigns"][0]["tables"]["characters"][0]["mood"] = "grim"
    with pytest.raises(InvalidValue, match=r"characters\.mood"):
        await import_campaigns(db, exported)


async def test_a_failure_midway_leaves_nothing_half_imported(db: Database) -> None:
    await fill(db)
    exported = await export_campaigns(db, guild_id=GUILD)
    first = copy.deepcopy(exported["campaigns"][0])
    first["tables"]["campaigns"][0]["channel_id"] = OTHER_CHANNEL
    # The second campaign's channel (CHANNEL) already has a campaign: refused after the first
    # was written inside the transaction.
    exported["campaigns"] = [first, exported["campaigns"][0]]
    before = [await _count(db, t) for t in (campaigns, characters, ledger)]
    with pytest.raises(AlreadyExists, match="Nothing was imported"):
        await import_campaigns(db, exported)
    assert [await _count(db, t) for t in (campaigns, characters, ledger)] == before


async def test_moving_to_another_server_clears_its_roles_and_channels(db: Database) -> None:
    await fill(db)
    exported = await export_campaigns(db, guild_id=GUILD)
    new_guild, new_channel = 1_200_000_000_000_001, 2_200_000_000_000_001
    [moved] = await import_campaigns(db, exported, guild_id=new_guild, channel_id=new_channel)
    data = await export_campaigns(db, campaign_id=moved.campaign_id)
    campaign = data["campaigns"][0]["tables"]["campaigns"][0]
    assert (campaign["guild_id"], campaign["channel_id"]) == (new_guild, new_channel)
    assert campaign["gm_role_ids"] == [] and campaign["gm_channel_id"] is None
    rolls = data["campaigns"][0]["tables"]["ledger"]
    assert {r["guild_id"] for r in rolls if r["guild_id"]} == {new_guild}


async def test_gm_export_redacts_rolls_only_their_roller_may_see(db: Database) -> None:
    await fill(db)
    gm = Caller(
        user_id=ALICE + 50, channel_id=CHANNEL, guild_id=GUILD, role_ids=frozenset({GM_ROLE})
    )
    name, data = await export_for_gm(db, gm)
    assert name.endswith(".json")
    rolls = data["campaigns"][0]["tables"]["ledger"]
    private = [r for r in rolls if r["visibility"] == "self"]
    assert private and all(r["dice"] == [] and r["salt"] is None for r in private)
    assert all(r["outcome"] == {"redacted": True} for r in private)
    assert all(r["commitment"] == "a" * 64 for r in private)
    public = [r for r in rolls if r["kind"] == "check"]
    assert public[0]["dice"] == [17]
    player = Caller(user_id=BOB, channel_id=CHANNEL, guild_id=GUILD)
    with pytest.raises(NotAllowed):
        await export_for_gm(db, player)
