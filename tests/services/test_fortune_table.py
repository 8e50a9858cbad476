"""Fortune-dice choices as one transaction each, on SQLite and PostgreSQL, under concurrency."""

from __future__ import annotations

import asyncio
import itertools
import random

import pytest
from sqlalchemy import func, select

from bot.db.engine import Database
from bot.db.fortune_models import fortune_choices
from bot.rules import pen_and_dagger as pd
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NoFortuneLeft, NotAllowed, NotFound
from bot.services.kit.serialize import to_jsonable
from bot.services.rolling import checks, fortune_table
from bot.services.store import fortune, ledger
from bot.services.store.characters import CharacterView, get_character_by_id
from bot.services.trust import secrecy
from tests.scripted import ScriptedRandom
from tests.services.helpers import ALICE, BOB, CHANNEL, GUILD, origin

_ids = itertools.count(8_000_000_000_000_000)


def caller(user_id: int = ALICE) -> Caller:
    return Caller(user_id=user_id, channel_id=CHANNEL, guild_id=GUILD, interaction_id=next(_ids))


async def roll(db: Database, *faces: int) -> checks.CheckResult:
    return await checks.perform_check(
        db,
        ScriptedRandom(*faces, then=19),
        caller(),
        checks.CheckOptions(ability="DEX"),
        "/check ability:DEX",
    )


async def choices(db: Database) -> int:
    async with db.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(fortune_choices)) or 0)


def test_outcomes_rebuild_from_their_ledger_form() -> None:
    attempt = pd.attempt(pd.Rank.ADEPT, random.Random(3), advantage=True, rank_adjustment=[1, -2])
    luck = pd.luck_roll(random.Random(4))
    assert fortune_table.outcome_from_record("attempt", to_jsonable(attempt)) == attempt
    assert fortune_table.outcome_from_record("luck", to_jsonable(luck)) == luck
    assert fortune_table.outcome_from_record("check", to_jsonable(attempt)) is None


async def test_two_clicks_on_one_roll_reroll_once(db: Database, angus: CharacterView) -> None:
    await fortune.give_fortune(db, angus.id, origin(), 2)
    result = await roll(db, 2)
    outcomes = await asyncio.gather(
        fortune_table.reroll_roll(db, ScriptedRandom(19, then=19), caller(), result.roll_id),
        fortune_table.reroll_roll(db, ScriptedRandom(19, then=19), caller(), result.roll_id),
        return_exceptions=True,
    )
    assert sum(isinstance(o, fortune_table.RerollResult) for o in outcomes) == 1
    assert sum(isinstance(o, InvalidValue) for o in outcomes) == 1
    assert (await get_character_by_id(db, angus.id)).fortune == 1
    assert await choices(db) == 1


async def test_rerolls_of_many_rolls_spend_only_the_dice_held(
    db: Database, angus: CharacterView
) -> None:
    await fortune.give_fortune(db, angus.id, origin(), 2)
    rolls = [await roll(db, 2) for _ in range(5)]
    outcomes = await asyncio.gather(
        *(
            fortune_table.reroll_roll(db, ScriptedRandom(19, then=19), caller(), r.roll_id)
            for r in rolls
        ),
        return_exceptions=True,
    )
    assert sum(isinstance(o, fortune_table.RerollResult) for o in outcomes) == 2
    assert all(isinstance(o, (fortune_table.RerollResult, NoFortuneLeft)) for o in outcomes), (
        outcomes
    )
    assert (await get_character_by_id(db, angus.id)).fortune == 0
    assert await choices(db) == 2  # refused claims rolled back with their transaction


async def test_refused_choices_change_nothing(db: Database, angus: CharacterView) -> None:
    await fortune.give_fortune(db, angus.id, origin(), 1)
    natural_1 = await roll(db, 1)
    with pytest.raises(InvalidValue, match="natural 1"):
        await fortune_table.reroll_roll(db, ScriptedRandom(then=19), caller(), natural_1.roll_id)
    other = await roll(db, 2)
    with pytest.raises(NotAllowed):
        await fortune_table.reroll_roll(db, ScriptedRandom(then=19), caller(BOB), other.roll_id)
    await fortune.give_fortune(db, angus.id, origin(), 1)
    twenty = await roll(db, 20)
    assert not twenty.outcome.trade_available  # at the maximum when rolled
    with pytest.raises(InvalidValue, match="maximum of 2"):
        await fortune_table.trade_critical(db, caller(), twenty.roll_id)
    assert (await get_character_by_id(db, angus.id)).fortune == 2
    assert await choices(db) == 0


@pytest.mark.parametrize("face", [20, 7])
async def test_a_blind_roll_is_not_found_by_its_roller(
    db: Database, angus: CharacterView, face: int
) -> None:
    """The roller of a blind roll may not learn its outcome, even from a crafted
    button id: every choice gets the same answer, whatever the die showed."""
    await fortune.give_fortune(db, angus.id, origin(), 1)
    blind = await checks.perform_check(
        db,
        ScriptedRandom(face, then=19),
        caller(),
        checks.CheckOptions(ability="DEX"),
        "/check ability:DEX secret:blind",
        visibility="blind",
    )
    answers = []
    for choose in (
        fortune_table.keep_critical(db, caller(), blind.roll_id),
        fortune_table.trade_critical(db, caller(), blind.roll_id),
        fortune_table.reroll_roll(db, ScriptedRandom(19, then=19), caller(), blind.roll_id),
    ):
        with pytest.raises(NotFound) as refused:
            await choose
        answers.append(str(refused.value))
    assert answers == ["No such roll."] * 3
    assert (await get_character_by_id(db, angus.id)).fortune == 1
    assert await choices(db) == 0


async def test_a_hidden_roll_is_chosen_on_only_once_revealed(
    db: Database, angus: CharacterView
) -> None:
    """No choice while the roll is hidden (its trade would change the dice everyone
    sees); once its roller reveals it, the trade is made, in public."""
    hidden = await checks.perform_check(
        db,
        ScriptedRandom(20, then=19),
        caller(),
        checks.CheckOptions(ability="DEX"),
        "/check ability:DEX secret:self",
        visibility="self",
    )
    for choose in (fortune_table.keep_critical, fortune_table.trade_critical):
        with pytest.raises(InvalidValue, match="still hidden"):
            await choose(db, caller(), hidden.roll_id)
    assert await choices(db) == 0
    assert (await get_character_by_id(db, angus.id)).fortune == 0

    await secrecy.reveal(db, caller(), hidden.number)
    traded = await fortune_table.trade_critical(db, caller(), hidden.roll_id)
    assert traded.fortune == 1
    row = await ledger.get_roll(db, traded.new_roll_id)
    assert row.kind == "trade" and row.visibility.value == "public" and row.commitment is None
