"""/privacy show and /privacy delete through SimCord, on SQLite and PostgreSQL.

Tests bot/render/privacy.py.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from simcord.backend.errors import SetupError
from sqlalchemy import select

from bot.cogs.privacy import erase_view
from bot.db.schema import metadata
from bot.services.store.campaigns import campaign_for_channel
from bot.services.trust import gamelog, privacy
from tests.fixtures.table import Table, make_character, message_text, start_campaign


class _Click:
    """The little of an interaction ConfirmView.allowed reads: who clicked, a way to answer."""

    def __init__(self, user_id: int) -> None:
        self.user = SimpleNamespace(id=user_id)
        self.said: list[str] = []
        self.extras: dict[str, Any] = {}
        self.response = SimpleNamespace(send_message=self._send, type=None, is_done=lambda: False)

    async def _send(self, content: str, **_: Any) -> SimpleNamespace:
        self.said.append(content)
        return SimpleNamespace(message_id=None)


async def _everything(table: Table) -> str:
    """Every value of every table, as one text to search."""
    values = []
    async with table.bot.db.sessionmaker() as session:
        for each in metadata.sorted_tables:
            for row in await session.execute(select(each)):
                values += [json.dumps(v, default=str) for v in row if v is not None]
    return "\n".join(values)


async def _play(table: Table) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"WIT": 6})
    await make_character(table, table.bob, "Brannoc", {"WIT": 9})
    table.dice(3, 15, 12)
    await table.alice.slash(table.table, "check", ability="WIT")
    await table.alice.slash(table.table, "roll", dice="1d20", label="Sybilla's hunch")
    blind = await table.alice.slash(table.table, "roll", dice="1d20", secret="blind")
    assert blind.response is not None
    await table.bob.slash(table.table, "check", ability="WIT")


async def test_show_lists_my_data_privately(table: Table) -> None:
    await _play(table)
    shown = await table.alice.slash(table.table, "privacy show")
    assert shown.ephemeral and shown.response is not None
    text = message_text(shown.response)
    assert "Sybilla" in text and "WIT 6" in text and "3 rolls" in text
    assert "Brannoc" not in text
    assert "docs/privacy.md" in text


async def test_delete_asks_first_and_only_the_asker_can_confirm(table: Table) -> None:
    await _play(table)
    before = await _everything(table)
    asked = await table.alice.slash(table.table, "privacy delete")
    assert asked.ephemeral and asked.response is not None
    assert "cannot be undone" in asked.response.content
    # Someone else pressing the button is refused, and nothing changes.
    # Someone else cannot even see the private question to press its button...
    with pytest.raises(SetupError, match="not visible"):
        await table.bob.click(asked.response, label="Erase my data")
    # ...and were a click of theirs to arrive, the view refuses it.
    view = erase_view(table.bot.db, table.alice.user.id, table.guild.id, ["Sybilla"])
    click = _Click(table.bob.user.id)
    assert await view.allowed(click) is False  # type: ignore[arg-type]
    assert click.said and "Only the person who asked" in click.said[0]
    assert await _everything(table) == before
    # Cancelling changes nothing either.
    cancelled = await table.alice.click(asked.response, label="Cancel")
    assert cancelled.response is not None and "nothing changed" in cancelled.response.content
    assert await _everything(table) == before

    asked = await table.alice.slash(table.table, "privacy delete")
    assert asked.response is not None
    done = await table.alice.click(asked.response, label="Erase my data")
    assert done.response is not None and "erased" in done.response.content
    after = await _everything(table)
    alice = table.alice.user
    for trace in (str(alice.id), "Sybilla", alice.name):
        assert trace not in after, trace
    assert "Brannoc" in after and str(table.bob.user.id) in after
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    assert (await gamelog.check_campaign_log(table.bot.db, campaign)).intact
    logged = await table.bob.slash(table.table, "verify", log=True)
    assert logged.response is not None and "intact" in message_text(logged.response).lower()
    shown = await table.alice.slash(table.table, "privacy show")
    assert shown.response is not None and "Nothing stored" in message_text(shown.response)


async def test_delete_in_a_direct_message_erases_everywhere(table: Table) -> None:
    await _play(table)
    asked = await table.alice.user.slash("privacy delete")
    assert asked.response is not None and "everywhere" in asked.response.content
    done = await table.alice.user.click(asked.response, label="Erase my data")
    assert done.response is not None and "everywhere" in done.response.content
    assert (await privacy.stored_data(table.bot.db, table.alice.user.id)).empty
    assert "Sybilla" not in await _everything(table)


async def test_asking_without_confirming_changes_nothing(table: Table) -> None:
    await _play(table)
    before = await _everything(table)
    asked = await table.alice.slash(table.table, "privacy delete")
    assert asked.response is not None and "Erase your data" in asked.response.content
    await table.env.restart_bot()  # the question is never answered (it times out)
    assert await _everything(table) == before


async def test_turn_orders_and_the_notify_setting_are_erased_too(table: Table) -> None:
    # The game clock's tables (docs/clock.md) hold a player's id, character name and a setting.
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"AGI": 10})
    await make_character(table, table.bob, "Brannoc", {"AGI": 9})
    await table.alice.slash(table.table, "me notify", how="dm")
    started = await table.gm.slash(table.table, "turns start", characters="Sybilla, Brannoc")
    assert started.response is not None and not started.ephemeral
    shown = await table.alice.slash(table.table, "privacy show")
    text = message_text(shown.response)
    assert "1 turn orders" in text and "a direct message" in text
    in_server = await table.alice.slash(table.table, "privacy delete")
    await table.alice.click(in_server.response, label="Erase my data")
    everything = await _everything(table)
    assert "Sybilla" not in everything, [v for v in everything.splitlines() if "Sybilla" in v]
    stored = await privacy.stored_data(table.bot.db, table.alice.user.id)
    assert stored.servers == () and stored.notify == "dm"
    # Brannoc's turn goes on: the order keeps its place, the erased entry shows the tombstone.
    shown = await table.bob.slash(table.table, "turns show")
    order = message_text(shown.response)
    assert "**Brannoc**" in order and "**\\[erased\\]** (an erased player)" in order
    asked = await table.alice.user.slash("privacy delete")
    await table.alice.user.click(asked.response, label="Erase my data")
    assert (await privacy.stored_data(table.bot.db, table.alice.user.id)).empty
    assert str(table.alice.user.id) not in await _everything(table)
