"""Turn order (``/turns``): a round over the party, one open order per channel or thread.

An order is a row (bot/db/models.py ``turn_orders``) holding the characters in order, whose turn
it is, the round and who holds this round. Every change is a ledger row (kind ``turn``), so
the order's history is as tamper-evident as the rolls. A per-turn deadline is a scheduled job
(bot/services/table/scheduler.py) keyed to the order, moved on every change in the same transaction;
when it runs the turn passes automatically.

Initiative uses each system's own check, and every die shows:
- d20 check: d20 + DEX modifier (ruling 1's floor((score − 10) / 2)); ties by DEX modifier;
- Pen & Dagger: a DEX attempt, ordered by success level, then by the kept face;
- threshold: d20 + the DEX modifier as stored;
- roll-under: AGI − d20 (the margin under the score); ties are re-rolled, every die kept.
Remaining ties keep the order the characters were named in.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import turn_orders
from bot.services.kit import commitments as cm
from bot.services.kit import personal
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NotAllowed, NotFound
from bot.services.kit.personal import Person, PersonalData, Shown, declare, holds_id, in_scope
from bot.services.kit.sql import Executor, transaction
from bot.services.rolling.groups import campaign_in, resolve_targets_in
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView
from bot.services.table import notify, scheduler
from bot.services.trust import fairness
from bot.services.trust.access import is_gm, require_gm
from bot.words import JobKind, LedgerKind, TurnOrderKind, Visibility

_O = turn_orders
#: The ability each system's initiative uses.


def turn_key(order_id: int) -> str:
    """The scheduler key of an order's turn deadline."""
    return f"turns:{order_id}:turn"


@dataclass(frozen=True, slots=True)
class Entry:
    """One character in the order; ``roll`` shows its initiative with every die ("" if none)."""

    character_id: int
    name: str
    user_id: int
    roll: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "character_id": self.character_id,
            "name": self.name,
            "user_id": self.user_id,
            "roll": self.roll,
        }


@dataclass(frozen=True, slots=True)
class TurnsView:
    """An order as stored."""

    id: int
    campaign_id: int
    guild_id: int
    channel_id: int
    order_kind: str
    entries: tuple[Entry, ...]
    held: frozenset[int]
    position: int
    round: int
    turn_seconds: int | None
    turn_started_at: datetime
    ended_at: datetime | None

    @property
    def current(self) -> Entry:
        """Whose turn it is."""
        return self.entries[self.position]

    @property
    def deadline_at(self) -> datetime | None:
        """When the current turn passes by itself (None: no per-turn deadline)."""
        if self.turn_seconds is None or self.ended_at is not None:
            return None
        return self.turn_started_at + timedelta(seconds=self.turn_seconds)


@dataclass(frozen=True, slots=True)
class TurnEvent:
    """A change to post: what happened, the order after it, and how to ping whose turn it is
    (``channel``, ``dm`` or ``off``; None when nobody is to be pinged, as after an end)."""

    what: str
    order: TurnsView
    ping_mode: str | None
    #: The character whose turn passed or who held, for the message.
    actor: str = ""
    #: The seed a random order or initiative used up, if it was due: the place is shown it.
    rotation: fairness.Rotation | None = None


def _view(row: Any) -> TurnsView:
    m = row._mapping
    return TurnsView(
        id=m["id"],
        campaign_id=m["campaign_id"],
        guild_id=m["guild_id"],
        channel_id=m["channel_id"],
        order_kind=m["order_kind"],
        entries=tuple(
            Entry(int(e["character_id"]), str(e["name"]), int(e["user_id"]), str(e["roll"]))
            for e in m["entries"]
        ),
        held=frozenset(int(p) for p in m["held"]),
        position=m["position"],
        round=m["round"],
        turn_seconds=m["turn_seconds"],
        turn_started_at=m["turn_started_at"],
        ended_at=m["ended_at"],
    )


# --- initiative (pure, given the dice) ---------------------------------------------------------


def roll_initiative(
    campaign: CampaignView, members: list[CharacterView], rng: random.Random
) -> list[Entry]:
    """The members in initiative order, each with its roll shown die by die (the campaign's
    system decides what initiative is)."""
    order = campaign.rules.roll_initiative(campaign, members, rng)
    return [Entry(members[i].id, members[i].name, members[i].user_id, text) for i, text in order]


# --- changes ---------------------------------------------------------------------------------


async def _open_in(session: AsyncSession, caller: Caller, *, lock: bool = True) -> TurnsView:
    stmt = select(_O).where(_O.c.channel_id == caller.channel_id, _O.c.ended_at.is_(None))
    row = (await session.execute(stmt.with_for_update() if lock else stmt)).first()
    if row is None:
        raise NotFound("No turn order here: the GM starts one with /turns start.")
    return _view(row)


async def _record_in(
    session: AsyncSession,
    caller: Caller | None,
    view: TurnsView,
    what: str,
    dice: list[int],
    fair: dict[str, Any] | None = None,
) -> None:
    """The change as a ledger row: public, in the campaign's chain (``fair``: the draw its
    dice or order came from)."""
    outcome: dict[str, Any] = {
        "event": what,
        "order": [e.name for e in view.entries],
        "rolls": [e.roll for e in view.entries],
        "round": view.round,
        "turn": view.current.name if view.ended_at is None else None,
        "held": sorted(view.held),
    }
    if fair is not None:
        outcome["fair"] = fair
    row_origin = (
        ledger.Origin.of(caller)
        if caller is not None
        else ledger.Origin(
            channel_id=view.channel_id, user_id=view.current.user_id, guild_id=view.guild_id
        )
    )
    await ledger.record_in(
        session,
        ledger.NewRoll(
            origin=row_origin,
            kind=LedgerKind.TURN,
            request=f"turn order #{view.id}: {what}",
            dice=dice,
            outcome=outcome,
            visibility=Visibility.PUBLIC,
            campaign_id=view.campaign_id,
            named=ledger.naming(*((e.user_id, e.name) for e in view.entries)),
        ),
    )


async def _store_in(session: AsyncSession, view: TurnsView, **values: Any) -> TurnsView:
    await session.execute(update(_O).where(_O.c.id == view.id).values(**values))
    row = (await session.execute(select(_O).where(_O.c.id == view.id))).one()
    return _view(row)


async def _schedule_turn_in(session: AsyncSession, view: TurnsView, now: datetime) -> None:
    """Move (or make) the current turn's deadline job; cancel it once the order ended."""
    key = turn_key(view.id)
    deadline = view.deadline_at
    if deadline is None:
        await scheduler.cancel_in(session, key, now)
        return
    await scheduler.move_or_schedule_in(
        session,
        JobKind.TURN_DEADLINE,
        deadline,
        {"order_id": view.id},
        guild_id=view.guild_id,
        key=key,
    )


async def _event_in(
    session: AsyncSession, view: TurnsView, what: str, actor: str = ""
) -> TurnEvent:
    if view.ended_at is not None:
        return TurnEvent(what, view, None, actor)
    mode = (await notify.modes_in(session, [view.current.user_id]))[view.current.user_id]
    return TurnEvent(what, view, mode, actor)


async def start(
    db: Database,
    rng: random.Random,
    caller: Caller,
    characters_text: str | None,
    order: str,
    turn_seconds: int | None,
    now: datetime,
) -> TurnEvent:
    """GM: a new round over the named characters (or the party) in this channel."""
    if order not in set(TurnOrderKind):
        raise InvalidValue("order must be listed, initiative or random.")
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        require_gm(campaign, caller, "start a turn order")
        taken = select(_O.c.id).where(_O.c.channel_id == caller.channel_id, _O.c.ended_at.is_(None))
        if (await session.execute(taken)).first() is not None:
            raise InvalidValue(
                "This channel already has a turn order: /turns show, or /turns end it first."
            )
        members = await resolve_targets_in(session, campaign, characters_text)
        # Provably fair (docs/fair-dice.md): initiative's d20s and a random order's shuffle
        # come from one draw with the GM's seed, recorded with the order's row.
        draw = record = None
        if order != TurnOrderKind.LISTED and fairness.chosen_source(rng):
            draw = await fairness.draw_in(session, caller, campaign.id, Visibility.PUBLIC)
            rng = draw.rng
        start_state = rng.getstate() if draw is not None else None
        if order == TurnOrderKind.INITIATIVE:
            entries = roll_initiative(campaign, members, rng)
        else:
            if order == TurnOrderKind.RANDOM:
                members = list(members)
                listed = [c.name for c in members]
                rng.shuffle(members)
                if draw is not None:
                    record = {**draw.record(fairness.SHUFFLE), "from": listed}
            entries = [Entry(c.id, c.name, c.user_id) for c in members]
        order_id = (
            await session.execute(
                _O.insert()
                .values(
                    campaign_id=campaign.id,
                    guild_id=campaign.guild_id,
                    channel_id=caller.channel_id,
                    order_kind=order,
                    entries=[e.to_json() for e in entries],
                    held=[],
                    position=0,
                    round=1,
                    turn_seconds=turn_seconds,
                    turn_started_at=now,
                    created_at=now,
                )
                .returning(_O.c.id)
            )
        ).scalar_one()
        view = _view((await session.execute(select(_O).where(_O.c.id == order_id))).one())
        dice = [int(d) for e in entries for d in _dice_in(e.roll)]
        if draw is not None and order == TurnOrderKind.INITIATIVE:
            # The row lists the dice in the order's order; ``at`` says where each was drawn.
            at = fairness.drawn_at(draw, start_state, dice)
            if at is not None:
                record = {**draw.record(fairness.D20_DRAWS), "at": at}
        await _record_in(session, caller, view, f"started ({order})", dice, record)
        await _schedule_turn_in(session, view, now)
        event = await _event_in(session, view, "started")
        return replace(event, rotation=draw.rotation if draw is not None else None)


def _dice_in(text: str) -> list[str]:
    """The d20 faces shown in an initiative line (the ``d20 **n**`` parts)."""
    return _FACES.findall(text)


_FACES = re.compile(r"d20 \*\*(\d+)\*\*")


async def show(db: Database, caller: Caller) -> TurnsView:
    """The open order of this channel."""
    async with transaction(db) as session:
        await campaign_in(session, caller)
        return await _open_in(session, caller, lock=False)


def _next_position(view: TurnsView) -> tuple[int, int, frozenset[int]]:
    """The next position not held this round; a new round clears the holds."""
    position, round_, held = view.position, view.round, set(view.held)
    for _ in range(2 * len(view.entries) + 1):
        position += 1
        if position >= len(view.entries):
            position, round_, held = 0, round_ + 1, set()
        if position not in held:
            return position, round_, frozenset(held)
    return 0, round_ + 1, frozenset()


async def _pass_in(
    session: AsyncSession,
    caller: Caller | None,
    view: TurnsView,
    now: datetime,
    what: str,
    *,
    hold: bool = False,
) -> TurnEvent:
    actor = view.current.name
    base = view
    if hold:
        base = TurnsView(**{**_fields(view), "held": view.held | {view.position}})
    position, round_, held = _next_position(base)
    after = await _store_in(
        session,
        view,
        position=position,
        round=round_,
        held=sorted(held),
        turn_started_at=now,
    )
    await _record_in(session, caller, after, f"{what} ({actor})", [])
    await _schedule_turn_in(session, after, now)
    return await _event_in(session, after, what, actor)


def _fields(view: TurnsView) -> dict[str, Any]:
    return {name: getattr(view, name) for name in TurnsView.__dataclass_fields__}


async def next_turn(db: Database, caller: Caller, now: datetime) -> TurnEvent:
    """The current player (or a GM) ends the turn: the next character's begins."""
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        view = await _open_in(session, caller)
        if caller.user_id != view.current.user_id and not is_gm(campaign, caller):
            raise NotAllowed(
                f"It is {view.current.name}'s turn: only their player or a GM can pass it."
            )
        return await _pass_in(session, caller, view, now, "turn done")


async def hold(db: Database, caller: Caller, now: datetime) -> TurnEvent:
    """A player: skip my character this round, keeping the place for the next one."""
    async with transaction(db) as session:
        await campaign_in(session, caller)
        view = await _open_in(session, caller)
        mine = [i for i, e in enumerate(view.entries) if e.user_id == caller.user_id]
        if not mine:
            raise NotAllowed("None of your characters is in this turn order.")
        if view.position in mine:
            return await _pass_in(session, caller, view, now, "holds", hold=True)
        later = [i for i in mine if i > view.position and i not in view.held]
        if not later:
            raise InvalidValue("Your turn this round is over already; hold again next round.")
        after = await _store_in(session, view, held=sorted(view.held | {later[0]}))
        actor = after.entries[later[0]].name
        await _record_in(session, caller, after, f"holds ({actor})", [])
        return TurnEvent("holds", after, None, actor)


async def end(db: Database, caller: Caller, now: datetime) -> TurnEvent:
    """GM: end the order of this channel."""
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        require_gm(campaign, caller, "end a turn order")
        view = await _open_in(session, caller)
        after = await _store_in(session, view, ended_at=now)
        await _record_in(session, caller, after, "ended", [])
        await _schedule_turn_in(session, after, now)
        return TurnEvent("ended", after, None)


async def _on_turn_deadline(
    session: AsyncSession, job: scheduler.Job, context: scheduler.JobContext
) -> TurnEvent | None:
    """The turn's time is up: it passes automatically (the job moves with every change, so
    a due one always belongs to the current turn)."""
    row = (
        await session.execute(
            select(_O).where(_O.c.id == int(job.payload["order_id"])).with_for_update()
        )
    ).first()
    if row is None:
        return None
    view = _view(row)
    if view.ended_at is not None or view.deadline_at is None:
        return None
    if view.deadline_at > context.now:
        # Run before the turn's time is up (its job was moved early): this job is stamped
        # done, so schedule the turn's deadline again rather than lose it.
        await _schedule_turn_in(session, view, context.now)
        return None
    return await _pass_in(session, None, view, context.now, "time is up")


# A turn job locks its order's row (the scheduler locks it before the job row).
scheduler.register(
    JobKind.TURN_DEADLINE, _on_turn_deadline, owner=scheduler.owned_by(_O, "order_id")
)


# --- what a turn order keeps about a person (bot/services/kit/personal.py) ----------------------


def _listed(entry: Any, user_id: int) -> bool:
    """Whether a turn order's entry is the user's character."""
    return isinstance(entry, dict) and entry.get("user_id") == user_id


async def _show_in(session: Executor, shown: Shown) -> None:
    """Turn orders that list one of their characters."""
    orders = select(turn_orders.c.guild_id, turn_orders.c.entries).where(
        in_scope(turn_orders, shown.guild_id), holds_id(turn_orders.c.entries, shown.user_id)
    )
    for guild, entries in await personal.rows(session, orders):
        if any(_listed(entry, shown.user_id) for entry in entries or ()):
            shown.add(guild, "turn_orders", 1)


async def _erase_in(session: Executor, person: Person) -> int:
    """Turn orders list each entry's character and player: theirs become the tombstone (the
    order keeps its place, so the others' turns go on)."""
    user_id = person.user_id

    def order(row: Any) -> dict[str, Any]:
        entries = [
            {**entry, "user_id": cm.TOMBSTONE_ID, "name": cm.TOMBSTONE}
            if _listed(entry, user_id)
            else entry
            for entry in row.entries or ()
        ]
        return {"entries": entries} if entries != list(row.entries or ()) else {}

    selected = select(turn_orders.c.id, turn_orders.c.entries).where(
        in_scope(turn_orders, person.guild_id), holds_id(turn_orders.c.entries, user_id)
    )
    return await personal.rewrite(session, turn_orders, selected, order)


PERSONAL_DATA = declare(
    PersonalData(
        "turn orders",
        holdings=(personal.holding("turn_orders", "an entry's user_id", "entries"),),
        not_personal={"turn_orders.held": "positions in the order skipped this round"},
        show_in=_show_in,
        erase=personal.each_in_its_transaction(_erase_in),
    )
)
