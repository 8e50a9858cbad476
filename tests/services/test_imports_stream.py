"""An export file imported from disk, streamed: the same campaign as the whole-file import, in
several transactions of at most a page of rows, the event loop given a turn between pages, a
changed file refused before anything is written, and the campaign on its channel only once
whole."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.db.engine import Database
from bot.db.models import campaigns
from bot.services.kit import walks
from bot.services.kit.context import Caller
from bot.services.kit.errors import AlreadyExists, InvalidValue
from bot.services.store.campaigns import CampaignView
from bot.services.trust import export, gamelog, imports
from tests.fixtures.campaigns import ROLLS, play_rolls
from tests.services.helpers import ALICE, CHANNEL, GUILD
from tests.services.test_privacy_scale import pages_without_turns, ticking
from tests.services.test_walks import _note_pages

ELSEWHERE = CHANNEL + 40


async def _count(db: Database, table: Any) -> int:
    async with db.engine.connect() as connection:
        return int((await connection.execute(select(func.count()).select_from(table))).scalar())


async def test_a_streamed_import_is_the_campaign_the_whole_file_import_gives(
    db: Database, exported: Path
) -> None:
    path = exported
    [streamed] = await imports.import_file(db, path, guild_id=GUILD, channel_id=ELSEWHERE)
    whole = export.load(path.read_bytes())
    [loaded] = await export.import_campaigns(db, whole, guild_id=GUILD, channel_id=ELSEWHERE + 1)
    assert streamed.rows == loaded.rows and streamed.rows["ledger"] == ROLLS
    moved = Caller(user_id=ALICE, channel_id=ELSEWHERE, guild_id=GUILD)
    checked = await gamelog.verify_log(db, moved, full=True)
    assert checked.intact and checked.rolls == ROLLS and checked.last_number == ROLLS


async def test_a_plain_json_file_imports_too(db: Database, exported: Path, tmp_path: Path) -> None:
    gz = exported
    plain = tmp_path / "campaign.json"
    plain.write_bytes(gzip.decompress(gz.read_bytes()))
    [imported] = await imports.import_file(db, plain, channel_id=ELSEWHERE)
    assert imported.channel_id == ELSEWHERE and imported.rows["ledger"] == ROLLS


async def test_import_writes_a_page_per_transaction_with_a_turn_between(
    db: Database, exported: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = exported
    monkeypatch.setattr(imports, "PAGE", 4)
    monkeypatch.setattr(walks, "PAGE", 4)
    events: list[str] = []
    written: list[int] = []
    real_prepare = imports.prepare_rows
    _note_pages(monkeypatch, imports, events)

    def counted(table: Any, rows: Any, *args: Any) -> Any:
        written.append(len(rows))  # rows held for one statement
        return real_prepare(table, rows, *args)

    monkeypatch.setattr(imports, "prepare_rows", counted)
    async with ticking(events):
        await imports.import_file(db, path, channel_id=ELSEWHERE)
    assert max(written) <= 4 and sum(written) > ROLLS  # the ledger alone is six pages
    assert events.count("page") >= ROLLS // 4
    assert pages_without_turns(events) == 0


async def test_a_changed_file_is_refused_before_anything_is_written(
    db: Database, exported: Path, tmp_path: Path
) -> None:
    path = exported
    data = json.loads(gzip.decompress(path.read_bytes()))
    rows = data["campaigns"][0]["tables"]["ledger"]
    rows[-1]["outcome"] = {"kept": 20}  # the last roll made a natural 20
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(data))
    before = (await _count(db, campaigns), await _count(db, export.ledger))
    with pytest.raises(InvalidValue, match=f"does not verify at roll #{ROLLS}"):
        await imports.import_file(db, changed, channel_id=ELSEWHERE)
    assert (await _count(db, campaigns), await _count(db, export.ledger)) == before


async def test_a_damaged_file_and_a_taken_channel_are_refused(
    db: Database, exported: Path, tmp_path: Path
) -> None:
    path = exported
    cut = tmp_path / "cut.json"
    cut.write_bytes(gzip.decompress(path.read_bytes())[:-300])
    with pytest.raises(InvalidValue, match="damaged"):
        await imports.import_file(db, cut, channel_id=ELSEWHERE)
    with pytest.raises(AlreadyExists, match="already has a campaign"):
        await imports.import_file(db, path)
    assert await _count(db, campaigns) == 1


async def test_the_campaign_reaches_its_channel_only_when_whole(
    db: Database, exported: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = exported
    monkeypatch.setattr(imports, "PAGE", 5)
    seen: list[int | None] = []
    real_turn = walks.turn

    async def looked() -> None:
        async with db.engine.connect() as connection:
            found = await connection.scalar(
                select(campaigns.c.id).where(campaigns.c.channel_id == ELSEWHERE)
            )
        seen.append(found)
        await real_turn()

    monkeypatch.setattr(walks, "turn", looked)
    [imported] = await imports.import_file(db, path, channel_id=ELSEWHERE)
    assert seen and set(seen) == {None}
    async with db.engine.connect() as connection:
        here = await connection.scalar(
            select(campaigns.c.id).where(campaigns.c.channel_id == ELSEWHERE)
        )
    assert here == imported.campaign_id


async def test_an_older_format_file_still_imports(
    db: Database, pd_campaign: CampaignView, tmp_path: Path
) -> None:
    """Format 2 (salts in the ledger rows) is read whole, as before."""
    await play_rolls(db, pd_campaign)
    data = await export.export_campaigns(db, campaign_id=pd_campaign.id)
    salts = data["campaigns"][0]["tables"].pop("ledger_salts")
    by_row = {s["ledger_id"]: s["salt"] for s in salts}
    for row in data["campaigns"][0]["tables"]["ledger"]:
        row["who_salt"] = by_row.get(row["id"])
    data.update(format=export.FORMAT, version=2)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    [imported] = await imports.import_file(db, path, channel_id=ELSEWHERE)
    assert imported.rows["ledger"] == ROLLS


async def test_no_stretch_of_the_import_reads_more_than_a_page_without_a_turn(
    db: Database, exported: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted in values read from the file (rows, keys): the check first (two readers, one
    passing over the ledger to its salts), then the writes."""
    path = exported
    monkeypatch.setattr(imports, "PAGE", 3)
    monkeypatch.setattr(imports, "STEP", 3)
    events: list[str] = []
    real_value = imports._Reader.value

    def noted(reader: Any) -> Any:
        events.append("value")
        return real_value(reader)

    monkeypatch.setattr(imports._Reader, "value", noted)
    async with ticking(events):
        await imports.import_file(db, path, channel_id=ELSEWHERE)
    stretches = "".join("v" if e == "value" else "|" for e in events).split("|")
    assert events.count("value") > 3 * ROLLS  # the file was read three times over
    assert max(len(s) for s in stretches) <= 12


async def test_dice_seeds_that_do_not_match_refuse_the_file_before_any_row(
    db: Database, exported: Path, tmp_path: Path
) -> None:
    path = exported
    data = json.loads(gzip.decompress(path.read_bytes()))
    data["campaigns"][0]["fair_seeds"] = [{"seed": "00" * 32, "seed_hash": "0" * 64}]
    changed = tmp_path / "seeds.json"
    changed.write_text(json.dumps(data))
    before = (await _count(db, campaigns), await _count(db, export.ledger))
    with pytest.raises(InvalidValue, match="dice seeds do not match"):
        await imports.import_file(db, changed, channel_id=ELSEWHERE)
    assert (await _count(db, campaigns), await _count(db, export.ledger)) == before
