"""Concurrency on real databases: counters end where arithmetic says, never out of range."""

from __future__ import annotations

import asyncio
import random

from bot.db.engine import Database
from bot.services.kit.errors import FortuneAtMaximum, NoFortuneLeft
from bot.services.rolling.fortune_table import set_boon
from bot.services.store import fortune as svc
from bot.services.store.characters import CharacterView, get_character_by_id
from tests.services.helpers import gm_caller, origin


async def _hammer(db: Database, character_id: int, ops: list[int]) -> tuple[int, int]:
    """Run every op (+1 gain, -1 spend) as its own task and transaction; count successes."""

    async def one(op: int) -> int:
        await asyncio.sleep(0)
        try:
            if op > 0:
                async with db.sessionmaker.begin() as session:
                    await svc.gain_fortune_in(session, character_id)
            else:
                await svc.spend_fortune(db, character_id, origin(), "hint")
        except (FortuneAtMaximum, NoFortuneLeft):
            return 0
        return op

    results = await asyncio.gather(*(one(op) for op in ops))
    return sum(1 for r in results if r > 0), sum(1 for r in results if r < 0)


async def test_hundred_concurrent_gains_and_spends(db: Database, hero: CharacterView) -> None:
    await set_boon(db, gm_caller(), hero.name, True)
    await svc.give_fortune(db, hero.id, origin(), amount=2)
    ops = [1] * 50 + [-1] * 50
    random.Random(7).shuffle(ops)
    gained, spent = await _hammer(db, hero.id, ops)
    final = (await get_character_by_id(db, hero.id)).fortune
    assert 0 <= final <= 4
    assert final == 2 + gained - spent
    assert gained > 0 and spent > 0


async def test_hundred_concurrent_spends_stop_at_zero(db: Database, hero: CharacterView) -> None:
    await svc.give_fortune(db, hero.id, origin(), amount=2)
    gained, spent = await _hammer(db, hero.id, [-1] * 100)
    assert (gained, spent) == (0, 2)
    assert (await get_character_by_id(db, hero.id)).fortune == 0


async def test_hundred_concurrent_gains_stop_at_maximum(db: Database, hero: CharacterView) -> None:
    await set_boon(db, gm_caller(), hero.name, True)
    gained, spent = await _hammer(db, hero.id, [1] * 100)
    assert (gained, spent) == (4, 0)
    assert (await get_character_by_id(db, hero.id)).fortune == 4
