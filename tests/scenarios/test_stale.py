"""Buttons and forms that outlived what the bot remembers are answered privately, with what to
do, and a form's text is given back.

Tests bot/cogs/stale.py.
"""

from __future__ import annotations

from tests.fixtures.table import (
    Table,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)
from tests.scenarios.test_posts import setup_table


async def test_an_expired_button_is_answered_privately_with_what_to_do(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    asked = await table.alice.slash(table.table, "character delete", name="Ayla")
    prompt = final_answer(asked)
    assert prompt.components, message_text(prompt)
    await table.env.advance_time(3600)  # the confirmation's time runs out
    late = await table.alice.click(prompt, label=prompt.components[0]["components"][0]["label"])
    assert late.response is not None and late.response.ephemeral
    assert "This button has expired" in late.response.content
    unhandled = {"command": "view", "outcome": "unhandled"}
    assert table.bot.ops.metrics.sample("pbp_commands_total", unhandled) == 1


async def test_a_form_sent_after_it_expired_gives_the_player_their_text(table: Table) -> None:
    await setup_table(table)
    shown = await table.alice.slash(table.table, "post")
    assert shown.modal is not None
    field = shown.modal["components"][0]["components"][0]
    await table.env.advance_time(2 * 3600)  # the form's half hour runs out while they write
    text = "Ayla waits by the gate, *watching* the road."
    late = await table.alice.submit_modal(shown, {field["custom_id"]: text})
    assert late.response is not None and late.response.ephemeral
    assert "This form expired" in late.response.content
    (attached,) = late.response.attachments
    assert attached.filename == "your-text.txt"
    assert (await attached.read()).decode() == text
    assert not [m for m in table.table.history() if m.webhook_id is not None]  # nothing posted
