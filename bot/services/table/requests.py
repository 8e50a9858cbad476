"""GM roll requests: the asynchronous way a play-by-post party rolls together.

The GM posts a request naming characters; each of their players clicks "Roll" once, hours
apart if need be, and rolls with their own stored stats. Everything lives in the database
(who may roll, who has, the one shared d20 of a roll-under group save), so a click works
after a restart and on any shard process. An answer locks the request row first (``SELECT
... FOR UPDATE``; SQLite's write lock does the same), so answers to one request run one after
the other: the last one sees every other answer and completes the request, exactly once.

With a hidden DC the players see dice and totals, never pass/fail, until the GM reveals:
their ledger rows are ``blind`` and get ``revealed_at`` when the GM reveals.

The game clock (docs/clock.md): a request may have a deadline and a default for whoever has not
rolled by then (``roll`` with their stored stats, ``skip`` them, or count them as ``fail``ed),
and a reminder time. Both are scheduled jobs (bot/services/table/scheduler.py) created in the
request's own transaction; the deadline job applies the default and completes the request,
exactly once, under the same row lock as a click.
"""

from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.party_models import roll_request_targets, roll_requests
from bot.db.types import utcnow
from bot.quoting import escape
from bot.rules.common import roll_d20
from bot.services.kit import commitments as cm
from bot.services.kit import personal, walks
from bot.services.kit.clock import MAX_DURATION
from bot.services.kit.context import Caller
from bot.services.kit.errors import AlreadyRevealed, InvalidValue, NotAllowed, NotFound
from bot.services.kit.personal import Person, PersonalData, Shown, declare, in_scope
from bot.services.kit.serialize import to_jsonable
from bot.services.kit.sql import Executor, transaction
from bot.services.rolling.groups import (
    MemberSpec,
    RollSummary,
    Verdict,
    campaign_in,
    check_spec,
    dice_of,
    group_verdict,
    member_kind,
    resolve_targets_in,
    roll_member_in,
    shared_save,
    store_carry_over_in,
    summarize,
)
from bot.services.store import characters, ledger
from bot.services.store.campaigns import CampaignView, get_campaign_in, system_key
from bot.services.table import notify, scheduler
from bot.services.trust import fairness
from bot.services.trust.access import require_gm
from bot.words import DefaultAction, JobKind, LedgerKind, NotifyMode, Visibility

_R = roll_requests
_T = roll_request_targets

#: A deadline given without a default holds the action, as forum games do: ``skip``.
DEFAULT_ACTION = DefaultAction.SKIP
#: The words on the message and in the ledger for a roll the deadline made.
ROLLED_BY_DEFAULT = "rolled by default at the deadline"
#: The same, for a roll the default made when the GM closed the request early.
ROLLED_BY_GM_CLOSE = "rolled by default when the GM closed the request"
#: ``defaulted`` of a target the default rolled for at the GM's close (``roll``: at the
#: deadline), so the message and ledger say which.
GM_CLOSE_ROLL = "gm-roll"


def deadline_key(request_id: int) -> str:
    """The scheduler key of a request's deadline job."""
    return f"request:{request_id}:deadline"


def remind_key(request_id: int) -> str:
    """The scheduler key of a request's reminder job."""
    return f"request:{request_id}:remind"


@dataclass(frozen=True, slots=True)
class TargetView:
    """One requested character and, once rolled, the roll's summary."""

    character_name: str
    user_id: int
    summary: RollSummary | None
    #: Set when the deadline's default answered instead of the player: roll, skip or fail
    #: (or gm-roll: rolled by the default when the GM closed the request).
    defaulted: str | None = None

    @property
    def rolled_by_default(self) -> str | None:
        """How the default rolled for this character, in the player's words (None: it did
        not)."""
        if self.defaulted == DefaultAction.ROLL:
            return ROLLED_BY_DEFAULT
        if self.defaulted == GM_CLOSE_ROLL:
            return ROLLED_BY_GM_CLOSE
        return None

    @property
    def answered(self) -> bool:
        """True once the player has clicked "Roll" (or the deadline answered for them)."""
        return self.summary is not None or self.defaulted is not None


@dataclass(frozen=True, slots=True)
class RequestView:
    """A roll request as stored, with its targets in the order the GM named them."""

    id: int
    campaign_id: int
    channel_id: int
    message_id: int | None
    gm_user_id: int
    system: str
    ability: str
    is_save: bool
    dc: int | None
    difficulty: str | None
    dc_hidden: bool
    shared_roll: int | None
    completed_at: datetime | None
    revealed_at: datetime | None
    targets: tuple[TargetView, ...]
    #: A skill each target adds if their sheet has it (d20 check rule 9, "Group Checks").
    proficiency: str | None = None
    deadline_at: datetime | None = None
    default_action: str | None = None
    remind_at: datetime | None = None
    guild_id: int | None = None

    @property
    def hidden(self) -> bool:
        """Pass/fail is the GM's alone right now (a hidden DC not yet revealed)."""
        return self.dc_hidden and self.revealed_at is None

    @property
    def complete(self) -> bool:
        """Everyone requested has rolled."""
        return self.completed_at is not None

    @property
    def waiting(self) -> tuple[TargetView, ...]:
        """The targets who have not rolled yet."""
        return tuple(t for t in self.targets if not t.answered)

    @property
    def verdict(self) -> Verdict | None:
        """The group outcome once everyone has rolled (None before)."""
        if not self.complete:
            return None
        rolled = [(t.character_name, t.summary) for t in self.targets if t.summary is not None]
        # A ``fail`` default counts the character as failed; ``skip`` leaves them out.
        rolled += [
            (t.character_name, FAILED_BY_DEFAULT)
            for t in self.targets
            if t.defaulted == DefaultAction.FAIL
        ]
        return group_verdict(self.system, rolled, self.dc)


#: What a character counted as failed by the deadline's default shows.
FAILED_BY_DEFAULT = RollSummary(
    dice=(),
    kept=0,
    modifiers=(),
    total=None,
    result="Failed: no roll by the deadline",
    passed=False,
)


@dataclass(frozen=True, slots=True)
class Answer:
    """A click's result: the request after it, whose roll it was, and whether it completed."""

    request: RequestView
    character_name: str
    summary: RollSummary
    completed_now: bool
    campaign: CampaignView
    #: The seed the roll used up, if it was due: the place is shown it.
    rotations: tuple[fairness.Rotation, ...] = ()


def _request_view(row: Row[Any], targets: list[Row[Any]]) -> RequestView:
    m = row._mapping
    return RequestView(
        id=m["id"],
        campaign_id=m["campaign_id"],
        channel_id=m["channel_id"],
        message_id=m["message_id"],
        gm_user_id=m["gm_user_id"],
        system=system_key(m["system"]),
        ability=m["ability"],
        is_save=m["is_save"],
        dc=m["dc"],
        difficulty=m["difficulty"],
        dc_hidden=m["dc_hidden"],
        shared_roll=m["shared_roll"],
        completed_at=m["completed_at"],
        revealed_at=m["revealed_at"],
        targets=tuple(
            TargetView(
                t.character_name,
                t.user_id,
                None if t.result is None else RollSummary.from_json(t.result),
                t.defaulted,
            )
            for t in targets
        ),
        proficiency=m["proficiency"],
        deadline_at=m["deadline_at"],
        default_action=m["default_action"],
        remind_at=m["remind_at"],
        guild_id=m["guild_id"],
    )


async def load_in(session: AsyncSession, request_id: int) -> RequestView:
    """In a caller's transaction: a request and its targets."""
    row = (await session.execute(select(_R).where(_R.c.id == request_id))).first()
    if row is None:
        raise NotFound("That roll request no longer exists.")
    targets = (
        await session.execute(
            select(_T).where(_T.c.request_id == request_id).order_by(_T.c.position)
        )
    ).all()
    return _request_view(row, list(targets))


async def load(db: Database, request_id: int) -> RequestView:
    """A request and its targets."""
    async with transaction(db) as session:
        return await load_in(session, request_id)


async def create(
    db: Database,
    caller: Caller,
    ability: str,
    request: str,
    *,
    characters_text: str | None = None,
    dc: int | None = None,
    hidden_dc: int | None = None,
    difficulty: str | None = None,
    save: bool = False,
    proficiency: str | None = None,
    now: datetime | None = None,
    deadline: timedelta | None = None,
    default: str | None = None,
    remind: timedelta | None = None,
) -> RequestView:
    """GM: store a request for the named characters (or the party) to roll ``ability``.

    ``deadline`` / ``remind`` (from ``now``, the game clock's time) schedule the deadline's
    default and the reminder in the same transaction as the request.
    """
    if dc is not None and hidden_dc is not None:
        raise InvalidValue("Give either dc (shown to everyone) or hidden_dc (GM only), not both.")
    if default is not None and default not in set(DefaultAction):
        raise InvalidValue("default must be roll, skip or fail.")
    if default is not None and deadline is None:
        raise InvalidValue("A default needs a deadline: add deadline:<duration>, like 24h.")
    if deadline is not None and remind is not None and remind >= deadline:
        raise InvalidValue("The reminder must come before the deadline.")
    if (deadline is not None or remind is not None) and now is None:
        raise ValueError("a deadline or reminder needs the game clock's now")
    at = utcnow() if now is None else now
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        require_gm(campaign, caller, "request rolls")
        spec = check_spec(
            campaign,
            MemberSpec(
                ability, dc if hidden_dc is None else hidden_dc, difficulty, save, proficiency
            ),
            what="a roll request",
        )
        if hidden_dc is not None and difficulty:
            raise InvalidValue("Give either hidden_dc or difficulty, not both.")
        who = await resolve_targets_in(session, campaign, characters_text)
        for character in who:
            if spec.ability not in character.scores:
                raise InvalidValue(
                    f"{escape(character.name)} has no {spec.ability} score yet: set it with "
                    f"/character set ability:{spec.ability} value:<number>."
                )
        request_id = (
            await session.execute(
                _R.insert()
                .values(
                    campaign_id=campaign.id,
                    guild_id=campaign.guild_id,
                    channel_id=caller.channel_id,
                    gm_user_id=caller.user_id,
                    system=campaign.rules.key,
                    ability=spec.ability,
                    is_save=spec.save,
                    proficiency=spec.proficiency,
                    dc=spec.dc,
                    difficulty=spec.difficulty,
                    dc_hidden=hidden_dc is not None,
                    request=request,
                    created_at=at,
                    deadline_at=None if deadline is None or now is None else now + deadline,
                    default_action=None if deadline is None else default or DEFAULT_ACTION,
                    remind_at=None if remind is None or now is None else now + remind,
                )
                .returning(_R.c.id)
            )
        ).scalar_one()
        payload = {"request_id": int(request_id)}
        jobs = (
            (JobKind.REQUEST_DEADLINE, deadline, deadline_key),
            (JobKind.REQUEST_REMIND, remind, remind_key),
        )
        for kind, after, key in jobs:
            if after is not None and now is not None:
                await scheduler.schedule_in(
                    session,
                    kind,
                    now + after,
                    payload,
                    guild_id=campaign.guild_id,
                    key=key(request_id),
                )
        await session.execute(
            _T.insert(),
            [
                {
                    "request_id": request_id,
                    "position": i,
                    "character_id": c.id,
                    "character_name": c.name,
                    "user_id": c.user_id,
                }
                for i, c in enumerate(who)
            ],
        )
        return await load_in(session, request_id)


async def set_message(db: Database, request_id: int, message_id: int) -> None:
    """Remember the posted message, so a reveal can edit it."""
    async with transaction(db) as session:
        await session.execute(update(_R).where(_R.c.id == request_id).values(message_id=message_id))


async def discard_unposted(db: Database, request_id: int) -> None:
    """Delete a request whose message never reached Discord: nobody could ever answer it.

    Only while it has no message and no answer, so a posted request is never lost.
    """
    async with transaction(db) as session:
        answered = select(_T.c.id).where(_T.c.request_id == request_id, _T.c.roll_id.isnot(None))
        if (await session.execute(answered)).first() is not None:
            return
        gone = await session.execute(
            delete(_R).where(_R.c.id == request_id, _R.c.message_id.is_(None)).returning(_R.c.id)
        )
        if gone.first() is not None:
            await session.execute(delete(_T).where(_T.c.request_id == request_id))


async def _shared_roll_in(
    session: AsyncSession,
    rng: random.Random,
    request_id: int,
    player: Caller,
    campaign_id: int,
    visibility: Visibility,
) -> tuple[int, bool, dict[str, Any] | None]:
    """Roll-under ruling 2: the first click rolls the group's one d20; later clicks reuse it.

    Returns the d20, whether this click rolled it (the request row is locked by
    :func:`answer`, so exactly one click does) and, provably fair, its draw's record: with
    the seed of ``player``, the player of the character it is rolled for (docs/fair-dice.md).
    """
    current: int | None = (
        await session.execute(select(_R.c.shared_roll).where(_R.c.id == request_id))
    ).scalar_one()
    if current is not None:
        return int(current), False, None
    record = None
    if fairness.chosen_source(rng):
        draw = await fairness.draw_in(session, player, campaign_id, visibility)
        rng, record = draw.rng, draw.record(fairness.D20_DRAWS)
    rolled = roll_d20(rng)
    await session.execute(update(_R).where(_R.c.id == request_id).values(shared_roll=rolled))
    return rolled, True, record


async def answer(
    db: Database,
    rng: random.Random,
    caller: Caller,
    request_id: int,
    request: str,
    *,
    message_id: int | None = None,
    now: datetime | None = None,
) -> Answer:
    """A player's click: roll their requested character's part once, and record it.

    Only the players of requested characters may roll, each character once; the roll uses
    the character's stored stats. The last answer computes the group outcome.
    ``message_id``: the clicked message, remembered if posting could not store it.
    ``now``: the game clock's time (the answer's and completion's stamps); a click at or
    after the deadline is refused.
    """
    at = utcnow() if now is None else now
    async with transaction(db) as session:
        # Lock the request first: two players answering the last two targets at once must
        # run one after the other, or under PostgreSQL's READ COMMITTED each counts the
        # other's uncommitted answer as waiting and nobody completes the request. (SQLite's
        # BEGIN IMMEDIATE already serialises; FOR UPDATE is not emitted there.)
        await session.execute(select(_R.c.id).where(_R.c.id == request_id).with_for_update())
        before = await load_in(session, request_id)
        if before.deadline_at is not None and now is not None and now >= before.deadline_at:
            raise NotAllowed(
                f"Roll request #{request_id} closed at its deadline, so this roll no longer "
                "counts. Ask the GM if you still want to roll."
            )
        mine = (
            await session.execute(
                select(_T.c.id, _T.c.character_id, _T.c.character_name, _T.c.answered_at)
                .where(_T.c.request_id == request_id, _T.c.user_id == caller.user_id)
                .order_by(_T.c.position)
            )
        ).all()
        if not mine:
            names = ", ".join(t.character_name for t in before.targets)
            raise NotAllowed(f"This roll is for {names}: only their players can roll it.")
        open_targets = [t for t in mine if t.answered_at is None]
        if not open_targets:
            raise NotAllowed("You have already rolled for this request.")
        target = open_targets[0]
        claimed = (
            await session.execute(
                update(_T)
                .where(_T.c.id == target.id, _T.c.answered_at.is_(None))
                .values(answered_at=at)
                .returning(_T.c.id)
            )
        ).first()
        if claimed is None:
            raise NotAllowed("You have already rolled for this request.")
        if message_id is not None and before.message_id is None:
            await session.execute(
                update(_R).where(_R.c.id == request_id).values(message_id=message_id)
            )
        if target.character_id is None:
            raise NotFound(f"{escape(target.character_name)} no longer exists, so cannot roll.")
        campaign = await get_campaign_in(session, before.campaign_id)
        # A seed falling due rotates once the roll is recorded (a hidden one keeps the
        # hidden-roll key secret while it is unrevealed: docs/fair-dice.md).
        with fairness.rotations_held() as held:
            name, summary = await _roll_target_in(
                session,
                rng,
                campaign,
                before,
                target.id,
                target.character_id,
                ledger.Origin.of(caller),
                request,
            )
        rotations = await fairness.rotate_held_in(session, held)
        visibility = Visibility.BLIND if before.hidden else Visibility.PUBLIC
        completed_now = await _complete_if_done_in(session, caller, request_id, visibility, at)
        after = await load_in(session, request_id)
    return Answer(after, name, summary, completed_now, campaign, tuple(rotations))


async def _roll_target_in(
    session: AsyncSession,
    rng: random.Random,
    campaign: CampaignView,
    before: RequestView,
    target_id: int,
    character_id: int,
    row_origin: ledger.Origin,
    request: str,
) -> tuple[str, RollSummary]:
    """Roll one target's part with the character's stored stats and record it: what a click
    does, and what a ``roll`` default does at the deadline (one code path for both)."""
    character = await characters.load_character_in(session, character_id)
    spec = MemberSpec(
        before.ability, before.dc, before.difficulty, before.is_save, before.proficiency
    )
    visibility = Visibility.BLIND if before.hidden else Visibility.PUBLIC
    record = None
    if campaign.rules.group_shares_die:
        player = Caller(
            user_id=character.user_id,
            channel_id=row_origin.channel_id,
            guild_id=row_origin.guild_id,
        )
        shared, rolled_it, record = await _shared_roll_in(
            session, rng, before.id, player, campaign.id, visibility
        )
        outcome = shared_save(campaign, character, before.ability, shared)
        # The one d20 is stored in the row of the player who rolled it (/stats counts
        # each die once, for its roller); the others compare with it.
        dice = dice_of(outcome) if rolled_it else []
    else:
        if fairness.chosen_source(rng):
            # Provably fair: the character's player's own seed, whoever clicks or when the
            # deadline rolls for them (docs/fair-dice.md).
            player = Caller(
                user_id=character.user_id,
                channel_id=row_origin.channel_id,
                guild_id=row_origin.guild_id,
            )
            draw = await fairness.draw_in(session, player, campaign.id, visibility)
            rng, record = draw.rng, draw.record(fairness.D20_DRAWS)
        outcome = await roll_member_in(session, rng, campaign, character, spec)
        dice = dice_of(outcome)
    stored = to_jsonable(outcome)
    if record is not None:
        stored = {**stored, "fair": record}
    member_row = await ledger.record_in(
        session,
        ledger.NewRoll(
            origin=row_origin,
            kind=member_kind(campaign, spec),
            request=request,
            dice=dice,
            outcome=stored,
            visibility=visibility,
            campaign_id=campaign.id,
            character_id=character.id,
            character_name=character.name,
            named=ledger.naming((character.user_id, character.name)),
        ),
    )
    await store_carry_over_in(session, character, before.ability, outcome, member_row.id)
    summary = summarize(outcome)
    await session.execute(
        update(_T)
        .where(_T.c.id == target_id)
        .values(roll_id=member_row.id, result=summary.to_json())
    )
    return character.name, summary


async def _stamp_once_in(session: AsyncSession, request_id: int, column: str, at: datetime) -> bool:
    """Stamp the request's ``column`` (completed_at, revealed_at) with ``at`` unless it is
    stamped already: True for the one transaction that stamps it."""
    stamped = (
        await session.execute(
            update(_R)
            .where(_R.c.id == request_id, _R.c[column].is_(None))
            .values({column: at})
            .returning(_R.c.id)
        )
    ).first()
    return stamped is not None


async def _complete_if_done_in(
    session: AsyncSession, caller: Caller, request_id: int, visibility: Visibility, now: datetime
) -> bool:
    waiting = (
        await session.execute(
            select(func.count())
            .select_from(_T)
            .where(_T.c.request_id == request_id, _T.c.answered_at.is_(None))
        )
    ).scalar_one()
    if waiting:
        return False
    if not await _stamp_once_in(session, request_id, "completed_at", now):
        return False
    # Everyone has answered: the deadline and reminder have nothing left to do.
    await scheduler.cancel_in(session, deadline_key(request_id), now)
    await scheduler.cancel_in(session, remind_key(request_id), now)
    view = await load_in(session, request_id)
    verdict = view.verdict
    assert verdict is not None
    rolls_stmt = select(_T.c.roll_id).where(_T.c.request_id == request_id).order_by(_T.c.position)
    roll_ids: list[int | None] = list((await session.execute(rolls_stmt)).scalars())
    # The members' rows by their public numbers (ids are internal: import renumbers them).
    numbers = await ledger.numbers_in(session, [i for i in roll_ids if i is not None])
    member_rolls = [None if i is None else numbers.get(i) for i in roll_ids]
    group_row = await ledger.record_in(
        session,
        ledger.NewRoll(
            origin=ledger.Origin.of(caller, with_interaction=False),
            kind=LedgerKind.GROUP,
            request=f"roll request #{request_id}",
            dice=[view.shared_roll] if view.shared_roll is not None else [],
            outcome={
                "verdict": verdict.text,
                "succeeded": verdict.succeeded,
                "member_rolls": member_rolls,
                "shared_roll": view.shared_roll,
            },
            visibility=visibility,
            campaign_id=view.campaign_id,
            named=ledger.naming(*((t.user_id, t.character_name) for t in view.targets)),
        ),
    )
    await session.execute(
        update(_R).where(_R.c.id == request_id).values(group_roll_id=group_row.id)
    )
    return True


async def _pick_in(
    session: AsyncSession, campaign: CampaignView, request_id: int | None, *, hidden_only: bool
) -> int:
    if request_id is not None:
        found = (
            await session.execute(
                select(_R.c.id).where(_R.c.id == request_id, _R.c.campaign_id == campaign.id)
            )
        ).scalar_one_or_none()
        if found is None:
            raise NotFound(f"No roll request #{request_id} in this campaign.")
        return int(found)
    stmt = select(_R.c.id).where(_R.c.campaign_id == campaign.id)
    if hidden_only:
        stmt = stmt.where(_R.c.dc_hidden, _R.c.revealed_at.is_(None))
    latest = (await session.execute(stmt.order_by(_R.c.id.desc()).limit(1))).scalar_one_or_none()
    if latest is None:
        what = f"with a hidden {_target_word(campaign)} left to reveal" if hidden_only else ""
        raise NotFound(f"No roll request {what} in this campaign yet.".replace("  ", " "))
    return int(latest)


def _target_word(campaign: CampaignView) -> str:
    """What the campaign's system calls the number to reach (threshold ruling: a threshold)."""
    return campaign.rules.target_word


async def status(
    db: Database, caller: Caller, request_id: int | None = None
) -> tuple[CampaignView, RequestView]:
    """GM: a request (the latest by default) with everything, pass/fail included."""
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        require_gm(campaign, caller, "see a roll request's status")
        return campaign, await load_in(
            session, await _pick_in(session, campaign, request_id, hidden_only=False)
        )


async def reveal(
    db: Database, caller: Caller, request_id: int | None = None, now: datetime | None = None
) -> tuple[CampaignView, RequestView]:
    """GM: reveal a hidden DC (the latest unrevealed by default) and its pass/fail, once.

    ``now``: the game clock's time, stamped as the reveal's."""
    at = utcnow() if now is None else now
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        require_gm(campaign, caller, f"reveal a hidden {_target_word(campaign)}")
        chosen = await _pick_in(session, campaign, request_id, hidden_only=request_id is None)
        view = await load_in(session, chosen)
        if not view.dc_hidden:
            raise InvalidValue(
                f"Roll request #{chosen} has no hidden {_target_word(campaign)}: everyone sees "
                "it already."
            )
        if not await _stamp_once_in(session, chosen, "revealed_at", at):
            raise AlreadyRevealed()
        rows = select(_T.c.roll_id).where(_T.c.request_id == chosen, _T.c.roll_id.isnot(None))
        roll_ids: list[int] = list((await session.execute(rows)).scalars())
        group_id = (
            await session.execute(select(_R.c.group_roll_id).where(_R.c.id == chosen))
        ).scalar_one_or_none()
        # The ledger's one permitted update: revealed_at, once per blind row of the request,
        # in this same transaction: the request is revealed with all its rows or not at all.
        for roll_id in [*roll_ids, *([group_id] if group_id is not None else [])]:
            with contextlib.suppress(AlreadyRevealed):  # a row revealed alone by /gm reveal
                await ledger.stamp_revealed_in(session, roll_id, at)
        revealed = await load_in(session, chosen)
    return campaign, revealed


# --- the game clock: deadlines, their defaults, reminders (docs/clock.md) ---------------------


@dataclass(frozen=True, slots=True)
class Closed:
    """A request the deadline (or the GM's close) completed: post its verdict."""

    request: RequestView
    campaign: CampaignView
    #: "at its deadline" or "by the GM".
    how: str
    #: Seeds its default rolls used up, rotated after the last: posted with the verdict.
    rotations: tuple[fairness.Rotation, ...] = ()


@dataclass(frozen=True, slots=True)
class Reminder:
    """One player to remind of a request, the way they chose (``channel`` or ``dm``)."""

    user_id: int
    mode: str
    character_names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Reminders:
    """The reminders of one request, sent once each."""

    request: RequestView
    reminders: tuple[Reminder, ...]


def _owner_caller(view: RequestView) -> Caller:
    """The GM who asked, in the request's channel: whom a row the clock records is from."""
    return Caller(user_id=view.gm_user_id, channel_id=view.channel_id, guild_id=view.guild_id)


async def _apply_default_in(
    session: AsyncSession,
    rng: random.Random,
    request_id: int,
    now: datetime,
    action: str,
    *,
    by_gm: bool = False,
) -> tuple[bool, tuple[fairness.Rotation, ...]]:
    """Answer for every character who has not rolled, by ``action``; complete the request.

    The caller holds the request's row lock. ``roll`` rolls exactly as the click would (same
    code path, stored stats) and marks the roll "rolled by default at the deadline" (``by_gm``:
    "when the GM closed the request") in the ledger; ``skip`` and ``fail`` record no roll.
    Returns whether this completed it, and the seeds its rolls used up (rotated after the
    last roll, so every default roll draws from a seed whose hash was shown).
    """
    view = await load_in(session, request_id)
    if view.complete:
        return False, ()
    campaign = await get_campaign_in(session, view.campaign_id)
    open_rows = (
        await session.execute(
            select(_T.c.id, _T.c.character_id, _T.c.user_id)
            .where(_T.c.request_id == request_id, _T.c.answered_at.is_(None))
            .order_by(_T.c.position)
        )
    ).all()
    marker = ROLLED_BY_GM_CLOSE if by_gm else ROLLED_BY_DEFAULT
    # One roll after another from the seed whose hash was shown; a seed falling due
    # rotates after the last (docs/fair-dice.md).
    with fairness.rotations_held() as held:
        for index, row in enumerate(open_rows):
            # Each default roll is a few statements and a sealed row (a few ms): a request of
            # 100 gives the loop a turn between them rather than holding it for all.
            if index:
                await walks.turn()
            chosen = action
            if action == DefaultAction.ROLL and row.character_id is None:
                chosen = DefaultAction.SKIP  # a deleted character has no stats to roll with
            await session.execute(
                update(_T)
                .where(_T.c.id == row.id)
                .values(
                    answered_at=now,
                    defaulted=GM_CLOSE_ROLL if by_gm and chosen == DefaultAction.ROLL else chosen,
                )
            )
            if chosen == DefaultAction.ROLL:
                assert row.character_id is not None
                await _roll_target_in(
                    session,
                    rng,
                    campaign,
                    view,
                    row.id,
                    row.character_id,
                    ledger.Origin(
                        channel_id=view.channel_id, user_id=int(row.user_id), guild_id=view.guild_id
                    ),
                    f"{marker} (roll request #{request_id})",
                )
    rotations = tuple(await fairness.rotate_held_in(session, held))
    visibility = Visibility.BLIND if view.hidden else Visibility.PUBLIC
    owner = _owner_caller(view)
    return await _complete_if_done_in(session, owner, request_id, visibility, now), rotations


async def _on_deadline(
    session: AsyncSession, job: scheduler.Job, context: scheduler.JobContext
) -> Closed | None:
    """The deadline job: apply the request's default and complete it, once."""
    request_id = int(job.payload["request_id"])
    locked = await session.execute(
        select(_R.c.id, _R.c.default_action, _R.c.deadline_at, _R.c.completed_at, _R.c.guild_id)
        .where(_R.c.id == request_id)
        .with_for_update()
    )
    row = locked.first()
    if row is None:
        return None  # the request was deleted with its campaign
    if row.deadline_at is None or row.deadline_at > context.now:
        # Run before the request's deadline (its job was moved early, say by a retry racing
        # an /extend): closing now would cut the players' time. Wait for the deadline.
        if row.deadline_at is not None and row.completed_at is None:
            await _deadline_job_in(session, request_id, row.deadline_at, row.guild_id)
        return None
    action = row.default_action or DEFAULT_ACTION
    completed, rotations = await _apply_default_in(
        session, context.rng, request_id, context.now, action
    )
    if not completed:
        return None  # everyone had rolled already
    view = await load_in(session, request_id)
    campaign = await get_campaign_in(session, view.campaign_id)
    return Closed(view, campaign, "at its deadline", rotations)


async def _on_remind(
    session: AsyncSession, job: scheduler.Job, context: scheduler.JobContext
) -> Reminders | None:
    """The reminder job: one reminder per player still to roll, unless they opted out."""
    request_id = int(job.payload["request_id"])
    await session.execute(select(_R.c.id).where(_R.c.id == request_id).with_for_update())
    try:
        view = await load_in(session, request_id)
    except NotFound:
        return None
    if view.complete:
        return None
    due = (
        await session.execute(
            update(_T)
            .where(
                _T.c.request_id == request_id,
                _T.c.answered_at.is_(None),
                _T.c.reminded_at.is_(None),
            )
            .values(reminded_at=context.now)
            .returning(_T.c.user_id, _T.c.character_name, _T.c.position)
        )
    ).all()
    names: dict[int, list[str]] = {}
    for row in sorted(due, key=lambda r: r.position):
        names.setdefault(int(row.user_id), []).append(str(row.character_name))
    modes = await notify.modes_in(session, names)
    out = tuple(
        Reminder(user, modes[user], tuple(chars))
        for user, chars in names.items()
        if modes[user] != NotifyMode.OFF
    )
    return Reminders(view, out) if out else None


async def _deadline_job_in(
    session: AsyncSession, request_id: int, due: datetime, guild_id: int | None
) -> None:
    """Move the request's pending deadline job to ``due``, or make one if none is pending
    (its job already ran early, or was never made)."""
    await scheduler.move_or_schedule_in(
        session,
        JobKind.REQUEST_DEADLINE,
        due,
        {"request_id": request_id},
        guild_id=guild_id,
        key=deadline_key(request_id),
    )


#: The request row a request job locks (the scheduler locks it before the job row).
_owner = scheduler.owned_by(_R, "request_id")
scheduler.register(JobKind.REQUEST_DEADLINE, _on_deadline, owner=_owner)
scheduler.register(JobKind.REQUEST_REMIND, _on_remind, owner=_owner)


async def _pick_open_in(
    session: AsyncSession, campaign: CampaignView, request_id: int | None
) -> int:
    """The named request, or the latest still open, of this campaign (locked)."""
    if request_id is None:
        stmt = (
            select(_R.c.id)
            .where(_R.c.campaign_id == campaign.id, _R.c.completed_at.is_(None))
            .order_by(_R.c.id.desc())
            .limit(1)
        )
        found = (await session.execute(stmt)).scalar_one_or_none()
        if found is None:
            raise NotFound("No open roll request in this campaign.")
        request_id = int(found)
    else:
        request_id = await _pick_in(session, campaign, request_id, hidden_only=False)
    await session.execute(select(_R.c.id).where(_R.c.id == request_id).with_for_update())
    return request_id


async def _gm_open_in(
    session: AsyncSession, caller: Caller, request_id: int | None, doing: str
) -> tuple[CampaignView, RequestView]:
    """For the GM ``doing`` it: the named request, or the latest open one (locked), refused
    when it is complete already."""
    campaign = await campaign_in(session, caller)
    require_gm(campaign, caller, doing)
    chosen = await _pick_open_in(session, campaign, request_id)
    view = await load_in(session, chosen)
    if view.complete:
        raise InvalidValue(f"Roll request #{chosen} is already complete.")
    return campaign, view


async def extend(
    db: Database, caller: Caller, request_id: int | None, by: timedelta, now: datetime
) -> RequestView:
    """GM: move an open request's deadline later by ``by`` (at most 30 days from now)."""
    async with transaction(db) as session:
        campaign, view = await _gm_open_in(session, caller, request_id, "extend a roll request")
        chosen = view.id
        if view.deadline_at is None:
            raise InvalidValue(
                f"Roll request #{chosen} has no deadline to extend; close it with "
                f"/gm request close request:{chosen} when you want."
            )
        new_deadline = max(view.deadline_at, now) + by
        if new_deadline - now > MAX_DURATION:
            raise InvalidValue("A deadline can be at most 30 days away.")
        await session.execute(update(_R).where(_R.c.id == chosen).values(deadline_at=new_deadline))
        await _deadline_job_in(session, chosen, new_deadline, campaign.guild_id)
        return await load_in(session, chosen)


async def close(
    db: Database, rng: random.Random, caller: Caller, request_id: int | None, now: datetime
) -> Closed:
    """GM: close an open request now, applying its default (``skip`` if it had none)."""
    async with transaction(db) as session:
        campaign, view = await _gm_open_in(session, caller, request_id, "close a roll request")
        chosen = view.id
        # From now on a click is refused as after a deadline; the scheduled jobs go.
        await session.execute(update(_R).where(_R.c.id == chosen).values(deadline_at=now))
        await scheduler.cancel_in(session, deadline_key(chosen), now)
        await scheduler.cancel_in(session, remind_key(chosen), now)
        _, rotations = await _apply_default_in(
            session, rng, chosen, now, view.default_action or DEFAULT_ACTION, by_gm=True
        )
        return Closed(await load_in(session, chosen), campaign, "by the GM", rotations)


# --- what a roll request keeps about a person (bot/services/kit/personal.py) --------------------

_RQ = roll_requests
_RT = roll_request_targets


async def _show_in(session: Executor, shown: Shown) -> None:
    user_id, guild_id = shown.user_id, shown.guild_id
    made = (
        select(_RQ.c.guild_id, func.count())
        .where(_RQ.c.gm_user_id == user_id, in_scope(_RQ, guild_id))
        .group_by(_RQ.c.guild_id)
    )
    for guild, count in await personal.rows(session, made):
        shown.server(guild)["requests_made"] = int(count)
    received = (
        select(_RQ.c.guild_id, func.count())
        .select_from(_RT.join(_RQ, _RQ.c.id == _RT.c.request_id))
        .where(_RT.c.user_id == user_id, in_scope(_RQ, guild_id))
        .group_by(_RQ.c.guild_id)
    )
    for guild, count in await personal.rows(session, received):
        shown.server(guild)["requests_received"] = int(count)


async def _erase_in(session: Executor, person: Person) -> int:
    """GM roll requests: the typed request of one they made or that names one of their
    characters (by its target's id), their id as GM, and their place among the targets."""
    user_id = person.user_id
    made = select(_RQ.c.id).where(_RQ.c.gm_user_id == user_id, in_scope(_RQ, person.guild_id))
    for_them = (
        select(_RQ.c.id)
        .join(_RT, _RQ.c.id == _RT.c.request_id)
        .where(_RT.c.user_id == user_id, in_scope(_RQ, person.guild_id))
    )
    ids = {int(i) for (i,) in await personal.rows(session, made)}
    ids |= {int(i) for (i,) in await personal.rows(session, for_them)}
    count = 0
    if ids:
        result = await session.execute(
            update(_RQ)
            .where(_RQ.c.id.in_(sorted(ids)), _RQ.c.request != cm.TOMBSTONE)
            .values(request=cm.TOMBSTONE)
        )
        count = personal.changed(result)
    result = await session.execute(
        update(_RQ)
        .where(_RQ.c.gm_user_id == user_id, in_scope(_RQ, person.guild_id))
        .values(gm_user_id=cm.TOMBSTONE_ID)
    )
    count += personal.changed(result)
    match = person.own()
    stmt = (
        select(_RT.c.id, _RT.c.result)
        .join(_RQ, _RQ.c.id == _RT.c.request_id)
        .where(_RT.c.user_id == user_id, in_scope(_RQ, person.guild_id))
    )
    for target_id, summary in await personal.rows(session, stmt):
        await session.execute(
            update(_RT)
            .where(_RT.c.id == target_id)
            .values(
                user_id=cm.TOMBSTONE_ID,
                character_name=cm.TOMBSTONE,
                result=personal.tombstoned(summary, None, True, match),
            )
        )
        count += 1
    return count


PERSONAL_DATA = declare(
    PersonalData(
        "roll requests",
        holdings=(
            personal.holding(
                "roll_requests", "gm_user_id, or a target is theirs", "gm_user_id", "request"
            ),
            personal.holding(
                "roll_request_targets",
                "user_id",
                "user_id",
                "character_name",
                "result",
                "character_id",  # NULL once their character is deleted
            ),
        ),
        not_personal={
            "roll_requests.ability": "an ability of the campaign's system",
            "roll_requests.proficiency": "a proficiency the GM asks for, as the system names it",
        },
        show_in=_show_in,
        erase=personal.each_in_its_transaction(_erase_in),
    )
)
