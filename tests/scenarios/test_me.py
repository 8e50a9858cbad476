"""/me: a player's own settings, answered to them alone in words they can check: where the
game clock's pings reach them, and which bot's habits their dice notation follows.

Tests bot/cogs/me.py.
"""

from __future__ import annotations

from bot.services.rolling import dialects
from bot.services.table import notify
from bot.words import NotifyMode
from tests.fixtures.table import Table


async def test_me_notify_says_where_pings_will_reach_the_player_and_keeps_it(
    table: Table,
) -> None:
    said = await table.alice.slash(table.table, "me notify", how="dm")
    assert said.ephemeral and said.response is not None
    assert said.response.content.startswith("Reminders and turn pings will come by direct message")
    assert await notify.get_mode(table.bot.db, table.alice.id) == NotifyMode.DM
    off = await table.alice.slash(table.table, "me notify", how="off")
    assert off.response is not None and "/me notify channel" in off.response.content


async def test_me_dice_lists_what_the_chosen_dialect_reads_differently(table: Table) -> None:
    said = await table.bob.slash(table.table, "me dice", dialect="roll20")
    assert said.ephemeral and said.response is not None
    text = said.response.content
    assert text.startswith("Your dice are read the ") and "\n- `" in text
    back = await table.bob.slash(table.table, "me dice", dialect=dialects.CAMPAIGN)
    assert back.response is not None
    assert back.response.content == (
        "Your dice now follow the campaign's dialect (pbp outside campaigns)."
    )
