"""Export / import of campaigns: SQLite <-> PostgreSQL round trips; refusals write nothing."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from sqlalchemy import func, select, update

from bot.db.engine import Database
from bot.db.models import RuleSystem, Visibility, campaigns, characters, ledger
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.kit.errors import AlreadyExists, InvalidValue, NotAllowed
from bot.services.store import campaigns as campaigns_svc
from bot.services.store import characters as chars
from bot.services.store import fortune, pending
from bot.services.store.campaigns import setup_campaign
from bot.services.store.ledger import NewRoll, Origin, record, stamp_revealed
from bot.services.trust import gamelog, secrecy
from bot.services.trust.export import (
    FORMAT_VERSION,
    export_campaigns,
    export_for_gm,
    import_campaigns,
    load,
)
from bot.words import LedgerKind

GUILD = 1_100_000_000_000_001
CHANNEL = 2_100_000_000_000_001
OTHER_CHANNEL = 2_100_000_000_000_002
GM_ROLE = 3_100_000_000_000_001
ALICE = 4_100_000_000_000_001
BOB = 4_100_000_000_000_002
#: Discord's upload limit for a server without boosts (what /campaign export passes).
LIMIT = 25 * 2**20


async def ledger_rows_by_number(db: Database) -> dict[int, dict[str, Any]]:
    async with db.engine.connect() as conn:
        rows = (await conn.execute(select(ledger))).mappings().all()
    return {int(row["number"]): dict(row) for row in rows}


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
    public = await record(
        db,
        NewRoll(
            origin=origin,
            kind=LedgerKind.CHECK,
            request="/check ability:DEX",
            dice=[17],
            outcome={"total": 16, "ok": True},
            campaign_id=campaign.id,
            character_id=jade.id,
            character_name="Jade",
        ),
    )
    await record(
        db,
        NewRoll(
            origin=Origin(channel_id=channel, user_id=BOB, guild_id=GUILD),
            kind=LedgerKind.ROLL,
            request="/roll 1d20 (self)",
            dice=[4],
            outcome={"total": 4},
            visibility=Visibility.SELF,
            campaign_id=campaign.id,
            character_id=rook.id,
            character_name="Rook",
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
    from bot.services.store.campaigns import delete_campaign

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
    # The rolls keep where they were rolled: their commitments and chain bind it.
    assert {r["guild_id"] for r in rolls if r["guild_id"]} == {GUILD}


async def test_gm_export_redacts_rolls_only_their_roller_may_see(db: Database) -> None:
    await fill(db)
    gm = Caller(
        user_id=ALICE + 50, channel_id=CHANNEL, guild_id=GUILD, role_ids=frozenset({GM_ROLE})
    )
    exported = await export_for_gm(db, gm, LIMIT)
    assert exported.filename.endswith(".json.gz")
    data = load(exported.content)
    rolls = data["campaigns"][0]["tables"]["ledger"]
    private = [r for r in rolls if r["visibility"] == "self"]
    assert private and all(r["dice"] == [] and r["salt"] is None for r in private)
    assert all(r["outcome"] == {"redacted": True} for r in private)
    assert all(r["request"] == "" for r in private)  # the GM's log does not show it either
    stored = await ledger_rows_by_number(db)
    assert all(r["commitment"] == stored[r["number"]]["commitment"] for r in private)
    assert all(len(r["commitment"]) == 64 for r in private)
    public = [r for r in rolls if r["kind"] == "check"]
    assert public[0]["dice"] == [17]
    player = Caller(user_id=BOB, channel_id=CHANNEL, guild_id=GUILD)
    with pytest.raises(NotAllowed):
        await export_for_gm(db, player, LIMIT)


# --- numbers, commitments and the chain survive every move ------------------------------------


async def _hidden_revealed(db: Database, campaign_id: int) -> int:
    """A revealed blind roll in the campaign; its public number."""
    recorded = await record(
        db,
        NewRoll(
            origin=Origin(channel_id=CHANNEL, user_id=ALICE, guild_id=GUILD),
            kind=LedgerKind.CHECK,
            request="/gm check secret:blind",
            dice=[20],
            outcome={"total": 25},
            visibility=Visibility.BLIND,
            campaign_id=campaign_id,
            character_name="Jade",
        ),
    )
    await stamp_revealed(db, recorded.id)
    return recorded.number


GM_CALLER = Caller(user_id=5, channel_id=CHANNEL, guild_id=GUILD, role_ids=frozenset({GM_ROLE}))


async def _moves(source: Database, target: Database) -> None:
    campaign_id = await fill(source)
    number = await _hidden_revealed(source, campaign_id)
    before = await secrecy.verify(source, GM_CALLER, number)
    assert before.matches
    exported = json.loads(json.dumps(await export_campaigns(source, guild_id=GUILD)))
    # Into another database next to a campaign there, then on to another server and channel.
    await setup_campaign(target, GUILD + 1, OTHER_CHANNEL, RuleSystem.THRESHOLD)
    [moved] = await import_campaigns(target, exported, guild_id=GUILD + 5, channel_id=CHANNEL + 50)
    there = Caller(user_id=5, channel_id=CHANNEL + 50, guild_id=GUILD + 5, manage_guild=True)
    after = await secrecy.verify(target, there, number)
    assert after.matches and after.access.row.number == number
    assert after.recomputed == before.recomputed  # the same bytes, the same roll
    campaign = await campaigns_svc.get_campaign(target, moved.campaign_id)
    checked = await gamelog.check_campaign_log(target, campaign)
    assert checked.intact and checked.rolls == 5
    # The next roll there continues the numbers and the chain.
    recorded = await record(
        target,
        NewRoll(
            origin=Origin(channel_id=CHANNEL + 50, user_id=BOB, guild_id=GUILD + 5),
            kind=LedgerKind.ROLL,
            request="1d20",
            dice=[3],
            outcome={"total": 3},
            campaign_id=moved.campaign_id,
        ),
    )
    assert recorded.number == number + 1
    assert (await gamelog.check_campaign_log(target, campaign)).intact


async def test_numbers_and_commitments_survive_sqlite_to_postgresql_and_a_move(
    sqlite_db: Database, pg_db: Database
) -> None:
    await _moves(sqlite_db, pg_db)


async def test_numbers_and_commitments_survive_postgresql_to_sqlite_and_a_move(
    pg_db: Database, sqlite_db: Database
) -> None:
    await _moves(pg_db, sqlite_db)


async def test_verify_still_matches_after_the_campaign_is_deleted(db: Database) -> None:
    campaign_id = await fill(db)
    number = await _hidden_revealed(db, campaign_id)
    await campaigns_svc.delete_campaign(db, campaign_id)
    player = Caller(user_id=BOB, channel_id=CHANNEL, guild_id=GUILD)
    found = await secrecy.verify(db, player, number)
    assert found.matches and found.access.row.number == number
    # A new campaign in the same channel never prints a number the old one printed.
    again = await setup_campaign(db, GUILD, CHANNEL, RuleSystem.D20_CHECK)
    recorded = await record(
        db,
        NewRoll(
            origin=Origin(channel_id=CHANNEL, user_id=BOB, guild_id=GUILD),
            kind=LedgerKind.ROLL,
            request="1d20",
            dice=[3],
            outcome={"total": 3},
            campaign_id=again.id,
        ),
    )
    assert recorded.number == number + 1


@pytest.mark.parametrize(
    ("column", "value"),
    [("outcome", {"total": 1}), ("dice", [1]), ("number", 99), ("chain", "0" * 64)],
)
async def test_a_file_whose_log_was_changed_is_refused_and_nothing_is_written(
    db: Database, column: str, value: Any
) -> None:
    campaign_id = await fill(db)
    await _hidden_revealed(db, campaign_id)
    exported = await export_campaigns(db, campaign_id=campaign_id)
    exported["campaigns"][0]["tables"]["campaigns"][0]["channel_id"] = OTHER_CHANNEL
    rows = exported["campaigns"][0]["tables"]["ledger"]
    rows[0][column] = value
    before = [await _count(db, t) for t in (campaigns, characters, ledger)]
    with pytest.raises(InvalidValue, match="does not verify") as refused:
        await import_campaigns(db, exported)
    assert "Nothing was imported" in str(refused.value)
    assert [await _count(db, t) for t in (campaigns, characters, ledger)] == before


async def test_a_removed_roll_is_refused(db: Database) -> None:
    campaign_id = await fill(db)
    exported = await export_campaigns(db, campaign_id=campaign_id)
    exported["campaigns"][0]["tables"]["campaigns"][0]["channel_id"] = OTHER_CHANNEL
    del exported["campaigns"][0]["tables"]["ledger"][1]
    with pytest.raises(InvalidValue, match="at roll #3"):
        await import_campaigns(db, exported)


async def test_a_format_1_file_still_imports_and_its_commitments_verify(db: Database) -> None:
    """A file written before migration 0007: rows with ids, no numbers, committed by format 1."""
    salt = "00112233445566778899aabbccddeeff" * 2
    old = cm.legacy_encoding(
        roll_id=42,
        campaign_id=7,
        user_id=ALICE,
        request="/check ability:WIT secret:blind",
        dice=[17],
        outcome={"score": 14},
        salt=salt,
    )
    row = {
        "id": 42,
        "campaign_id": 7,
        "character_id": None,
        "character_name": None,
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "user_id": ALICE,
        "interaction_id": None,
        "kind": "check",
        "request": "/check ability:WIT secret:blind",
        "dice": [17],
        "outcome": {"score": 14},
        "visibility": "blind",
        "created_at": "2026-01-01T00:00:00+00:00",
        "commitment": secrecy.commitment_of(old),
        "salt": salt,
        "revealed_at": "2026-01-02T00:00:00+00:00",
    }
    campaign_id = await fill(db, channel=OTHER_CHANNEL)
    exported = await export_campaigns(db, campaign_id=campaign_id)
    tables = exported["campaigns"][0]["tables"]
    campaign_row = {k: v for k, v in tables["campaigns"][0].items() if k != "ledger_scope"} | {
        "id": 7,
        "channel_id": CHANNEL,
    }
    file = {
        "format": "pbp-dice-export",
        "version": 1,
        "campaigns": [{"tables": {"campaigns": [campaign_row], "ledger": [row]}}],
    }
    [imported] = await import_campaigns(db, file)
    found = await secrecy.verify(db, Caller(user_id=BOB, channel_id=CHANNEL, guild_id=GUILD), 42)
    assert found.matches and found.access.row.campaign_id == imported.campaign_id
    row["outcome"] = {"score": 19}
    file["campaigns"][0]["tables"]["campaigns"][0]["channel_id"] = CHANNEL + 9
    with pytest.raises(InvalidValue, match="does not match its commitment"):
        await import_campaigns(db, file)


async def test_a_revealed_result_changed_in_the_file_with_its_salt_dropped_is_refused(
    db: Database,
) -> None:
    """Without its salt a hidden row's commitment cannot be checked, so
    the importer refuses it unless it is a GM-redacted self roll."""
    campaign_id = await fill(db)
    await _hidden_revealed(db, campaign_id)
    exported = await export_campaigns(db, campaign_id=campaign_id)
    exported["campaigns"][0]["tables"]["campaigns"][0]["channel_id"] = OTHER_CHANNEL
    blind = next(
        r
        for r in exported["campaigns"][0]["tables"]["ledger"]
        if r["kind"] == "check" and r["visibility"] == "blind"
    )
    blind.update(dice=[1], outcome={"total": 6}, salt=None)
    with pytest.raises(InvalidValue, match="salt is missing"):
        await import_campaigns(db, exported)
    blind["revealed_at"] = None  # passing it off as never revealed changes nothing
    with pytest.raises(InvalidValue, match="salt is missing"):
        await import_campaigns(db, exported)


async def test_a_gm_export_with_an_unrevealed_self_roll_imports_and_stays_unrevealable(
    db: Database,
) -> None:
    await fill(db)
    gm = Caller(
        user_id=ALICE + 50, channel_id=CHANNEL, guild_id=GUILD, role_ids=frozenset({GM_ROLE})
    )
    data = load((await export_for_gm(db, gm, LIMIT)).content)
    private = [r for r in data["campaigns"][0]["tables"]["ledger"] if r["visibility"] == "self"]
    assert private and all(r["request"] == "" for r in private)
    # Their personal salts stay behind too (they live in ledger_salts).
    salted = {s["ledger_id"] for s in data["campaigns"][0]["tables"]["ledger_salts"]}
    assert salted and not salted & {r["id"] for r in private}
    [imported] = await import_campaigns(db, data, channel_id=OTHER_CHANNEL)
    campaign = await campaigns_svc.get_campaign(db, imported.campaign_id)
    assert (await gamelog.check_campaign_log(db, campaign)).intact
    roller = Caller(user_id=BOB, channel_id=OTHER_CHANNEL, guild_id=GUILD)
    with pytest.raises(InvalidValue, match="left out when its campaign was exported"):
        await secrecy.reveal(db, roller, private[0]["number"])


async def test_a_moved_campaign_and_its_old_channel_never_print_the_same_number(
    db: Database,
) -> None:
    """A campaign moved away keeps numbering under its first channel, as do
    rolls made in that channel afterwards; a number names one roll in a place."""
    campaign_id = await fill(db)
    exported = await export_campaigns(db, campaign_id=campaign_id)
    await campaigns_svc.delete_campaign(db, campaign_id)
    [moved] = await import_campaigns(db, exported, channel_id=OTHER_CHANNEL)

    async def roll_in(channel: int, campaign: int | None) -> int:
        recorded = await record(
            db,
            NewRoll(
                origin=Origin(channel_id=channel, user_id=BOB, guild_id=GUILD),
                kind=LedgerKind.ROLL,
                request="1d20",
                dice=[3],
                outcome={"total": 3},
                campaign_id=campaign,
            ),
        )
        return recorded.number

    numbers = [
        await roll_in(CHANNEL, None),
        await roll_in(OTHER_CHANNEL, moved.campaign_id),
        await roll_in(CHANNEL, None),
        await roll_in(OTHER_CHANNEL, moved.campaign_id),
    ]
    assert len(set(numbers)) == 4 and numbers == sorted(numbers)
    # Deleted, the moved campaign's rolls made in its new channel are found there.
    await campaigns_svc.delete_campaign(db, moved.campaign_id)
    there = Caller(user_id=BOB, channel_id=OTHER_CHANNEL, guild_id=GUILD)
    found = await secrecy.verify(db, there, numbers[3])
    assert found.access.row.number == numbers[3]
    assert found.access.row.channel_id == OTHER_CHANNEL


async def test_a_file_naming_everyone_a_gm_role_imports_without_it(db: Database) -> None:
    campaign_id = await fill(db)
    exported = await export_campaigns(db, campaign_id=campaign_id)
    row = exported["campaigns"][0]["tables"]["campaigns"][0]
    row.update(channel_id=OTHER_CHANNEL, gm_role_ids=[GUILD, GM_ROLE])
    [imported] = await import_campaigns(db, exported)
    campaign = await campaigns_svc.get_campaign(db, imported.campaign_id)
    assert campaign.gm_role_ids == (GM_ROLE,)


async def test_a_format_2_file_imports_with_its_salts(db: Database) -> None:
    """Format 2 files carry each row's salt as ``ledger.who_salt``: the import moves it into
    ``ledger_salts``, as migration 0008 does, and the log verifies."""
    campaign_id = await fill(db)
    exported = await export_campaigns(db, campaign_id=campaign_id)
    older = copy.deepcopy(exported)
    older["version"] = 2
    tables = older["campaigns"][0]["tables"]
    row_salts = {s["ledger_id"]: s["salt"] for s in tables.pop("ledger_salts")}
    for row in tables["ledger"]:
        row["who_salt"] = row_salts.get(row["id"])
    assert any(row["who_salt"] for row in tables["ledger"])
    (imported,) = await import_campaigns(db, older, channel_id=OTHER_CHANNEL)
    moved = await campaigns_svc.get_campaign(db, imported.campaign_id)
    log = await gamelog.check_campaign_log(db, moved)
    assert log.intact and log.rolls == len(tables["ledger"])
    assert imported.rows["ledger_salts"] == len(row_salts)
