"""A choice stored as one row per key: made, then changed in place with its stamp; a player's
is shown as a setting and deleted by an erasure everywhere only, one server's leaving it.

Tests bot/services/store/choices.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from bot.db.engine import Database
from bot.db.models import notify_settings
from bot.services.kit.personal import DELETED, Person, Shown
from bot.services.kit.sql import transaction
from bot.services.store import choices
from tests.services.helpers import ALICE, BOB, GUILD

T0 = datetime(2026, 1, 1, tzinfo=UTC)


async def _store(db: Database, user_id: int, mode: str, now: datetime) -> None:
    async with transaction(db) as session:
        await choices.store_in(session, notify_settings, {"user_id": user_id}, {"mode": mode}, now)


async def test_a_choice_is_made_then_changed_in_place_with_its_stamp(db: Database) -> None:
    await _store(db, ALICE, "dm", T0)
    await _store(db, ALICE, "off", T0 + timedelta(hours=1))
    await _store(db, BOB, "dm", T0)
    async with transaction(db) as session:
        rows = (await session.execute(select(notify_settings).order_by("user_id"))).all()
        assert await choices.player_value_in(session, notify_settings.c.mode, ALICE) == "off"
        assert await choices.player_value_in(session, notify_settings.c.mode, 404) is None
    assert [(r.user_id, r.mode) for r in rows] == [(ALICE, "off"), (BOB, "dm")]
    assert rows[0].updated_at.replace(tzinfo=UTC) == T0 + timedelta(hours=1)


async def test_a_players_choice_goes_with_an_erasure_everywhere_only(db: Database) -> None:
    await _store(db, ALICE, "dm", T0)
    await _store(db, BOB, "dm", T0)
    data = choices.player_choice("a choice", notify_settings.c.mode, "pings", exported="never")
    assert [(h.table, h.changes) for h in data.holdings] == [("notify_settings", DELETED)]
    shown = Shown(ALICE, None)
    async with transaction(db) as session:
        assert data.show_in is not None and data.erase is not None
        await data.show_in(session, shown)
    assert shown.settings == {"pings": "dm"}
    assert await data.erase(db, Person(ALICE, GUILD, set(), {})) == 0  # one server's
    assert await data.erase(db, Person(ALICE, None, set(), {})) == 1  # everywhere
    async with transaction(db) as session:
        left = await session.scalar(select(func.count()).select_from(notify_settings))
        assert await choices.player_value_in(session, notify_settings.c.mode, ALICE) is None
    assert left == 1  # Bob's
