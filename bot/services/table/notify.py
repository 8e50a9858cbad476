"""How each player wants the game clock's pings (``/me notify``): channel, DM, or off."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete, select

from bot.db.engine import Database
from bot.db.models import notify_settings
from bot.db.types import utcnow
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue
from bot.services.kit.personal import (
    DELETED,
    Holding,
    Person,
    PersonalData,
    Shown,
    changed,
    declare,
    each_in_its_transaction,
)
from bot.services.kit.sql import Executor, insert_for, transaction
from bot.words import NotifyMode

#: Without a choice a player is pinged in the channel, where the game is.
DEFAULT_MODE = NotifyMode.CHANNEL


async def set_mode(db: Database, caller: Caller, mode: str) -> str:
    """Store the caller's choice; returns it."""
    if mode not in set(NotifyMode):
        raise InvalidValue("Choose channel, dm or off.")
    async with transaction(db) as session:
        now = utcnow()
        await session.execute(
            insert_for(session, notify_settings)
            .values(user_id=caller.user_id, mode=mode, updated_at=now)
            .on_conflict_do_update(
                index_elements=["user_id"], set_={"mode": mode, "updated_at": now}
            )
        )
    return mode


async def get_mode(db: Database, user_id: int) -> str:
    """A player's choice, or the default."""
    async with transaction(db) as session:
        return (await modes_in(session, [user_id]))[user_id]


async def modes_in(session: Executor, user_ids: Iterable[int]) -> dict[int, str]:
    """In a caller's transaction: each player's choice (the default where none)."""
    wanted = list(dict.fromkeys(user_ids))
    found: dict[int, str] = {u: DEFAULT_MODE for u in wanted}
    if wanted:
        rows = await session.execute(
            select(notify_settings.c.user_id, notify_settings.c.mode).where(
                notify_settings.c.user_id.in_(wanted)
            )
        )
        found.update({int(r.user_id): str(r.mode) for r in rows})
    return found


# --- what /me notify keeps about a person (bot/services/kit/personal.py) ------------------------


async def _show_in(session: Executor, shown: Shown) -> None:
    shown.settings["notify"] = await session.scalar(
        select(notify_settings.c.mode).where(notify_settings.c.user_id == shown.user_id)
    )


async def _erase_in(session: Executor, person: Person) -> int:
    """The setting is the same in every server: it goes with an erasure everywhere only."""
    if person.guild_id is not None:
        return 0
    return changed(
        await session.execute(
            delete(notify_settings).where(notify_settings.c.user_id == person.user_id)
        )
    )


PERSONAL_DATA = declare(
    PersonalData(
        "notify",
        holdings=(Holding("notify_settings", "user_id (an erasure everywhere)", DELETED),),
        show_in=_show_in,
        erase=each_in_its_transaction(_erase_in),
        exported="never: it is not a campaign's",
    )
)
