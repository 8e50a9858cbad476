"""A natural 20 is its character's player's to keep or trade, whoever rolled it; the roll is
credited to the character and to who rolled it, in words (Pen & Dagger rulings 5 and 6)."""

from __future__ import annotations

from bot.cogs._views.fortune import TRADE_LABEL
from tests.fixtures.table import (
    Table,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)


async def test_the_natural_20_of_a_gms_hidden_check_is_the_characters_players_choice(
    table: Table,
) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 12})
    table.dice(20)
    await table.gm.slash(table.table, "gm check", character="Angus", ability="DEX")
    copy = [m for m in table.gm_channel.history() if m.embeds][-1]
    number = int(message_text(copy).split("roll #")[1].split()[0].strip("·"))
    shown = await table.gm.slash(table.table, "reveal", roll=number)
    reveal = final_answer(shown)
    # Credited to the character and to the GM who rolled it, in words: not "Angus (@gm)".
    assert f"Angus (rolled by <@{table.gm.id}>)" in message_text(reveal)
    # The GM who rolled it may not choose; the character's player may.
    refused = await table.gm.click(reveal, label=TRADE_LABEL)
    assert refused.ephemeral and "Only Angus's player can choose" in message_text(refused.response)
    traded = await table.alice.click(reveal, label=TRADE_LABEL)
    assert "traded for a Normal Success and a fortune die" in message_text(final_answer(traded))
