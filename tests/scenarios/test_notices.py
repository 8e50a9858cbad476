"""The bot's own notices when a place refuses them: the GM's copy reaches the GM by DM when the GM
channel refuses it.

Tests bot/cogs/_notices.py.
"""

from __future__ import annotations

import pytest

from bot.permissions import bot_permissions
from tests.fixtures.places import (
    restrict_bot,
)
from tests.fixtures.table import Table, final_answer, message_text
from tests.scenarios.test_places import world

#: Discord's thread rules SimCord lacks (tests/fixtures/places.py).
pytestmark = pytest.mark.usefixtures("discord_thread_rules")


async def test_the_gm_copy_reaches_the_gm_by_dm_when_the_gm_channel_refuses(table: Table) -> None:
    without = bot_permissions()
    without.send_messages = False
    await world(table, "channel")
    restrict_bot(table, table.gm_channel, without)
    for _ in range(3):
        await table.alice.slash(table.table, "roll", dice="1d20", secret="blind")
    # The server owner set the campaign up: a known GM, who gets the copies by DM instead.
    backend = table.env.backend
    dm_id = backend.dm_channels.get(table.admin.id)
    assert dm_id is not None
    texts = [m.content or "" for m in backend.messages[dm_id].values()]
    assert sum("Hidden roll by" in t for t in texts) == 3  # every copy, by DM
    notes = [t for t in texts if "I could not post" in t]
    assert len(notes) == 1 and "**Send Messages**" in notes[0], notes  # why, once
    assert f"<#{table.gm_channel.id}>" in notes[0]
    log = final_answer(await table.gm.slash(table.table, "gm log"))
    assert "GM channel (sent by DM instead)" in message_text(log)
