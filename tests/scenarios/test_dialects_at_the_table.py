"""Dice dialects at the table (docs/dice.md, "Dialects"): a player's /me dice choice, the
campaign default its GM sets, the answer naming the dialect when it changed a reading, and
the same reading in /roll, `[[…]]` inline rolls and macros.

Tests bot/services/rolling/dialects.py.
"""

from __future__ import annotations

from typing import Any

from bot.services.trust import privacy
from tests.fixtures.table import Table, make_character, message_text, start_campaign
from tests.scenarios.test_inline_rolls import roll_inline, rows


async def _last(table: Table) -> Any:
    """The newest ledger row, in a campaign or not."""
    return (await rows(table))[-1]


async def test_a_player_keeps_roll20_habits_and_the_answer_says_so(table: Table) -> None:
    table.dice(4, 5, 1, 6)
    plain = await table.alice.slash(table.table, "roll", dice="4d6>4")
    text = message_text(plain.response)
    assert "Roll20 counts 4 too: write `>=4`" in text
    assert (await _last(table)).outcome["total"] == 2  # 5 and 6: more than 4

    chosen = await table.alice.slash(table.table, "me dice", dialect="roll20")
    assert chosen.ephemeral and "Roll20 way" in chosen.response.content
    assert "`10d6>4`: `>4` and `<2` include the number" in chosen.response.content
    table.dice(4, 5, 1, 6)
    rolled = await table.alice.slash(table.table, "roll", dice="4d6>4")
    text = message_text(rolled.response)
    assert "Roll20 dialect: read `>4` as 4 or more" in text
    row = await _last(table)
    assert row.outcome["total"] == 3 and row.outcome["expression"] == "4d6>=4"

    # Bob chose nothing: his 4d6>4 is still strict.
    table.dice(4, 5, 1, 6)
    await table.bob.slash(table.table, "roll", dice="4d6>4")
    assert (await _last(table)).outcome["total"] == 2


async def test_the_gm_sets_the_campaign_default_and_a_players_choice_wins(table: Table) -> None:
    await start_campaign(table, "d20-check")
    refused = await table.alice.slash(
        table.table, "campaign set dice-dialect", dialect="dice-maiden"
    )
    assert refused.ephemeral and "Only the campaign's GM" in refused.response.content
    done = await table.gm.slash(table.table, "campaign set dice-dialect", dialect="dice-maiden")
    assert "dice dialect dice-maiden" in done.response.content

    table.dice(1)
    rolled = await table.alice.slash(table.table, "roll", dice="1d1 + 2 * 3")
    assert (await _last(table)).outcome["total"] == 9
    assert "Dice Maiden dialect: worked out left to right" in message_text(rolled.response)

    await table.bob.slash(table.table, "me dice", dialect="pbp")
    table.dice(1)
    rolled = await table.bob.slash(table.table, "roll", dice="1d1 + 2 * 3")
    assert (await _last(table)).outcome["total"] == 7
    assert "Dice Maiden goes left to right" in message_text(rolled.response)

    back = await table.bob.slash(table.table, "me dice", dialect="campaign")
    assert "campaign's dialect" in back.response.content
    table.dice(1)
    await table.bob.slash(table.table, "roll", dice="1d1 + 2 * 3")
    assert (await _last(table)).outcome["total"] == 9


async def test_inline_rolls_and_macros_read_the_players_dialect(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    await table.alice.slash(table.table, "me dice", dialect="avrae")
    table.dice(3, 5, 3, 1)
    rolled = await roll_inline(table, table.alice, "I roll [[4d6k3]] for luck")
    (roll,) = rolled.rolls
    assert roll.total == "6"  # Avrae's k3 keeps the dice showing 3
    assert "Avrae dialect: read `k3` as keep the dice showing 3" in roll.detail

    refused = await table.alice.slash(table.table, "macro save", name="dmg", roll="roll 1d6adv")
    assert refused.ephemeral and "Avrae's advantage applies to d20s" in refused.response.content
    saved = await table.alice.slash(table.table, "macro save", name="dmg", roll="roll 4d6k3")
    assert not saved.response.content.startswith("Only")
    table.dice(3, 5, 3, 1)
    await table.alice.slash(table.table, "macro run", name="dmg")
    assert (await _last(table)).outcome["total"] == 6


async def test_privacy_show_lists_the_dialect_a_player_chose(table: Table) -> None:
    before = await table.alice.slash(table.table, "privacy show")
    assert "Dice dialect" not in message_text(before.response)
    await table.alice.slash(table.table, "me dice", dialect="roll20")
    shown = await table.alice.slash(table.table, "privacy show")
    assert "Dice dialect: roll20" in message_text(shown.response)


async def test_erasing_a_players_data_forgets_their_dialect(table: Table) -> None:
    await table.alice.slash(table.table, "me dice", dialect="roll20")
    done = await privacy.erase_user(table.bot.db, table.alice.user.id, None)
    del done
    table.dice(4, 5, 1, 6)
    await table.alice.slash(table.table, "roll", dice="4d6>4")
    assert (await _last(table)).outcome["total"] == 2


async def test_odds_follow_the_players_dialect(table: Table) -> None:
    plain = await table.alice.slash(table.table, "odds roll", dice="1d6>4", at_least=1)
    assert "33.3" in message_text(plain.response)  # 5 or 6
    await table.alice.slash(table.table, "me dice", dialect="roll20")
    wide = await table.alice.slash(table.table, "odds roll", dice="1d6>4", at_least=1)
    assert "50.0" in message_text(wide.response)  # 4, 5 or 6
