"""A message's dice roll once: keyed on the Discord message's id, never on its text."""

from __future__ import annotations

from tests.fixtures.table import (
    Table,
    answered_ephemeral,
    final_answer,
    make_character,
    start_campaign,
)
from tests.scenarios.test_inline_rolls import MENU, rows


async def test_a_padded_4000_character_message_rolls_once(table: Table) -> None:
    # The finding: the once-check matched the recorded request, cut to 4,000 characters; a
    # roll padded with newlines inside its brackets pushed the message's link out of it.
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"DEX": 14})
    text = "[[1d20" + "\n" * 3990 + "+0]]"
    assert len(text) <= 4000  # Discord's limit for a member with Nitro
    message = await table.alice.send(table.table, "[[1d20+0]]")
    # SimCord holds members to the 2,000 characters of a member without Nitro: the stored
    # message is given its Nitro-length text, which the context menu then carries.
    table.env.backend.messages[table.table.id][message.id].content = text
    first = await table.alice.context_menu(table.table, MENU, message)
    assert not answered_ephemeral(first)
    (recorded,) = await rows(table)
    for _ in range(3):
        again = await table.alice.context_menu(table.table, MENU, message)
        assert answered_ephemeral(again)
        assert f"rolled already (roll #{recorded.number})" in final_answer(again).content
    assert len(await rows(table)) == 1


async def test_two_messages_with_the_same_text_each_roll_once(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"DEX": 14})
    one = await table.alice.send(table.table, "[[1d20]]")
    two = await table.alice.send(table.table, "[[1d20]]")
    for message in (one, two, one, two):
        await table.alice.context_menu(table.table, MENU, message)
    assert len(await rows(table)) == 2
