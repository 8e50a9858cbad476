"""Sealed pre-rolls under concurrency (SQLite, then PostgreSQL): a sealed die is
used by one check only, and no more than the cap ever waits."""

from __future__ import annotations

import asyncio
import itertools
import random
from dataclasses import replace

import pytest
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.preroll_models import prerolls as prerolls_table
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue
from bot.services.rolling import prerolls
from bot.services.rolling.checks import CheckOptions
from bot.services.store import ledger
from bot.services.store.characters import CharacterView, set_score
from bot.services.trust import export
from bot.services.trust.privacy import erase_user
from tests.scripted import ScriptedRandom
from tests.services.helpers import ALICE, CHANNEL, GUILD, gm_caller

_interactions = itertools.count(8_000_000_000_000_000)


def _alice() -> Caller:
    return Caller(
        user_id=ALICE, channel_id=CHANNEL, guild_id=GUILD, interaction_id=next(_interactions)
    )


async def _table(db: Database) -> list[tuple[int, int | None]]:
    async with db.sessionmaker.begin() as session:
        rows = await session.execute(
            select(prerolls_table.c.ledger_id, prerolls_table.c.used_by).order_by(
                prerolls_table.c.ledger_id
            )
        )
        return [(int(a), None if b is None else int(b)) for a, b in rows]


async def test_concurrent_checks_never_use_the_same_sealed_die(
    db: Database, hero: CharacterView
) -> None:
    await set_score(db, hero.id, "DEX", 12)
    faces = [3, 17, 9, 20, 1, 12]
    rng = random.Random(1)
    sealed = await prerolls.seal(
        db, ScriptedRandom(*faces), _alice(), len(faces), "/preroll count:6"
    )
    assert [d.number for d in sealed.dice] == list(range(1, 7))

    async def apply() -> prerolls.PrerolledCheck | None:
        await asyncio.sleep(0)
        caller = replace(gm_caller(), interaction_id=next(_interactions))
        try:
            return await prerolls.perform_gm_check(
                db, rng, caller, hero.name, CheckOptions("DEX"), "/gm check preroll:next"
            )
        except InvalidValue as refused:
            assert "no sealed pre-roll left" in str(refused)
            return None

    done = [r for r in await asyncio.gather(*(apply() for _ in range(10))) if r is not None]
    assert len(done) == len(faces)
    used = sorted(r.applied[0].sealed.number for r in done)
    assert used == list(range(1, 7))  # each die once
    for result in done:
        row = await ledger.get_roll(db, result.result.roll_id)
        (die,) = result.applied
        assert row.dice == [die.face] == [faces[die.sealed.number - 1]]
        assert row.outcome["prerolls"] == [die.sealed.number]
    table = await _table(db)
    assert len({used_by for _, used_by in table}) == len(faces)
    assert all(used_by is not None for _, used_by in table)


async def test_concurrent_seals_never_exceed_the_cap(db: Database, hero: CharacterView) -> None:
    async def seal() -> int:
        await asyncio.sleep(0)
        try:
            await prerolls.seal(db, random.Random(2), _alice(), 3, "/preroll count:3")
        except InvalidValue:
            return 0
        return 3

    sealed = sum(await asyncio.gather(*(seal() for _ in range(6))))
    assert sealed == 9  # three seals fit under ten, the others were refused
    assert len(await _table(db)) == 9


async def test_erasure_deletes_the_sealed_pre_rolls_and_tombstones_their_rows(
    db: Database, hero: CharacterView
) -> None:
    sealed = await prerolls.seal(db, random.Random(3), _alice(), 2, "/preroll count:2")
    await erase_user(db, ALICE, GUILD)
    assert await _table(db) == []
    for roll_id in sealed.roll_ids:
        row = await ledger.get_roll(db, roll_id)
        assert row.user_id == cm.TOMBSTONE_ID and row.character_name == cm.TOMBSTONE
        assert row.revealed_at is None  # still sealed: nobody ever sees it


async def test_an_exported_campaign_keeps_its_sealed_pre_rolls(
    db: Database, hero: CharacterView
) -> None:
    """The operator's export and import move the pre-rolls with their rows: the one used stays
    used, the one waiting can still be applied, once, in the new place."""
    await set_score(db, hero.id, "DEX", 12)
    await prerolls.seal(db, ScriptedRandom(6, 15), _alice(), 2, "/preroll count:2")
    caller = replace(gm_caller(), interaction_id=next(_interactions))
    await prerolls.perform_gm_check(
        db, random.Random(4), caller, hero.name, CheckOptions("DEX"), "/gm check preroll:next"
    )
    data = await export.export_campaigns(db, campaign_id=hero.campaign_id)
    [moved] = await export.import_campaigns(db, data, guild_id=GUILD, channel_id=CHANNEL + 7)
    assert moved.rows["prerolls"] == 2
    there = replace(gm_caller(), channel_id=CHANNEL + 7, interaction_id=next(_interactions))
    applied = await prerolls.perform_gm_check(
        db, random.Random(4), there, hero.name, CheckOptions("DEX"), "/gm check preroll:next"
    )
    assert [(d.sealed.number, d.face) for d in applied.applied] == [(2, 15)]
    with pytest.raises(InvalidValue, match="no sealed pre-roll left"):
        await prerolls.perform_gm_check(
            db,
            random.Random(4),
            replace(there, interaction_id=next(_interactions)),
            hero.name,
            CheckOptions("DEX"),
            "/gm check preroll:next",
        )


async def test_a_gms_export_leaves_sealed_dice_out_so_the_import_has_none_to_apply(
    db: Database, hero: CharacterView
) -> None:
    """A GM's export drops an unrevealed pre-roll's die and salt (as any self roll's): imported,
    it can never be applied, so it does not count as waiting."""
    await set_score(db, hero.id, "DEX", 12)
    await prerolls.seal(db, ScriptedRandom(6), _alice(), 1, "/preroll")
    data = await export.export_campaigns(db, campaign_id=hero.campaign_id, redact_private=True)
    [moved] = await export.import_campaigns(db, data, guild_id=GUILD, channel_id=CHANNEL + 7)
    assert moved.rows["prerolls"] == 1
    there = replace(gm_caller(), channel_id=CHANNEL + 7, interaction_id=next(_interactions))
    with pytest.raises(InvalidValue, match="no sealed pre-roll left"):
        await prerolls.perform_gm_check(
            db, random.Random(4), there, hero.name, CheckOptions("DEX"), "/gm check preroll:next"
        )
    _, found = await prerolls.waiting(db, there)
    assert found == []
