"""Budgets against abuse, at the services: a flood of expensive work is refused
while everyone else is served, a refusal does nothing, and budgets refill with time.

The clocks are fakes: time passes when a test says so, never by sleeping.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import replace

import pytest
from sqlalchemy import func, select

from bot.db.engine import Database
from bot.db.models import ledger
from bot.dice import parse
from bot.dice.odds import OddsMeter, exact_odds, odds_cost
from bot.services.kit.budgets import (
    HISTORY_ROW,
    LEDGER_ROW,
    MAX_ODDS_WORK,
    Budgets,
    OverBudget,
    dice_work,
    odds_work,
)
from bot.services.kit.context import Caller
from bot.services.rolling import history, odds, stats
from bot.services.rolling.rolls import roll_dice
from bot.services.store.campaigns import CampaignView
from bot.services.trust import export, gamelog
from tests.fixtures.budgets import SERVER, USER, FakeClocks
from tests.scripted import ScriptedRandom
from tests.services.helpers import ALICE, BOB, CHANNEL, GUILD, gm_caller

BIG = "1000d20kh500"
OTHER_GUILD = GUILD + 1


_interactions = itertools.count(7_000_000_000_000_000)


def caller(budgets: Budgets, user_id: int = ALICE, guild_id: int = GUILD) -> Caller:
    """A fresh interaction of ``user_id`` in the test channel, carrying the budgets."""
    return Caller(
        user_id=user_id,
        channel_id=CHANNEL,
        guild_id=guild_id,
        interaction_id=next(_interactions),
        budget=budgets,
    )


async def rows(db: Database) -> int:
    async with db.engine.connect() as conn:
        return int((await conn.execute(select(func.count()).select_from(ledger))).scalar_one())


async def big_roll(db: Database, who: Caller) -> None:
    await roll_dice(db, random.Random(1), who, BIG, request=f"/roll dice:{BIG}")


def retry_seconds(error: OverBudget, clocks: FakeClocks) -> float:
    """The wait the message names, from its Discord timestamp ``<t:…:R>``."""
    found = re.search(r"<t:(\d+):R>", error.message)
    assert found, error.message
    assert int(found[1]) == pytest.approx(error.retry_at, abs=1)
    return int(found[1]) - clocks.wall()


async def test_a_flood_of_the_largest_roll_is_refused_and_others_are_still_served(
    db: Database, budgets: Budgets
) -> None:
    served = 0
    with pytest.raises(OverBudget) as refused:
        for _ in range(100):  # a macro: no time passes between its commands
            await big_roll(db, caller(budgets))
            served += 1
    # The burst holds five of the largest rolls; the sixth is refused.
    assert served == USER.burst // dice_work(parse(BIG))
    assert not refused.value.server
    assert "Nothing was rolled or recorded" in refused.value.message
    # Bob, at the same table, is unaffected: his own large roll and ordinary ones go through.
    await big_roll(db, caller(budgets, BOB))
    for expression in ("1d20+5", "4d6kh3", "8d6 [fire]"):
        await roll_dice(db, random.Random(2), caller(budgets, BOB), expression, request="r")


async def test_a_refused_roll_records_nothing_and_rolls_no_die(
    db: Database, budgets: Budgets, clocks: FakeClocks
) -> None:
    for _ in range(5):
        await big_roll(db, caller(budgets))
    before = await rows(db)
    levels = budgets.level(ALICE, GUILD)

    with pytest.raises(OverBudget):  # no die scripted: a die rolled would raise Exhausted
        await roll_dice(db, ScriptedRandom(), caller(budgets), BIG, request="/roll")
    assert await rows(db) == before
    assert budgets.level(ALICE, GUILD) == levels  # and it took nothing from either bucket


async def test_budgets_refill_and_the_refusal_says_when(
    db: Database, budgets: Budgets, clocks: FakeClocks
) -> None:
    for _ in range(5):
        await big_roll(db, caller(budgets))
    with pytest.raises(OverBudget) as refused:
        await big_roll(db, caller(budgets))
    wait = retry_seconds(refused.value, clocks)
    assert wait == pytest.approx(1_000 / USER.per_second, abs=1)  # one roll's work, refilled
    # A small roll needs far less: it is served long before the large one.
    clocks.advance(2 / USER.per_second)
    await roll_dice(db, random.Random(3), caller(budgets), "1d20", request="/roll dice:1d20")
    with pytest.raises(OverBudget):
        await big_roll(db, caller(budgets))
    clocks.advance(wait + 1)
    await big_roll(db, caller(budgets))  # refilled: served again
    clocks.advance(USER.idle_seconds)
    for _ in range(5):  # and a full refill gives the whole burst back
        await big_roll(db, caller(budgets))


async def test_the_server_budget_caps_a_server_whose_users_all_flood(
    db: Database, budgets: Budgets, clocks: FakeClocks
) -> None:
    users = [ALICE + 100 + i for i in range(10)]
    served = 0
    with pytest.raises(OverBudget) as refused:
        for user in itertools.cycle(users):
            await big_roll(db, caller(budgets, user))
            served += 1
    assert refused.value.server
    assert "This server" in refused.value.message
    assert served == SERVER.burst // 1_000
    # Another server is not held up by this one.
    await big_roll(db, caller(budgets, BOB, OTHER_GUILD))


def test_ordinary_play_never_meets_the_budget(budgets: Budgets, clocks: FakeClocks) -> None:
    # A busy evening: six players and a GM for four hours, each acting every 20 s on average
    # (a post-by-post table is far slower), with bursts of five commands in a row, fireballs
    # and some odds and history pages mixed in. Nobody is ever refused.
    rng = random.Random(22)
    typical = ["1d20+5", "2d20kh1+3", "4d6kh3", "8d6", "10d6", "3d8+4", "1d100", "20d6"]
    odds_units = []
    for expression in typical:
        meter = OddsMeter()
        exact_odds(parse(expression), meter)
        odds_units.append(odds_work(meter.used))
    players = [ALICE + i for i in range(7)]
    for _ in range(4 * 3600 // 20):
        clocks.advance(20 / len(players))
        who = rng.choice(players)
        for _ in range(rng.choice([1, 1, 1, 2, 5])):
            kind = rng.random()
            if kind < 0.8:
                units = dice_work(parse(rng.choice(typical)))
            elif kind < 0.9:
                units = rng.choice(odds_units)  # /odds roll of a typical expression
            else:
                units = (history.MAX_PAGE + 1) * HISTORY_ROW  # a full page of /history
            budgets.take(who, GUILD, units)


async def test_odds_charge_the_work_the_engine_metered(
    budgets: Budgets, clocks: FakeClocks
) -> None:
    # 10d20kh5: the engine's estimate falls short by half; it works through the most steps it
    # allows, then refuses. The caller pays for the work done, not the estimate.
    expression = "10d20kh5"
    meter = OddsMeter()
    with pytest.raises(Exception, match="too many combinations"):
        exact_odds(parse(expression), meter)
    worked = odds_work(min(meter.used, meter.budget))
    assert worked > odds_work(odds_cost(parse(expression)))  # more than the static estimate
    start, _ = budgets.level(ALICE, GUILD)
    with pytest.raises(Exception, match="too many combinations"):
        await odds.roll_odds(caller(budgets), expression)
    after, _ = budgets.level(ALICE, GUILD)
    assert start - after == worked <= MAX_ODDS_WORK
    # A cheap one is charged as cheap, and answered.
    report = await odds.roll_odds(caller(budgets), "1d20+5", at_least=15)
    assert report.success is not None
    assert after - budgets.level(ALICE, GUILD)[0] < 10


async def test_a_flood_of_costly_odds_is_refused_before_any_work(
    budgets: Budgets, clocks: FakeClocks
) -> None:
    expression = "5d1000"  # answered, after ~20 ms of engine work
    meter = OddsMeter()
    exact_odds(parse(expression), meter)
    estimate, actual = odds_work(odds_cost(parse(expression))), odds_work(meter.used)
    served = 0
    with pytest.raises(OverBudget):
        for _ in range(100):
            await odds.roll_odds(caller(budgets), expression)
            served += 1
    # Each is admitted on the estimate and then charged its metered work.
    assert served == (USER.burst - estimate) // actual + 1
    # Bob asks the same and is answered.
    assert (await odds.roll_odds(caller(budgets, BOB), "5d1000")).outcomes


async def test_history_pages_are_charged_by_their_rows(
    db: Database, budgets: Budgets, pd_campaign: CampaignView
) -> None:
    who = caller(budgets)
    query = await history.make_filter(db, who, limit=history.MAX_PAGE)
    pages = 0
    with pytest.raises(OverBudget):
        for _ in range(1_000):  # a macro clicking "Older" as fast as it can
            await history.page(db, replace(who, interaction_id=next(_interactions)), query)
            pages += 1
    assert pages == USER.burst // ((history.MAX_PAGE + 1) * HISTORY_ROW)
    # Bob pages on.
    await history.page(db, caller(budgets, BOB), query)


def test_idle_buckets_are_dropped_so_memory_follows_active_users(
    budgets: Budgets, clocks: FakeClocks
) -> None:
    for user in range(10_000):
        budgets.take(user, user % 100, 100)
    assert len(budgets) == 10_100  # every user and every server
    clocks.advance(2 * SERVER.idle_seconds + 1)
    budgets.take(ALICE, GUILD, 1)
    assert len(budgets) == 2  # the one active user and the server
    assert budgets.level(5) == (USER.burst, None)  # a dropped bucket reads as full


@pytest.mark.parametrize("command", ["/verify log:True", "/campaign export", "/stats"])
async def test_whole_ledger_work_is_charged_by_its_rows_before_it_is_done(
    db: Database, budgets: Budgets, pd_campaign: CampaignView, command: str
) -> None:
    for i in range(30):
        await roll_dice(db, random.Random(i), caller(budgets, BOB), "1d20", request="/roll")
    gm = replace(gm_caller(), budget=budgets)
    run = {
        "/verify log:True": lambda who: gamelog.verify_log(db, who),
        "/campaign export": lambda who: export.export_for_gm(db, who),
        "/stats": lambda who: stats.campaign_stats(db, who),
    }[command]
    before = budgets.level(gm.user_id, GUILD)[0]
    await run(gm)
    assert before - budgets.level(gm.user_id, GUILD)[0] == 30 * LEDGER_ROW
    # With the bucket nearly empty it is refused before any of it is done.
    budgets.spend(gm.user_id, None, budgets.level(gm.user_id)[0] - 10)
    with pytest.raises(OverBudget):
        await run(gm)
