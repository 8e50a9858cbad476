"""Fortune dice on the table (Pen & Dagger rulings 5 and 6), through the real commands.

The d20 is scripted: the bot is built with a random source whose ``randint`` returns the faces
a test queues (``roll_d20`` is ``rng.randint(1, 20)``), then falls back to the seeded source.

Tests bot/cogs/fortune.py, bot/cogs/_views/fortune.py and bot/render/fortune.py.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, select

from bot.db.fortune_models import fortune_choices
from bot.db.models import characters, ledger
from bot.rules import pen_and_dagger as pd
from tests.fixtures.table import Table, make_character, message_text, start_campaign
from tests.scenarios.test_secrecy import _latest
from tests.scripted import ScriptedRandom

KEEP = "Keep the critical"
TRADE = "Take a Normal success + a fortune die"
TRADE_LUCK = "Take a 10 (lucky) + a fortune die"
REROLL = "Spend a fortune die: reroll"


def labels(message: Any) -> list[str]:
    """The labels of every button on a message."""
    found: list[str] = []

    def walk(components: list[dict[str, Any]]) -> None:
        for component in components:
            if component.get("type") == 2:
                found.append(str(component.get("label")))
            walk(component.get("components") or [])

    walk(list(message.components))
    return found


async def fortune_of(table: Table, name: str) -> int:
    async with table.bot.db.sessionmaker() as session:
        value = await session.scalar(select(characters.c.fortune).where(characters.c.name == name))
    assert value is not None
    return int(value)


async def ledger_kinds(table: Table) -> list[str]:
    async with table.bot.db.sessionmaker() as session:
        return list(await session.scalars(select(ledger.c.kind).order_by(ledger.c.id)))


async def pd_table(table: Table, dex: int = 12) -> None:
    await start_campaign(table, "pen-and-dagger")
    if dex <= 19:
        await make_character(table, table.alice, "Angus", {"DEX": dex})
        return
    # Above 19 only past 1st level (Pen & Dagger ruling 8).
    await make_character(table, table.alice, "Angus", {})
    await table.alice.slash(table.table, "character level", value=5)
    done = await table.alice.slash(table.table, "character set", ability="DEX", value=dex)
    assert done.response is not None and "Score saved" in done.response.content


async def give(table: Table, name: str, count: int = 1) -> str:
    result = await table.gm.slash(table.table, "fortune give", character=name, count=count)
    assert result.response is not None
    return message_text(result.response)


async def check(table: Table, rng: ScriptedRandom, *faces: int, **options: Any) -> Any:
    rng.faces.extend(faces)
    result = await table.alice.slash(table.table, "check", ability="DEX", **options)
    assert result.response is not None and not result.ephemeral
    assert not rng.faces, "every scripted face was used"
    return result.response


# --- natural 20 (ruling 5) ---------------------------------------------------------------------


async def test_natural_20_traded_for_a_normal_success_and_a_fortune_die(
    table: Table, rng: ScriptedRandom
) -> None:
    await pd_table(table)
    message = await check(table, rng, 20)
    assert "Critical Success" in message_text(message)
    assert labels(message) == [KEEP, TRADE]

    clicked = await table.alice.click(message, label=TRADE)
    assert clicked.response is not None
    text = message_text(clicked.response)
    assert "Normal Success" in text and "traded for a Normal Success" in text
    assert "1 of 2 fortune dice" in text
    assert labels(clicked.response) == []  # the buttons go away once chosen
    # The footer names both rolls by their public numbers and shows the chain head.
    footer = clicked.response.embeds[0].footer.text or ""
    assert re.search(r"roll #\d+ · trade roll #\d+ · log [0-9a-f]{12}$", footer), footer
    assert await fortune_of(table, "Angus") == 1
    assert (await ledger_kinds(table))[-2:] == ["attempt", "trade"]

    shown = await table.alice.slash(table.table, "fortune show")
    assert shown.ephemeral and "Angus** has 1 of 2 fortune dice" in message_text(shown.response)


async def test_natural_20_kept_as_a_critical_changes_no_dice(
    table: Table, rng: ScriptedRandom
) -> None:
    await pd_table(table)
    message = await check(table, rng, 20)

    refused = await table.bob.click(message, label=TRADE)
    assert refused.ephemeral
    assert "Only Angus's player can choose" in message_text(refused.response)
    assert await fortune_of(table, "Angus") == 0

    clicked = await table.alice.click(message, label=KEEP)
    assert clicked.response is not None
    text = message_text(clicked.response)
    assert "Critical Success" in text and "kept as a critical" in text
    assert labels(clicked.response) == []
    assert await fortune_of(table, "Angus") == 0
    assert (await ledger_kinds(table))[-1] == "keep"


async def test_luck_roll_natural_20_trade_is_a_lucky_10(table: Table, rng: ScriptedRandom) -> None:
    await pd_table(table)
    rng.faces.append(20)
    result = await table.alice.slash(table.table, "luck")
    assert result.response is not None
    assert labels(result.response) == [KEEP, TRADE_LUCK]
    clicked = await table.alice.click(result.response, label=TRADE_LUCK)
    assert clicked.response is not None
    text = message_text(clicked.response)
    assert "Lucky" in text and "treated as a 10" in text
    assert await fortune_of(table, "Angus") == 1


async def test_natural_20_at_the_maximum_offers_no_trade(table: Table, rng: ScriptedRandom) -> None:
    await pd_table(table)
    assert "now 2 of 2" in await give(table, "Angus", 2)
    message = await check(table, rng, 20)
    assert labels(message) == []  # ruling 5: a trade only "if below their maximum"
    assert "you may trade" not in message_text(message)


async def test_choice_survives_a_restart_and_is_made_once(
    table: Table, rng: ScriptedRandom
) -> None:
    await pd_table(table)
    message = await check(table, rng, 20)
    await table.env.restart_bot()

    clicked = await table.alice.click(message, label=TRADE)
    assert clicked.response is not None and "Normal Success" in message_text(clicked.response)
    assert await fortune_of(table, "Angus") == 1
    async with table.bot.db.sessionmaker() as session:
        chosen = await session.scalar(select(func.count()).select_from(fortune_choices))
    assert chosen == 1


# --- fortune-die reroll (ruling 6) -------------------------------------------------------------


def _level(rank: pd.Rank, face: int) -> pd.SuccessLevel:
    return pd.final_level(rank, face, pd.Reliability.NONE)


async def test_reroll_shows_every_reroll_and_spends_one_die(
    table: Table, rng: ScriptedRandom
) -> None:
    await pd_table(table)
    rank = pd.ability_rank(12)
    await give(table, "Angus")
    # A face that can improve, then two rerolls: one no better, one better.
    low = 2
    better = next(f for f in range(low + 1, 21) if _level(rank, f) > _level(rank, low))
    message = await check(table, rng, low)
    assert labels(message) == [REROLL]

    rng.faces.extend([low, better])
    clicked = await table.alice.click(message, label=REROLL)
    assert clicked.response is not None
    text = message_text(clicked.response)
    assert "Rerolls (2)" in text
    assert f"1. **{low}** → {_level(rank, low).display_name}" in text
    assert f"2. **{better}** → {_level(rank, better).display_name}" in text
    assert "0 of 2 fortune dice left" in text
    assert await fortune_of(table, "Angus") == 0
    assert (await ledger_kinds(table))[-1] == "reroll"


async def test_two_messages_and_two_clicks_spend_only_the_die_held(
    table: Table, rng: ScriptedRandom
) -> None:
    await pd_table(table)
    await give(table, "Angus")
    first = await check(table, rng, 2)
    second = await check(table, rng, 2)
    assert labels(first) == labels(second) == [REROLL]

    rng.faces.extend([20])
    done = await table.alice.click(first, label=REROLL)
    assert done.response is not None and "Reroll (1)" in message_text(done.response)
    again = await table.alice.click(second, label=REROLL)
    assert again.ephemeral and "Angus has no fortune dice left" in message_text(again.response)
    assert await fortune_of(table, "Angus") == 0
    assert (await ledger_kinds(table)).count("reroll") == 1


async def test_refused_rerolls_spend_nothing_and_say_why(table: Table, rng: ScriptedRandom) -> None:
    await pd_table(table, dex=40)
    rank = pd.ability_rank(40)
    best = pd.best_reachable_level(rank)
    top = min(f for f in range(1, 20) if _level(rank, f) == best)
    await give(table, "Angus")

    natural_1 = await check(table, rng, 1)
    assert labels(natural_1) == []  # no reroll button on a natural 1
    refused = await table.alice.slash(table.table, "fortune spend", purpose="reroll")
    assert refused.ephemeral
    text = message_text(refused.response)
    assert "natural 1 cannot be rerolled" in text and "No fortune die was spent" in text
    assert await fortune_of(table, "Angus") == 1

    at_best = await check(table, rng, top)
    assert labels(at_best) == []
    refused = await table.alice.slash(table.table, "fortune spend", purpose="reroll")
    assert refused.ephemeral
    text = message_text(refused.response)
    assert "already the best result" in text and "No fortune die was spent" in text
    assert await fortune_of(table, "Angus") == 1
    assert "reroll" not in await ledger_kinds(table)


async def test_fortune_spend_reroll_rerolls_the_latest_roll(
    table: Table, rng: ScriptedRandom
) -> None:
    await pd_table(table)
    await give(table, "Angus")
    await check(table, rng, 2)
    rng.faces.append(19)
    result = await table.alice.slash(table.table, "fortune spend", purpose="reroll")
    assert result.response is not None and not result.ephemeral
    assert "Reroll (1)" in message_text(result.response)
    assert await fortune_of(table, "Angus") == 0


# --- /fortune spend | give | take, /character boon --------------------------------------------


async def test_spend_records_purpose_and_note(table: Table) -> None:
    await pd_table(table)
    await give(table, "Angus")
    result = await table.alice.slash(
        table.table, "fortune spend", purpose="hint", note="which door?"
    )
    assert result.response is not None
    assert "spends a fortune die on a hint: which door?" in message_text(result.response)
    async with table.bot.db.sessionmaker() as session:
        row = (await session.execute(select(ledger).order_by(ledger.c.id.desc()))).first()
    assert row is not None
    assert row.outcome["purpose"] == "hint" and row.outcome["note"] == "which door?"
    empty = await table.alice.slash(table.table, "fortune spend", purpose="item")
    assert empty.ephemeral and "no fortune dice left" in message_text(empty.response)


async def test_give_and_take_respect_the_limits_with_and_without_the_boon(table: Table) -> None:
    await pd_table(table)
    assert "now 2 of 2" in await give(table, "Angus", 2)
    over = await table.gm.slash(table.table, "fortune give", character="Angus")
    assert over.ephemeral and "already has the maximum of 2" in message_text(over.response)
    assert await fortune_of(table, "Angus") == 2

    player = await table.bob.slash(table.table, "fortune give", character="Angus")
    assert player.ephemeral and "Only the campaign's GM" in message_text(player.response)
    player = await table.alice.slash(
        table.table, "character boon", double_fortune=True, character="Angus"
    )
    assert player.ephemeral and "Only the campaign's GM" in message_text(player.response)

    boon = await table.gm.slash(
        table.table, "character boon", double_fortune=True, character="Angus"
    )
    assert boon.response is not None and "up to 4" in message_text(boon.response)
    too_many = await table.gm.slash(table.table, "fortune give", character="Angus", count=3)
    assert too_many.ephemeral and "at most 2" in message_text(too_many.response)
    assert await fortune_of(table, "Angus") == 2
    assert "now 4 of 4" in await give(table, "Angus", 2)
    over = await table.gm.slash(table.table, "fortune give", character="Angus")
    assert over.ephemeral and "already has the maximum of 4" in message_text(over.response)

    off = await table.gm.slash(
        table.table, "character boon", double_fortune=False, character="Angus"
    )
    assert off.response is not None
    assert "loses 2 fortune dice" in message_text(off.response)
    assert await fortune_of(table, "Angus") == 2

    over_take = await table.gm.slash(table.table, "fortune take", character="Angus", count=3)
    assert over_take.ephemeral and "at most 2" in message_text(over_take.response)
    took = await table.gm.slash(table.table, "fortune take", character="Angus", count=2)
    assert took.response is not None and "now 0 of 2" in message_text(took.response)
    none_left = await table.gm.slash(table.table, "fortune take", character="Angus")
    assert none_left.ephemeral and "no fortune dice to take" in message_text(none_left.response)
    assert await fortune_of(table, "Angus") == 0


async def test_fortune_spend_reroll_skips_the_gms_rolls_for_the_character(
    table: Table, rng: ScriptedRandom
) -> None:
    await pd_table(table)
    await give(table, "Angus")
    await check(table, rng, 2)
    mine_id = (await _latest(table)).id
    rng.faces.append(3)
    gm_roll = await table.gm.slash(
        table.table, "gm check", character="Angus", ability="DEX", secret="public"
    )
    assert gm_roll.response is not None
    rng.faces.append(19)
    result = await table.alice.slash(table.table, "fortune spend", purpose="reroll")
    assert result.response is not None and not result.ephemeral, message_text(result.response)
    assert f"reroll of roll #{mine_id}" in message_text(result.response)
    assert await fortune_of(table, "Angus") == 0


# --- hidden rolls and the fortune dice everyone can see (README "Fortune dice") ---------------


async def test_a_blind_natural_20_offers_no_choice_and_changes_no_dice(
    table: Table, rng: ScriptedRandom
) -> None:
    """Offering keep / trade would tell the roller it was a natural 20: it stays a critical."""
    await pd_table(table)
    rng.faces.append(20)
    rolled = await table.alice.slash(table.table, "check", ability="DEX", secret="blind")
    for message in [rolled.response, *rolled.followups]:
        assert labels(message) == []
    assert await fortune_of(table, "Angus") == 0
    for viewer in (table.alice, table.bob):
        shown = await viewer.slash(table.table, "fortune show", character="Angus")
        assert "Angus** has 0 of 2 fortune dice" in message_text(shown.response)


async def test_viewers_of_sheets_see_nothing_of_a_hidden_roll(
    table: Table, rng: ScriptedRandom
) -> None:
    await pd_table(table)
    await table.alice.slash(table.table, "party add", character="Angus")
    before = {}
    for command in ("character show", "party show", "fortune show"):
        options = {"name": "Angus"} if command == "character show" else {}
        shown = await table.bob.slash(table.table, command, **options)
        before[command] = message_text(shown.response)
    for mode in ("gm", "blind", "self"):
        rng.faces.append(17)
        await table.alice.slash(table.table, "check", ability="DEX", secret=mode)
        for command, earlier in before.items():
            options = {"name": "Angus"} if command == "character show" else {}
            shown = await table.bob.slash(table.table, command, **options)
            assert message_text(shown.response) == earlier, (mode, command)
