"""Whole-log walks (``/verify log``, ``/campaign export``, ``/stats``) never hold the table up:
a page per transaction with a turn of the event loop between pages (counted, never timed),
their progress told as they go, one walk per campaign at a time; ``/verify log`` walks on
from its last published checkpoint; an export too long to upload is refused before any work.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import text

from bot.db.engine import Database
from bot.services.kit import walks
from bot.services.kit.context import Caller
from bot.services.kit.errors import TooLarge
from bot.services.rolling import stats
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.trust import export, gamelog
from tests.ledger_triggers import drop_triggers
from tests.services.helpers import ALICE, CHANNEL, GUILD, gm_caller, origin
from tests.services.test_privacy_scale import pages_without_turns, ticking

ROLLS = 12


async def _roll(db: Database, campaign: CampaignView, n: int) -> None:
    for i in range(n):
        await ledger.record(
            db,
            ledger.NewRoll(
                origin=origin(ALICE),
                kind="check",
                request="/check ability:STR",
                dice=[1 + i % 20],
                outcome={"kept": 1 + i % 20},
                campaign_id=campaign.id,
            ),
        )


def _viewer() -> Caller:
    return Caller(user_id=ALICE, channel_id=CHANNEL, guild_id=GUILD)


def _note_pages(monkeypatch: pytest.MonkeyPatch, module: Any, events: list[str]) -> None:
    """Note each transaction (or read) the module opens as a page."""
    for name in ("transaction", "reading"):
        if hasattr(module, name):
            monkeypatch.setattr(module, name, _noted(getattr(module, name), events))


def _noted(real: Any, events: list[str]) -> Any:
    @contextlib.asynccontextmanager
    async def noted(database: Database) -> AsyncIterator[Any]:
        events.append("page")
        async with real(database) as session:
            yield session

    return noted


@pytest.mark.parametrize("walk", ["verify", "export", "stats"])
async def test_a_walk_gives_the_loop_a_turn_between_its_pages(
    db: Database, pd_campaign: CampaignView, monkeypatch: pytest.MonkeyPatch, walk: str
) -> None:
    await _roll(db, pd_campaign, ROLLS)
    monkeypatch.setattr(walks, "PAGE", 2)
    monkeypatch.setattr(stats, "PAGE", 2)
    events: list[str] = []
    module = {"verify": gamelog, "export": export, "stats": stats}[walk]
    _note_pages(monkeypatch, module, events)
    async with ticking(events):
        if walk == "verify":
            checked = await gamelog.verify_log(db, _viewer())
            assert checked.intact and checked.rolls == ROLLS
        elif walk == "export":
            file = await export.export_for_gm(db, gm_caller())
            data = json.loads(gzip.decompress(file.content))
            assert len(data["campaigns"][0]["tables"]["ledger"]) == ROLLS
        else:
            found = await stats.campaign_stats(db, _viewer())
            assert found.players[0].rolls == ROLLS
    assert events.count("page") >= ROLLS // 2 and pages_without_turns(events) == 0


async def test_a_long_walk_tells_its_progress_page_by_page(
    db: Database, pd_campaign: CampaignView, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _roll(db, pd_campaign, ROLLS)
    monkeypatch.setattr(walks, "PAGE", 4)
    monkeypatch.setattr(walks, "SHOWN_FROM", 10)
    told: list[tuple[int, int]] = []

    async def progress(done: int, total: int) -> None:
        told.append((done, total))

    await gamelog.verify_log(db, _viewer(), progress=progress)
    assert told == [(0, 12), (4, 12), (8, 12), (12, 12)]
    told.clear()
    await export.export_for_gm(db, gm_caller(), progress=progress)
    assert told[0] == (4, 12) and told[-1] == (12, 12)
    assert [d for d, _ in told] == sorted(d for d, _ in told)
    told.clear()
    monkeypatch.setattr(walks, "SHOWN_FROM", ROLLS)  # a short walk is not worth showing
    await gamelog.verify_log(db, _viewer(), full=True, progress=progress)
    assert told == []


async def test_one_walk_per_campaign_at_a_time(
    db: Database, pd_campaign: CampaignView, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _roll(db, pd_campaign, ROLLS)
    monkeypatch.setattr(walks, "PAGE", 4)
    monkeypatch.setattr(walks, "SHOWN_FROM", 1)
    started, release = asyncio.Event(), asyncio.Event()

    async def held(done: int, total: int) -> None:
        started.set()
        await release.wait()

    first = asyncio.create_task(gamelog.verify_log(db, _viewer(), progress=held))
    await started.wait()
    with pytest.raises(walks.WalkRunning, match="A /verify log of this campaign's log is already"):
        await gamelog.verify_log(db, _viewer())
    with pytest.raises(walks.WalkRunning, match="already running"):
        await export.export_for_gm(db, gm_caller())
    with pytest.raises(walks.WalkRunning, match="already running"):
        await stats.campaign_stats(db, _viewer())
    release.set()
    assert (await first).intact
    assert (await gamelog.verify_log(db, _viewer())).intact  # free again once done


async def _checkpoint(db: Database, campaign: CampaignView, number: int) -> gamelog.Checkpoint:
    async with db.engine.begin() as connection:
        head = await connection.scalar(
            text("SELECT chain FROM ledger WHERE campaign_id = :c AND number = :n"),
            {"c": campaign.id, "n": number},
        )
    point = gamelog.Checkpoint(number, str(head), CHANNEL, 99)
    await gamelog.record_checkpoint(db, campaign.id, point)
    return point


async def test_verify_log_walks_on_from_a_confirmed_checkpoint(
    db: Database, pd_campaign: CampaignView
) -> None:
    await _roll(db, pd_campaign, ROLLS)
    point = await _checkpoint(db, pd_campaign, 8)
    asked: list[gamelog.Checkpoint] = []

    async def confirm(checkpoint: gamelog.Checkpoint) -> bool:
        asked.append(checkpoint)
        return True

    checked = await gamelog.verify_log(db, _viewer(), confirm=confirm)
    assert asked == [point]
    assert checked.intact and (checked.since, checked.rolls, checked.last_number) == (8, 4, 12)
    full = await gamelog.verify_log(db, _viewer(), full=True, confirm=confirm)
    assert len(asked) == 1 and (full.since, full.rolls) == (0, 12)

    async def refuse(checkpoint: gamelog.Checkpoint) -> bool:
        return False

    walked = await gamelog.verify_log(db, _viewer(), confirm=refuse)
    assert walked.checkpoint_unconfirmed and (walked.since, walked.rolls) == (0, 12)


async def test_an_incremental_walk_still_finds_a_changed_roll_after_the_checkpoint_or_at_it(
    db: Database, pd_campaign: CampaignView
) -> None:
    await _roll(db, pd_campaign, ROLLS)
    await _checkpoint(db, pd_campaign, 8)

    async def confirm(checkpoint: gamelog.Checkpoint) -> bool:
        return True

    await drop_triggers(db.engine)
    async with db.engine.begin() as connection:
        await connection.execute(text("UPDATE ledger SET dice = '[20]' WHERE number = 10"))
    broken = await gamelog.verify_log(db, _viewer(), confirm=confirm)
    assert broken.broken is not None and broken.broken.number == 10
    async with db.engine.begin() as connection:
        await connection.execute(text(f"UPDATE ledger SET chain = '{'f' * 64}' WHERE number = 8"))
    rewritten = await gamelog.verify_log(db, _viewer(), confirm=confirm)
    assert rewritten.broken is not None and rewritten.broken.number == 8
    assert "head published" in rewritten.broken.reason


async def test_an_export_too_long_to_upload_is_refused_before_any_work(
    db: Database, pd_campaign: CampaignView, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _roll(db, pd_campaign, ROLLS)
    events: list[str] = []
    _note_pages(monkeypatch, export, events)
    limit = ROLLS * export.LEAST_BYTES_PER_ROW - 1
    with pytest.raises(TooLarge) as refused:
        await export.export_for_gm(db, gm_caller(), size_limit=limit)
    assert events == ["page"]  # the chain's length, and nothing of the log
    said = refused.value.message
    assert f"at least {export.size_text(limit + 1)} ({ROLLS} rolls)" in said
    assert f"pbp-dice export --guild {GUILD} --campaign {pd_campaign.id}" in said


async def test_the_streamed_export_reads_back_as_the_same_campaign(
    db: Database, pd_campaign: CampaignView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of 2 rows across every table still make one valid file that imports whole."""
    await _roll(db, pd_campaign, 5)
    whole = await export.export_campaigns(db, campaign_id=pd_campaign.id)
    monkeypatch.setattr(walks, "PAGE", 2)
    paged = await export.export_campaigns(db, campaign_id=pd_campaign.id)
    assert paged["campaigns"] == whole["campaigns"]
    assert len(paged["campaigns"][0]["tables"]["ledger_salts"]) >= 5
    done = await export.import_campaigns(db, paged, guild_id=GUILD, channel_id=CHANNEL + 9)
    assert done[0].rows["ledger"] == 5
