"""How a player wants the game clock's pings: in the channel until they choose, then their
choice, the same in every server, and forgotten only by an erasure everywhere.

Tests bot/services/table/notify.py.
"""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue
from bot.services.table import notify
from bot.words import NotifyMode
from tests.services.helpers import ALICE, BOB, CHANNEL, GUILD


def _caller(user_id: int, guild_id: int = GUILD) -> Caller:
    return Caller(user_id, CHANNEL, guild_id)


async def test_without_a_choice_a_player_is_pinged_in_the_channel(db: Database) -> None:
    assert await notify.get_mode(db, ALICE) == NotifyMode.CHANNEL


async def test_a_choice_is_kept_changed_and_read_for_many_players_at_once(db: Database) -> None:
    assert await notify.set_mode(db, _caller(ALICE), NotifyMode.DM) == NotifyMode.DM
    assert await notify.get_mode(db, ALICE) == NotifyMode.DM
    await notify.set_mode(db, _caller(ALICE, GUILD + 1), NotifyMode.OFF)  # another server
    assert await notify.get_mode(db, ALICE) == NotifyMode.OFF  # one choice everywhere
    async with db.engine.connect() as connection:
        found = await notify.modes_in(connection, [ALICE, BOB, ALICE])
    assert found == {ALICE: NotifyMode.OFF, BOB: NotifyMode.CHANNEL}


async def test_a_mode_it_does_not_know_is_refused_and_changes_nothing(db: Database) -> None:
    await notify.set_mode(db, _caller(ALICE), NotifyMode.DM)
    with pytest.raises(InvalidValue, match="Choose channel, dm or off"):
        await notify.set_mode(db, _caller(ALICE), "pigeon")
    assert await notify.get_mode(db, ALICE) == NotifyMode.DM
