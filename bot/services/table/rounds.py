"""Sealed declarations: commit-and-reveal for what players *do*, not only their dice.

docs/rounds.md describes them to players.

A GM opens a round in a campaign channel (``/gm round open [deadline]``); each player declares
an action once (``/declare``), and may replace it until the round closes. A declaration is a
ledger row of kind :data:`~bot.words.LedgerKind.DECLARATION`, sealed exactly like a hidden
roll (bot/services/store/ledger.py: a random salt from :mod:`secrets`, the SHA-256 commitment of a
canonical encoding, the row chained into the campaign's log by that commitment). Its
visibility is ``self``, so a GM's export leaves its text out, and
:func:`bot.services.trust.secrecy.can_see` lets nobody see an unrevealed declaration, its author
and the GM included: the text is never shown, logged or quoted until the round is revealed.

The reveal (the GM's ``/gm round reveal``, or the round's deadline through the durable
scheduler) stamps every current declaration revealed in one transaction, so they appear
together; each is then checkable with ``/verify roll:<number>`` like any revealed roll. A
replaced declaration, and every declaration of a cancelled round, stays sealed for good: the
player withdrew it before anyone saw it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.round_models import round_declarations, rounds
from bot.db.types import utcnow
from bot.services.kit import commitments as cm
from bot.services.kit import personal
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NotFound
from bot.services.kit.personal import Person, PersonalData, in_scope
from bot.services.kit.sql import Executor, transaction
from bot.services.rolling.groups import campaign_in
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import active_character_in
from bot.services.table import scheduler
from bot.services.trust.access import require_gm
from bot.words import JobKind, LedgerKind, RoundState, Visibility

_R = rounds
_D = round_declarations

#: The scheduler job that reveals a round at its deadline.
#: The longest declaration: a paragraph, as Discord's longest text input allows.
MAX_DECLARATION = 4000
#: The key of a declaration's text in its ledger row's outcome (erased as the player's own
#: words: bot/services/kit/personal.py ``FREE_TEXT_KEYS``).
TEXT_KEY = "declaration"
#: What the ledger row records as the command: never the text, which is the secret.
REQUEST = "/declare"
#: How a reveal came about, in the words of its message.
BY_GM = "by the GM"
AT_DEADLINE = "at its deadline"
ALREADY_OPEN = (
    "A round is already open here: reveal it (/gm round reveal) or cancel it "
    "(/gm round cancel) first."
)
NO_ROUND = "No round is open here: the GM opens one with /gm round open."


def round_key(round_id: int) -> str:
    """The scheduler key of a round's deadline job."""
    return f"round:{round_id}:reveal"


@dataclass(frozen=True, slots=True)
class RoundView:
    """A round as stored."""

    id: int
    campaign_id: int
    guild_id: int
    channel_id: int
    opened_by: int
    opened_at: datetime
    deadline_at: datetime | None
    state: str
    closed_at: datetime | None


@dataclass(frozen=True, slots=True)
class Sealed:
    """A current declaration as anyone may know it: who, when, its number; never its text."""

    name: str
    user_id: int
    number: int
    declared_at: datetime


@dataclass(frozen=True, slots=True)
class Declared:
    """A declaration just sealed: what the channel is told (``replaced``: the number of the
    player's earlier declaration in this round, which it replaces)."""

    round: RoundView
    name: str
    roll_id: int
    number: int
    commitment: str
    replaced: int | None = None
    #: The member who declared: named beside the character (or nickname), which anyone can
    #: choose, so a declaration always says whose it is.
    user_id: int = 0


@dataclass(frozen=True, slots=True)
class Status:
    """An open round and who has declared in it (not what)."""

    round: RoundView
    declared: tuple[Sealed, ...]


@dataclass(frozen=True, slots=True)
class Shown:
    """A revealed declaration."""

    name: str
    user_id: int
    number: int
    text: str


@dataclass(frozen=True, slots=True)
class Revealed:
    """A round revealed: every current declaration, in the order they were made, and how
    (:data:`BY_GM` or :data:`AT_DEADLINE`). Also the scheduler's notice."""

    round: RoundView
    declarations: tuple[Shown, ...]
    how: str


def _view(row: Any) -> RoundView:
    m = row._mapping
    return RoundView(**{name: m[name] for name in RoundView.__dataclass_fields__})


async def _open_in(session: AsyncSession, caller: Caller, *, lock: bool) -> RoundView:
    """The open round of the caller's channel (locked: every change to a round takes it)."""
    stmt = select(_R).where(_R.c.channel_id == caller.channel_id, _R.c.state == RoundState.OPEN)
    row = (await session.execute(stmt.with_for_update() if lock else stmt)).first()
    if row is None:
        raise NotFound(NO_ROUND)
    return _view(row)


async def _current_in(session: AsyncSession, round_id: int) -> list[tuple[Any, int]]:
    """The current declarations of a round (one per player), oldest first, each with its
    public number (the ledger row's: only bot/services/store/ledger.py reads that table)."""
    stmt = select(_D).where(_D.c.round_id == round_id, _D.c.replaced_at.is_(None)).order_by(_D.c.id)
    rows = list(await session.execute(stmt))
    numbers = await ledger.numbers_in(session, [int(r.ledger_id) for r in rows])
    return [(r, numbers[int(r.ledger_id)]) for r in rows]


async def open_round(
    db: Database, caller: Caller, now: datetime, deadline: timedelta | None = None
) -> RoundView:
    """GM: open a round of sealed declarations in this channel; with a deadline, it reveals
    itself then (a scheduled job, created in the same transaction)."""
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        require_gm(campaign, caller, "open a round")
        taken = await session.execute(
            select(_R.c.id).where(
                _R.c.channel_id == caller.channel_id, _R.c.state == RoundState.OPEN
            )
        )
        if taken.first() is not None:
            raise InvalidValue(ALREADY_OPEN)
        deadline_at = None if deadline is None else now + deadline
        try:
            inserted = await session.execute(
                _R.insert()
                .values(
                    campaign_id=campaign.id,
                    guild_id=campaign.guild_id,
                    channel_id=caller.channel_id,
                    opened_by=caller.user_id,
                    opened_at=now,
                    deadline_at=deadline_at,
                    state=RoundState.OPEN,
                )
                .returning(_R.c.id)
            )
        except IntegrityError as exc:  # another GM opened one in the same instant
            raise InvalidValue(ALREADY_OPEN) from exc
        round_id = inserted.scalar_one()
        if deadline_at is not None:
            await scheduler.schedule_in(
                session,
                JobKind.ROUND_REVEAL,
                deadline_at,
                {"round_id": int(round_id)},
                guild_id=campaign.guild_id,
                key=round_key(int(round_id)),
            )
        row = (await session.execute(select(_R).where(_R.c.id == round_id))).one()
        return _view(row)


def _clean(text: str) -> str:
    """The declaration as sealed: trimmed; empty or too long is refused (without quoting it:
    an error message is no place for a secret)."""
    cleaned = text.strip()
    if not cleaned:
        raise InvalidValue("Write what your character does: the declaration is empty.")
    if len(cleaned) > MAX_DECLARATION:
        raise InvalidValue(
            f"A declaration can be at most {MAX_DECLARATION} characters; yours has "
            f"{len(cleaned)}. Nothing was sealed."
        )
    return cleaned


async def _declarer_in(
    session: AsyncSession, campaign: CampaignView, caller: Caller
) -> tuple[int | None, str]:
    """Who declares, as the channel is told: the active character, else the member's name."""
    try:
        character = await active_character_in(session, campaign.id, caller.user_id)
    except NotFound:
        return None, (caller.display_name or "A player")[:100]
    return character.id, character.name


async def declare(db: Database, caller: Caller, text: str, now: datetime) -> Declared:
    """A player seals their declaration for the open round (replacing their earlier one)."""
    cleaned = _clean(text)
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        current = await _open_in(session, caller, lock=True)
        if current.deadline_at is not None and now >= current.deadline_at:
            raise InvalidValue("This round closed at its deadline: its reveal is on its way.")
        character_id, name = await _declarer_in(session, campaign, caller)
        earlier = (
            await session.execute(
                select(_D.c.id, _D.c.ledger_id).where(
                    _D.c.round_id == current.id,
                    _D.c.user_id == caller.user_id,
                    _D.c.replaced_at.is_(None),
                )
            )
        ).first()
        earlier_number = None
        if earlier is not None:
            numbers = await ledger.numbers_in(session, [int(earlier.ledger_id)])
            earlier_number = numbers[int(earlier.ledger_id)]
        stored = await ledger.record_in(
            session,
            ledger.NewRoll(
                origin=ledger.Origin.of(caller),
                kind=LedgerKind.DECLARATION,
                request=REQUEST,
                dice=[],
                outcome={TEXT_KEY: cleaned, "round": current.id},
                # "self": a GM's export leaves its text out; can_see lets nobody, its author
                # included, see an unrevealed declaration.
                visibility=Visibility.SELF,
                campaign_id=campaign.id,
                character_id=character_id,
                character_name=name,
            ),
        )
        if earlier is not None:
            await session.execute(update(_D).where(_D.c.id == earlier.id).values(replaced_at=now))
        await session.execute(
            _D.insert().values(
                round_id=current.id,
                ledger_id=stored.id,
                user_id=caller.user_id,
                name=name,
                declared_at=now,
            )
        )
        assert stored.commitment is not None  # a self row is always sealed
        return Declared(
            current,
            name,
            stored.id,
            stored.number,
            stored.commitment,
            earlier_number,
            caller.user_id,
        )


async def status(db: Database, caller: Caller) -> Status:
    """The open round here and who has declared (never what): anyone at the table may ask."""
    async with transaction(db) as session:
        await campaign_in(session, caller)
        current = await _open_in(session, caller, lock=False)
        rows = await _current_in(session, current.id)
    return Status(
        current,
        tuple(Sealed(r.name, int(r.user_id), number, r.declared_at) for r, number in rows),
    )


async def _reveal_in(
    session: AsyncSession, current: RoundView, now: datetime, how: str
) -> Revealed:
    """Stamp every current declaration revealed and close the round, all in one transaction."""
    shown: list[Shown] = []
    # The ledger's own clock (its rows' times are read on it, e.g. by /catchup), once for all.
    at = utcnow()
    for row, _ in await _current_in(session, current.id):
        stamped = await ledger.stamp_revealed_in(session, int(row.ledger_id), at)
        outcome = stamped.outcome if isinstance(stamped.outcome, dict) else {}
        shown.append(
            Shown(row.name, int(row.user_id), stamped.number, str(outcome.get(TEXT_KEY, "")))
        )
    await session.execute(
        update(_R).where(_R.c.id == current.id).values(state=RoundState.REVEALED, closed_at=now)
    )
    await scheduler.cancel_in(session, round_key(current.id), now)
    after = (await session.execute(select(_R).where(_R.c.id == current.id))).one()
    return Revealed(_view(after), tuple(shown), how)


async def reveal(db: Database, caller: Caller, now: datetime) -> Revealed:
    """GM: reveal every declaration of the open round at once."""
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        require_gm(campaign, caller, "reveal a round")
        current = await _open_in(session, caller, lock=True)
        return await _reveal_in(session, current, now, BY_GM)


async def cancel(db: Database, caller: Caller, now: datetime) -> Status:
    """GM: close the open round without revealing it; its declarations stay sealed for good."""
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        require_gm(campaign, caller, "cancel a round")
        current = await _open_in(session, caller, lock=True)
        rows = await _current_in(session, current.id)
        await session.execute(
            update(_R)
            .where(_R.c.id == current.id)
            .values(state=RoundState.CANCELLED, closed_at=now)
        )
        await scheduler.cancel_in(session, round_key(current.id), now)
        after = (await session.execute(select(_R).where(_R.c.id == current.id))).one()
    return Status(
        _view(after),
        tuple(Sealed(r.name, int(r.user_id), number, r.declared_at) for r, number in rows),
    )


async def _on_deadline(
    session: AsyncSession, job: scheduler.Job, context: scheduler.JobContext
) -> Revealed | None:
    """The round's deadline: reveal it, once (a round already revealed or cancelled: nothing)."""
    round_id = int(job.payload["round_id"])
    row = (await session.execute(select(_R).where(_R.c.id == round_id).with_for_update())).first()
    if row is None:
        return None
    current = _view(row)
    if current.state != RoundState.OPEN or current.deadline_at is None:
        return None
    if current.deadline_at > context.now:
        # Run early (a retry racing a clock change): this job is stamped done, so schedule
        # the deadline again rather than lose it.
        await scheduler.schedule_in(
            session,
            JobKind.ROUND_REVEAL,
            current.deadline_at,
            {"round_id": round_id},
            guild_id=current.guild_id,
            key=round_key(round_id),
        )
        return None
    return await _reveal_in(session, current, context.now, AT_DEADLINE)


# A deadline job locks its round's row (the scheduler locks it before the job row).
scheduler.register(JobKind.ROUND_REVEAL, _on_deadline, owner=scheduler.owned_by(_R, "round_id"))


# --- what a round keeps about a person (bot/services/kit/personal.py) ---------------------------


async def _erase_in(session: Executor, person: Person) -> int:
    """Sealed declarations: the declarer's id and shown name in theirs, a GM's id in the
    rounds they opened. (The text is in the ledger row, erased with it.)"""
    stmt = (
        select(round_declarations.c.id)
        .join(rounds, rounds.c.id == round_declarations.c.round_id)
        .where(round_declarations.c.user_id == person.user_id, in_scope(rounds, person.guild_id))
    )
    ids = [int(i) for (i,) in await personal.rows(session, stmt)]
    count = 0
    if ids:
        result = await session.execute(
            update(round_declarations)
            .where(round_declarations.c.id.in_(ids))
            .values(user_id=cm.TOMBSTONE_ID, name=cm.TOMBSTONE)
        )
        count = personal.changed(result)
    result = await session.execute(
        update(rounds)
        .where(rounds.c.opened_by == person.user_id, in_scope(rounds, person.guild_id))
        .values(opened_by=cm.TOMBSTONE_ID)
    )
    return count + personal.changed(result)


PERSONAL_DATA = personal.declare(
    PersonalData(
        "rounds",
        holdings=(
            personal.holding("rounds", "opened_by", "opened_by"),
            personal.holding("round_declarations", "user_id", "user_id", "name"),
        ),
        erase=personal.each_in_its_transaction(_erase_in),
    )
)
