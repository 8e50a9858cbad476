"""How each player wants the game clock's pings (``/me notify``): channel, DM, or off."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import notify_settings
from bot.db.types import utcnow
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue
from bot.services.kit.personal import declare
from bot.services.kit.sql import Executor, transaction
from bot.services.store import choices
from bot.words import NotifyMode

#: Without a choice a player is pinged in the channel, where the game is.
DEFAULT_MODE = NotifyMode.CHANNEL


async def set_mode(db: Database, caller: Caller, mode: str) -> str:
    """Store the caller's choice; returns it."""
    if mode not in set(NotifyMode):
        raise InvalidValue("Choose channel, dm or off.")
    async with transaction(db) as session:
        mine = {"user_id": caller.user_id}
        await choices.store_in(session, notify_settings, mine, {"mode": mode}, utcnow())
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


#: The setting is the same in every server: it goes with an erasure everywhere only.
PERSONAL_DATA = declare(
    choices.player_choice(
        "notify", notify_settings.c.mode, "notify", exported="never: it is not a campaign's"
    )
)
