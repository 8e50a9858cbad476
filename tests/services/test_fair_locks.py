"""Lock order with provably fair dice on PostgreSQL: every command takes the seed's row, then
the ledger chain's, then a character's, so fair commands at once never deadlock; and a
deadlock or serialization failure the server still reports is answered "nothing was recorded,
try again", with nothing kept."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import select, text, update

from bot.db.engine import Database
from bot.db.models import RuleSystem, characters
from bot.dice.fair import FairDice
from bot.rules.systems.base import CheckOptions
from bot.services.kit.context import Caller
from bot.services.kit.errors import StorageUnavailable
from bot.services.kit.sql import core_transaction, transaction
from bot.services.rolling import attacks, checks, rerolls
from bot.services.rolling.attacks import AttackOptions
from bot.services.rolling.rolls import roll_dice
from bot.services.store.campaigns import setup_campaign, update_settings
from bot.services.store.characters import create_character, set_armour, set_score
from bot.services.store.ledger import latest_rolls
from bot.words import Visibility
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GUILD, gm_caller


def _needs_postgresql(db: Database) -> None:
    if db.dialect != "postgresql":
        pytest.skip("SQLite runs one writer at a time: no row locks to order")


async def _two_characters(db: Database) -> tuple[int, int]:
    campaign = await setup_campaign(db, GUILD, CHANNEL, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE])
    one = await create_character(db, campaign.id, ALICE, "Ayla")
    two = await create_character(db, campaign.id, BOB, "Brak")
    return one.id, two.id


async def test_a_deadlock_answers_nothing_was_recorded(db: Database) -> None:
    _needs_postgresql(db)
    a, b = await _two_characters(db)
    locked = [asyncio.Event(), asyncio.Event()]

    async def cross(me: int, first: int, second: int) -> None:
        async with core_transaction(db) as conn:
            await conn.execute(text("SET LOCAL deadlock_timeout = '50ms'"))
            mine = 2 * me + 2  # each transaction's own levels: 2 and 3, or 4 and 5
            await conn.execute(
                update(characters).where(characters.c.id == first).values(level=mine)
            )
            locked[me].set()
            await locked[1 - me].wait()
            await conn.execute(
                update(characters).where(characters.c.id == second).values(level=mine + 1)
            )

    done = await asyncio.gather(cross(0, a, b), cross(1, b, a), return_exceptions=True)
    failed = [r for r in done if isinstance(r, BaseException)]
    assert len(failed) == 1 and isinstance(failed[0], StorageUnavailable), done
    assert "nothing was recorded" in str(failed[0])
    async with db.sessionmaker() as session:
        levels = (await session.execute(select(characters.c.level))).scalars().all()
    assert sorted(levels) in ([2, 3], [4, 5])  # the survivor's two updates, none of the other


async def test_a_serialization_failure_answers_nothing_was_recorded(db: Database) -> None:
    _needs_postgresql(db)
    a, _ = await _two_characters(db)
    with pytest.raises(StorageUnavailable, match="nothing was recorded"):
        async with transaction(db) as first:
            await first.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"))
            await first.execute(select(characters.c.level))  # its snapshot
            async with transaction(db) as second:
                await second.execute(update(characters).where(characters.c.id == a).values(level=5))
            await first.execute(update(characters).where(characters.c.id == a).values(level=9))
    async with db.sessionmaker() as session:
        level = await session.scalar(select(characters.c.level).where(characters.c.id == a))
    assert level == 5


async def test_fair_rolls_rerolls_and_attacks_on_a_target_at_once_never_deadlock(
    db: Database,
) -> None:
    """/roll (seed, chain), /reroll (it reads the latest roll under the chain's lock) and a
    GM's attacks lowering a target's AC (seed, chain, character) in one campaign at once: all
    recorded, none refused."""
    _needs_postgresql(db)
    campaign = await setup_campaign(
        db, GUILD, CHANNEL, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE], crit_rules=True
    )
    await update_settings(db, campaign.id, rerolls=True)
    rounds = 6
    for n in range(rounds):  # a player each: a player's latest roll is rerolled once
        hero = await create_character(db, campaign.id, ALICE + 10 + n, f"Hero {n}")
        await set_score(db, hero.id, "DEX", 14)
    brak = await create_character(db, campaign.id, BOB, "Brak")
    await set_armour(db, brak.id, 1, None, None)

    async def check_then_reroll(n: int) -> None:
        player = Caller(user_id=ALICE + 10 + n, channel_id=CHANNEL, guild_id=GUILD)
        advantage = CheckOptions(ability="DEX", advantage=True)
        await checks.perform_check(db, FairDice(), player, advantage, "/check")
        await rerolls.reroll(db, FairDice(), player, "first", "/reroll")

    async def attack(n: int) -> None:
        options = AttackOptions(attacker_bonus=30, damage="1d4", target="Brak")
        await attacks.perform_gm_attack(
            db, FairDice(), gm_caller(), options, "/gm attack", visibility=Visibility.PUBLIC
        )

    async def roll(n: int) -> None:
        bob = Caller(user_id=BOB, channel_id=CHANNEL, guild_id=GUILD)
        await roll_dice(db, FairDice(), bob, "1d20", request="/roll")

    jobs: list[Any] = []
    for n in range(rounds):
        jobs += [check_then_reroll(n), attack(n), roll(n)]
    done = await asyncio.gather(*jobs, return_exceptions=True)
    assert not [r for r in done if isinstance(r, BaseException)], done
    rows = await latest_rolls(db, campaign.id, limit=100)
    assert len(rows) == 4 * rounds
