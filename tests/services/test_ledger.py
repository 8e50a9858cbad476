"""The ledger: append-only, one row per interaction, filters, reveal once."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from bot.db.engine import Database
from bot.db.models import Visibility
from bot.services.kit.errors import AlreadyRevealed, InvalidValue, NotFound
from bot.services.store import ledger as svc
from bot.services.store.campaigns import CampaignView, delete_campaign
from bot.services.store.characters import CharacterView
from bot.services.store.ledger import DuplicateInteraction
from bot.services.trust import gamelog
from bot.words import LedgerKind
from tests.ledger_triggers import drop_triggers
from tests.services.helpers import ALICE, BOB, origin


async def record_or_existing(db: Database, roll: svc.NewRoll) -> svc.Recorded:
    """The row recorded, or for a duplicate interaction the existing row it names."""
    try:
        return await svc.record(db, roll)
    except DuplicateInteraction as duplicate:
        assert duplicate.existing is not None and duplicate.roll_id == duplicate.existing.number
        return duplicate.existing


def roll(campaign_id: int | None = None, **overrides: object) -> svc.NewRoll:
    values: dict[str, object] = {
        "origin": origin(),
        "kind": LedgerKind.ROLL,
        "request": "2d6+1",
        "dice": [{"sides": 6, "value": 4}, {"sides": 6, "value": 2}],
        "outcome": {"total": 7},
        "campaign_id": campaign_id,
    }
    values.update(overrides)
    return svc.NewRoll(**values)  # type: ignore[arg-type]


async def test_record_and_read_back(db: Database, pd_campaign: CampaignView) -> None:
    recorded = await svc.record(db, roll(pd_campaign.id, visibility=Visibility.GM))
    assert not recorded.duplicate
    row = await svc.get_roll(db, recorded.id)
    assert row.request == "2d6+1" and row.outcome == {"total": 7}
    assert row.dice[0] == {"sides": 6, "value": 4}
    assert row.visibility is Visibility.GM and row.created_at.tzinfo is UTC
    assert row.revealed_at is None
    assert await svc.roll_for_interaction(db, row.interaction_id or 0) == row


async def test_generic_roll_needs_no_campaign(db: Database) -> None:
    recorded = await svc.record(db, roll(None, origin=svc.Origin(channel_id=5, user_id=6)))
    row = await svc.get_roll(db, recorded.id)
    assert row.campaign_id is None and row.guild_id is None and row.interaction_id is None


async def test_same_interaction_recorded_once(db: Database, pd_campaign: CampaignView) -> None:
    same = origin()
    first = await svc.record(db, roll(pd_campaign.id, origin=same))
    second = await record_or_existing(db, roll(pd_campaign.id, origin=same, request="again"))
    assert second == dataclasses.replace(first, duplicate=True)
    assert [r.request for r in await svc.latest_rolls(db, pd_campaign.id)] == ["2d6+1"]


async def test_concurrent_same_interaction_stores_one_row(
    db: Database, pd_campaign: CampaignView
) -> None:
    same = origin()
    results = await asyncio.gather(
        *(record_or_existing(db, roll(pd_campaign.id, origin=same)) for _ in range(2))
    )
    assert sorted(r.duplicate for r in results) == [False, True]
    assert len({r.id for r in results}) == 1
    assert len(await svc.latest_rolls(db, pd_campaign.id)) == 1


async def test_several_rows_in_one_statement_come_back_in_order(
    db: Database, pd_campaign: CampaignView
) -> None:
    """A group roll's member rows: each id belongs to the row given at that position."""
    not_deduplicated = svc.Origin(channel_id=5, user_id=ALICE)
    inserts: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO LEDGER "):
            inserts.append(statement)

    event.listen(db.engine.sync_engine, "before_cursor_execute", count)
    try:
        async with db.engine.begin() as conn:
            first = await svc.record_rolls_in(conn, [roll(pd_campaign.id, origin=not_deduplicated)])
            ids = await svc.record_rolls_in(
                conn,
                [
                    roll(pd_campaign.id, origin=not_deduplicated, request=f"member {i}")
                    for i in range(25)
                ],
            )
            assert await svc.record_rolls_in(conn, []) == []
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", count)
    assert len(inserts) == 2  # one statement for the first row, one for the 25
    assert len({r.id for r in ids}) == 25 and min(r.id for r in ids) > first[0].id
    stored = [await svc.get_roll(db, r.id) for r in ids]
    assert [row.request for row in stored] == [f"member {i}" for i in range(25)]
    # Numbered in the order given, after the first row, each chained to the one before.
    assert [row.number for row in stored] == list(range(2, 27))
    assert [r.number for r in ids] == [row.number for row in stored]
    assert [r.chain for r in ids] == [row.chain for row in stored]


async def test_a_group_row_after_its_members_is_one_insert_and_recorded_once(
    db: Database, pd_campaign: CampaignView
) -> None:
    """A group roll's own row (the command's interaction) goes in with its members' rows,
    numbered after them and listing their numbers; the same interaction again records nothing
    and names the row it was recorded as."""
    plain = svc.Origin(channel_id=5, user_id=ALICE)
    same = origin()
    members = [roll(pd_campaign.id, origin=plain, request=f"member {i}") for i in range(3)]

    def group(numbers: Any) -> svc.NewRoll:
        return roll(
            pd_campaign.id,
            origin=same,
            kind=LedgerKind.GROUP,
            outcome={"member_rolls": list(numbers)},
            named=((BOB, "Bob's hero"),),
        )

    inserts: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO LEDGER "):
            inserts.append(statement)

    event.listen(db.engine.sync_engine, "before_cursor_execute", count)
    try:
        async with db.engine.begin() as conn:
            recorded = await svc.record_rolls_in(conn, members, last=group)
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", count)
    assert len(inserts) == 1
    assert [r.number for r in recorded] == [1, 2, 3, 4]
    stored = await svc.get_roll(db, recorded[-1].id)
    assert (
        stored.outcome == {"member_rolls": [1, 2, 3]}
        and stored.interaction_id == same.interaction_id
    )
    async with db.engine.connect() as conn:
        assert await svc.names_of_in(conn, stored.id) == ((BOB, "Bob's hero"),)
    assert (await gamelog.check_campaign_log(db, pd_campaign)).intact

    with pytest.raises(DuplicateInteraction) as duplicate:
        async with db.engine.begin() as conn:
            await svc.record_rolls_in(conn, members, last=group)
    assert duplicate.value.roll_id == 4
    assert duplicate.value.existing is not None and duplicate.value.existing.id == stored.id
    assert len(await svc.latest_rolls(db, pd_campaign.id)) == 4
    assert (await gamelog.check_campaign_log(db, pd_campaign)).intact


async def test_several_rows_refuses_what_needs_the_single_path(
    db: Database, pd_campaign: CampaignView
) -> None:
    """Deduplicated (interaction) and hidden rows need record_in; nothing is written."""
    plain = svc.Origin(channel_id=5, user_id=ALICE)
    for bad in (
        roll(pd_campaign.id),
        roll(pd_campaign.id, origin=plain, visibility=Visibility.GM),
        roll(None, origin=plain),  # another chain (no campaign)
    ):
        async with db.engine.begin() as conn:
            with pytest.raises(ValueError):
                await svc.record_rolls_in(conn, [roll(pd_campaign.id, origin=plain), bad])
    assert await svc.latest_rolls(db, pd_campaign.id) == []


async def test_latest_rolls_newest_first_with_filters(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    for i in range(25):
        await svc.record(
            db,
            roll(
                pd_campaign.id,
                origin=origin(BOB if i % 5 == 0 else ALICE),
                request=f"r{i}",
                kind=LedgerKind.CHECK if i % 2 else LedgerKind.ROLL,
                character_id=hero.id if i % 3 == 0 else None,
                visibility=Visibility.BLIND if i == 24 else Visibility.PUBLIC,
            ),
        )
    latest = await svc.latest_rolls(db, pd_campaign.id)
    assert [r.request for r in latest] == [f"r{i}" for i in range(24, 4, -1)]
    page = await svc.latest_rolls(db, pd_campaign.id, limit=3, before_id=latest[-1].id)
    assert [r.request for r in page] == ["r4", "r3", "r2"]
    bob = await svc.latest_rolls(db, pd_campaign.id, user_id=BOB)
    assert [r.request for r in bob] == ["r20", "r15", "r10", "r5", "r0"]
    mine = await svc.latest_rolls(db, pd_campaign.id, character_id=hero.id, kinds=["check"])
    assert [r.request for r in mine] == ["r21", "r15", "r9", "r3"]
    public = await svc.latest_rolls(db, pd_campaign.id, visibilities=[Visibility.PUBLIC], limit=1)
    assert [r.request for r in public] == ["r23"]


async def test_reveal_stamps_once(db: Database, pd_campaign: CampaignView) -> None:
    recorded = await svc.record(db, roll(pd_campaign.id, visibility=Visibility.BLIND))
    at = datetime(2031, 5, 1, 12, tzinfo=UTC)
    revealed = await svc.stamp_revealed(db, recorded.id, at)
    assert revealed.revealed_at == at and revealed.commitment == recorded.commitment
    assert recorded.commitment is not None and len(recorded.commitment) == 64
    with pytest.raises(AlreadyRevealed, match="already been revealed"):
        await svc.stamp_revealed(db, recorded.id)
    with pytest.raises(NotFound):
        await svc.stamp_revealed(db, recorded.id + 1000)


async def test_validation(db: Database) -> None:
    with pytest.raises(InvalidValue, match="too long"):
        await svc.record(db, roll(request="d" * 4001))
    with pytest.raises(ValueError, match="kind"):
        await svc.record(db, roll(kind="Not A Kind"))


#: Modules that may read the ledger table directly and append to it, never change a row:
#: export/import moves whole campaigns, rows included (import only INSERTs); privacy reads a
#: person's rows and erases them through ledger.tombstone_in.
READ_AND_APPEND_ONLY = {"export.py", "privacy.py"}
_REFERS = re.compile(
    r"from bot\.db\.models import[^\n]*\bledger\b|LedgerRow|tables\[[\"']ledger[\"']\]"
)
_CHANGES = re.compile(
    r"(?:update|delete)\(\s*(?:ledger|_L)\b|\b(?:ledger|_L)\.(?:update|delete)\("
    r"|\b(?:UPDATE|DELETE\s+FROM)\s+ledger\b",
    re.IGNORECASE,
)


def test_no_delete_path_in_the_code() -> None:
    """Nothing deletes ledger rows; the two UPDATEs, both in bot/services/store/ledger.py, are the
    reveal stamp and an erasure's tombstone."""
    root = Path(svc.__file__).resolve().parents[2]  # bot/
    source = Path(svc.__file__).read_text()
    assert "delete(" not in source
    assert source.count("update(_L)") == 2
    first = source.index("update(_L)")
    assert "stamp_revealed" in source[first - 400 : first]
    second = source.index("update(_L)", first + 1)
    assert "def tombstone_in" in source[second - 1000 : second]
    for path in root.rglob("*.py"):
        if path.name in {"ledger.py", "models.py"} and path.parent.name in {"store", "db"}:
            continue
        text = path.read_text()
        assert not _CHANGES.search(text), path
        if path.name not in READ_AND_APPEND_ONLY:
            assert not _REFERS.search(text), path


async def test_deleting_campaign_keeps_rows(db: Database, pd_campaign: CampaignView) -> None:
    recorded = await svc.record(db, roll(pd_campaign.id))
    await delete_campaign(db, pd_campaign.id)
    row = await svc.get_roll(db, recorded.id)
    assert row.campaign_id is None and row.guild_id is not None and row.request == "2d6+1"


async def test_rolls_outside_a_campaign_are_numbered_per_channel_threads_with_their_parent(
    db: Database,
) -> None:
    in_channel = svc.Origin(channel_id=5, user_id=ALICE)
    in_thread = svc.Origin(channel_id=6, user_id=ALICE, parent_channel_id=5)
    elsewhere = svc.Origin(channel_id=9, user_id=ALICE)
    numbers = [
        (await svc.record(db, roll(None, origin=o))).number
        for o in (in_channel, in_thread, elsewhere, in_channel)
    ]
    assert numbers == [1, 2, 1, 3]


async def test_a_gap_in_the_chain_is_found_and_named(
    db: Database, pd_campaign: CampaignView
) -> None:
    """Removing a row (possible only behind the database's triggers) breaks the next link."""
    for i in range(4):
        await svc.record(db, roll(pd_campaign.id, origin=svc.Origin(5, ALICE), request=f"r{i}"))
    assert (await gamelog.check_campaign_log(db, pd_campaign)).intact
    await drop_triggers(db.engine)
    async with db.engine.begin() as connection:
        await connection.execute(text("DELETE FROM ledger WHERE number = 2"))
    broken = await gamelog.check_campaign_log(db, pd_campaign)
    assert broken.broken is not None and broken.broken.number == 3
    async with db.engine.begin() as connection:
        await connection.execute(text("DELETE FROM ledger WHERE number >= 3"))
    cut = await gamelog.check_campaign_log(db, pd_campaign)
    assert cut.broken is not None and "newest rolls are missing" in cut.broken.reason
