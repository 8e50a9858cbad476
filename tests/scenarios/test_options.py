"""The options every check command shares: the GM's /gm check and /odds check take every option
a player's /check has.

Tests bot/cogs/_options.py.
"""

from __future__ import annotations

from tests.fixtures.table import Table, make_character, message_text, start_campaign


async def test_the_gm_rolls_a_players_attempt_with_every_option_the_player_has(
    table: Table,
) -> None:
    # Ruling 9: the GM rolls with the player's stored rank; reliability is part of an attempt.
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"WIS": 14})  # Adept
    table.dice(12)  # Adept 12: Normal; reliable -> Major
    result = await table.gm.slash(
        table.table, "gm check", character="Angus", ability="WIS", reliable=True, secret="public"
    )
    assert result.response is not None
    text = message_text(result.response)
    assert "Angus: WIS attempt" in text and "**Major Success**" in text


async def test_odds_and_gm_checks_take_the_helper_like_check(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Keegan", {"DEX": 10})
    await make_character(table, table.bob, "Brannoc", {"DEX": 10})
    odds = await table.alice.slash(
        table.table, "odds check", ability="DEX", dc=11, helper="brannoc"
    )
    assert odds.response is not None
    # Working together: advantage; P(max of two d20 >= 11) = 1 - (10/20)^2 = 3/4.
    assert "exactly 3/4" in message_text(odds.response)
    unknown = await table.alice.slash(table.table, "odds check", ability="DEX", helper="Nobody")
    assert unknown.response is not None and "No character named “Nobody”" in message_text(
        unknown.response
    )
    table.dice(4, 15)
    helped = await table.gm.slash(
        table.table,
        "gm check",
        character="Keegan",
        ability="DEX",
        helper="Brannoc",
        secret="public",
    )
    assert helped.response is not None
    text = message_text(helped.response)
    assert "helped by Brannoc" in text and "~~4~~, **15** (advantage)" in text
