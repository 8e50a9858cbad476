"""Pending carry-over modifiers: set on a critical, used once, cleared by the GM."""

from __future__ import annotations

import asyncio

import pytest

from bot.db.engine import Database
from bot.db.models import Visibility
from bot.services.kit.errors import InvalidValue
from bot.services.kit.sql import transaction
from bot.services.store import ledger
from bot.services.store import pending as svc
from bot.services.store.campaigns import setup_campaign
from bot.services.store.characters import create_character, get_character_by_id
from tests.services.helpers import ALICE, CHANNEL, GUILD, origin


async def _threshold_character(db: Database) -> int:
    campaign = await setup_campaign(db, GUILD, CHANNEL, "threshold")
    return (await create_character(db, campaign.id, ALICE, "Ash")).id


async def test_set_show_consume_once(db: Database) -> None:
    pc = await _threshold_character(db)
    await svc.set_pending(db, pc, "STR", svc.CRIT_SUCCESS_BONUS)
    await svc.set_pending(db, pc, "DEX", svc.CRIT_FAILURE_PENALTY)
    await svc.set_pending(db, pc, "DEX", 2)  # a later critical replaces it
    assert (await get_character_by_id(db, pc)).pending == {"STR": 2, "DEX": 2}
    assert await svc.consume_pending(db, pc, "STR") == 2
    assert await svc.consume_pending(db, pc, "STR") == 0
    assert (await get_character_by_id(db, pc)).pending == {"DEX": 2}


async def test_concurrent_consumers_use_it_once(db: Database) -> None:
    pc = await _threshold_character(db)
    await svc.set_pending(db, pc, "STR", -2)
    results = await asyncio.gather(*(svc.consume_pending(db, pc, "STR") for _ in range(10)))
    assert sorted(results) == [-2] + [0] * 9


async def test_gm_clears(db: Database) -> None:
    pc = await _threshold_character(db)
    await svc.set_pending(db, pc, "STR", 2)
    await svc.set_pending(db, pc, "DEX", -2)
    assert await svc.clear_pending(db, pc, "STR") == 1
    assert await svc.clear_pending(db, pc) == 1
    assert (await get_character_by_id(db, pc)).pending == {}


async def test_zero_refused(db: Database) -> None:
    pc = await _threshold_character(db)
    with pytest.raises(InvalidValue):
        await svc.set_pending(db, pc, "STR", 0)


async def test_a_carry_over_from_a_hidden_roll_waits_until_it_is_revealed(db: Database) -> None:
    """Threshold ruling 4 with a hidden roll: applied only once its source roll may be seen."""
    pc = await _threshold_character(db)
    character = await get_character_by_id(db, pc)
    hidden = await secrecy_record(db, character.campaign_id, Visibility.BLIND)
    await svc.set_pending(db, pc, "DEX", -2, source_roll_id=hidden)
    assert await svc.consume_pending(db, pc, "DEX") == 0  # waits, and stays stored
    [waiting] = await svc.carry_overs(db, pc)
    assert (waiting.value, waiting.active, waiting.source_roll_id) == (-2, False, hidden)
    await ledger.stamp_revealed(db, hidden)
    assert [c.active for c in await svc.carry_overs(db, pc)] == [True]
    assert await svc.consume_pending(db, pc, "DEX") == -2
    assert await svc.consume_pending(db, pc, "DEX") == 0


async def secrecy_record(db: Database, campaign_id: int, visibility: Visibility) -> int:
    async with transaction(db) as session:
        stored = await ledger.record_in(
            session,
            ledger.NewRoll(
                origin=origin(),
                kind="test",
                request="/gm check character:Ash ability:DEX dc:5",
                dice=[1],
                outcome={"roll": 1},
                visibility=visibility,
                campaign_id=campaign_id,
            ),
        )
    return stored.id
