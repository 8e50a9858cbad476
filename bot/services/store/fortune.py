"""Fortune dice (Pen & Dagger ruling 6): 0 to 2, or 0 to 4 with the boon, under any concurrency.

Every change is one atomic ``UPDATE ... WHERE <still in range> RETURNING``, never a
read-modify-write in Python; the ``ck_characters_fortune`` CHECK constraint backs the range.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Integer, bindparam, case, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import characters
from bot.services.kit.errors import (
    FortuneAtMaximum,
    InvalidValue,
    NoFortuneLeft,
    NotFound,
)
from bot.services.kit.sql import Executor, transaction
from bot.services.store.ledger import NewRoll, Origin, record_in
from bot.words import (
    BOON_FORTUNE_MAX,
    FORTUNE_MAX,
    FortuneAction,
    FortunePurpose,
    LedgerKind,
    Visibility,
    fortune_maximum,
)

_C = characters
_MAXIMUM = case((_C.c.double_fortune, BOON_FORTUNE_MAX), else_=FORTUNE_MAX)
_N = bindparam("n", type_=Integer)
#: Prebuilt, so the hot path only binds parameters.
_GAIN = (
    update(_C)
    .where(_C.c.id == bindparam("cid"), _C.c.fortune + _N <= _MAXIMUM)
    .values(fortune=_C.c.fortune + _N)
    .returning(_C.c.name, _C.c.fortune, _C.c.double_fortune)
)
_SPEND = (
    update(_C)
    .where(_C.c.id == bindparam("cid"), _C.c.fortune >= _N)
    .values(fortune=_C.c.fortune - _N)
    .returning(_C.c.name, _C.c.fortune, _C.c.double_fortune)
)


@dataclass(frozen=True, slots=True)
class FortuneView:
    """A character's fortune dice after a change; ``changed`` is the amount actually applied."""

    character_id: int
    name: str
    fortune: int
    maximum: int
    changed: int


async def _after_miss(session: Executor, character_id: int) -> tuple[str, int, int]:
    row = (
        await session.execute(
            select(_C.c.name, _C.c.fortune, _C.c.double_fortune).where(_C.c.id == character_id)
        )
    ).first()
    if row is None:
        raise NotFound("That character no longer exists.")
    return row.name, row.fortune, fortune_maximum(row.double_fortune)


def _check_amount(amount: int) -> None:
    if not 1 <= amount <= 4:
        raise InvalidValue("Fortune dice change by 1 to 4 at a time.")


async def gain_fortune_in(
    session: Executor, character_id: int, amount: int = 1, *, strict: bool = True
) -> FortuneView:
    """In a caller's transaction: add ``amount`` dice if that stays within the maximum.

    At the maximum: :class:`FortuneAtMaximum`, or with ``strict=False`` nothing changes and
    ``changed`` is 0 (a natural 20 gains a die only "if below their maximum").
    """
    _check_amount(amount)
    row = (await session.execute(_GAIN, {"cid": character_id, "n": amount})).first()
    if row is not None:
        maximum = fortune_maximum(row.double_fortune)
        return FortuneView(character_id, row.name, row.fortune, maximum, amount)
    name, fortune, maximum = await _after_miss(session, character_id)
    if strict:
        raise FortuneAtMaximum(maximum, name)
    return FortuneView(character_id, name, fortune, maximum, 0)


async def spend_fortune_in(session: Executor, character_id: int, amount: int = 1) -> FortuneView:
    """In a caller's transaction: remove ``amount`` dice, or :class:`NoFortuneLeft`."""
    _check_amount(amount)
    row = (await session.execute(_SPEND, {"cid": character_id, "n": amount})).first()
    if row is not None:
        maximum = fortune_maximum(row.double_fortune)
        return FortuneView(character_id, row.name, row.fortune, maximum, -amount)
    name, _, _ = await _after_miss(session, character_id)
    raise NoFortuneLeft(name)


async def _with_ledger(
    session: AsyncSession,
    view: FortuneView,
    origin: Origin,
    action: str,
    campaign_id: int | None,
    **details: str | None,
) -> None:
    await record_in(
        session,
        NewRoll(
            origin=origin,
            kind=LedgerKind.FORTUNE,
            request=f"fortune {action}",
            dice=[],
            outcome={"action": action, "change": view.changed, "fortune": view.fortune, **details},
            visibility=Visibility.PUBLIC,
            campaign_id=campaign_id,
            character_id=view.character_id,
            character_name=view.name,
        ),
    )


async def _campaign_id(session: AsyncSession, character_id: int) -> int | None:
    return (
        await session.execute(select(_C.c.campaign_id).where(_C.c.id == character_id))
    ).scalar_one_or_none()


async def gain_fortune(db: Database, character_id: int, origin: Origin) -> FortuneView:
    """The player gains one die (a natural 20 traded for a Normal success); recorded."""
    async with transaction(db) as session:
        view = await gain_fortune_in(session, character_id)
        await _with_ledger(
            session, view, origin, FortuneAction.GAIN, await _campaign_id(session, character_id)
        )
    return view


async def spend_fortune(
    db: Database,
    character_id: int,
    origin: Origin,
    purpose: FortunePurpose | str,
    *,
    note: str | None = None,
) -> FortuneView:
    """Spend one die for ``purpose``; the purpose and note go to the ledger, same transaction.

    A reroll is a roll: its use case calls :func:`spend_fortune_in` and records the reroll.
    """
    try:
        purpose = FortunePurpose(purpose)
    except ValueError:
        raise InvalidValue(f"Fortune dice are spent on: {', '.join(FortunePurpose)}.") from None
    if note is not None and len(note) > 500:
        raise InvalidValue("Keep the note under 500 characters.")
    async with transaction(db) as session:
        view = await spend_fortune_in(session, character_id)
        await _with_ledger(
            session,
            view,
            origin,
            FortuneAction.SPEND,
            await _campaign_id(session, character_id),
            purpose=purpose.value,
            note=note,
        )
    return view


async def give_fortune(
    db: Database, character_id: int, origin: Origin, amount: int = 1
) -> FortuneView:
    """A GM gives ``amount`` dice (refused past the maximum); recorded."""
    async with transaction(db) as session:
        view = await gain_fortune_in(session, character_id, amount)
        await _with_ledger(
            session, view, origin, FortuneAction.GIVE, await _campaign_id(session, character_id)
        )
    return view


async def take_fortune(
    db: Database, character_id: int, origin: Origin, amount: int = 1
) -> FortuneView:
    """A GM takes ``amount`` dice away (refused below 0); recorded."""
    async with transaction(db) as session:
        view = await spend_fortune_in(session, character_id, amount)
        await _with_ledger(
            session, view, origin, FortuneAction.TAKE, await _campaign_id(session, character_id)
        )
    return view
