"""What did I miss (``/catchup``): what happened in this campaign since my last action.

"My last action" is my latest ledger row here made by a command or a click of mine (rows the
game clock made for me, such as a roll by a deadline's default, do not count). Everything is
shaped by what the caller may see: a hidden roll they are not entitled to is a stub (its
number only), a hidden-DC request shows no pass/fail until the GM reveals, exactly as in the
channel. Items come newest first; the renderer clips them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import exists, or_, select

from bot.db.engine import Database
from bot.db.fortune_models import fortune_choices
from bot.db.models import characters, pending_modifiers, turn_orders
from bot.db.party_models import roll_request_targets, roll_requests
from bot.quoting import quote
from bot.rules.systems.base import signed
from bot.services.kit.context import Caller
from bot.services.kit.sql import transaction
from bot.services.rolling.groups import NOBODY_ROLLED, campaign_in
from bot.services.store import ledger as ledger_svc
from bot.services.table import delivery
from bot.services.table import requests as requests_svc
from bot.services.trust.scope import readable_channels
from bot.services.trust.secrecy import can_see, viewer_is_gm
from bot.words import LedgerKind

_R = roll_requests
_T = roll_request_targets
#: What is waiting now (a roll to make, my turn) comes first.
NOW = datetime.max.replace(tzinfo=UTC)
#: Ledger rows looked at, and per query: a catch-up is a summary, not the log (/history is).
SCAN = 200
PAGE = 100
#: Requests looked at (each is loaded with its targets).
REQUESTS = 50


@dataclass(frozen=True, slots=True)
class Item:
    """One thing to catch up on; ``message`` (channel, message) gives a jump link."""

    at: datetime
    text: str
    message: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class CatchUp:
    """Newest first."""

    guild_id: int
    since: datetime | None
    is_gm: bool
    items: tuple[Item, ...]


def _verdict(view: requests_svc.RequestView, gm: bool) -> str:
    verdict = view.verdict
    if verdict is None:
        return ""
    if view.hidden and not gm and verdict != NOBODY_ROLLED:
        return "everyone has rolled; the GM will reveal the result"
    return verdict.text


async def catch_up(db: Database, caller: Caller) -> CatchUp:
    """The caller's catch-up in the campaign of this channel."""
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        gm = viewer_is_gm(campaign, caller)
        since: datetime | None = None
        for row in await ledger_svc.latest_rolls_in(
            session, campaign.id, user_id=caller.user_id, limit=PAGE
        ):
            if row.interaction_id is not None:  # a command or click of mine
                since = row.created_at
                break
        mine = {
            int(r.id): str(r.name)
            for r in await session.execute(
                select(characters.c.id, characters.c.name).where(
                    characters.c.campaign_id == campaign.id,
                    characters.c.user_id == caller.user_id,
                )
            )
        }
        items: list[Item] = []

        # Requests: waiting for me (whenever asked), and results or reveals since.
        stmt = (
            select(_R.c.id)
            .where(_R.c.campaign_id == campaign.id)
            .order_by(_R.c.id.desc())
            .limit(REQUESTS)
        )
        if not gm:
            stmt = stmt.where(
                exists().where(_T.c.request_id == _R.c.id, _T.c.user_id == caller.user_id)
            )
        if since is not None:  # open ones, and those completed or revealed since
            stmt = stmt.where(
                or_(
                    _R.c.completed_at.is_(None),
                    _R.c.completed_at > since,
                    _R.c.revealed_at > since,
                )
            )
        found: list[Any] = list((await session.execute(stmt)).scalars())
        request_ids = [int(i) for i in found]
        for request_id in request_ids:
            view = await requests_svc.load_in(session, request_id)
            where = (view.channel_id, view.message_id) if view.message_id else None
            waiting = [t.character_name for t in view.waiting if t.user_id == caller.user_id]
            if waiting and not view.complete:
                items.append(
                    Item(
                        NOW,
                        f"Roll request #{view.id} is waiting for your roll ({', '.join(waiting)})",
                        where,
                    )
                )
            if view.revealed_at is not None and (since is None or view.revealed_at > since):
                items.append(
                    Item(
                        view.revealed_at,
                        f"The GM revealed roll request #{view.id}: DC {view.dc}; "
                        f"{_verdict(view, True)}",
                        where,
                    )
                )
            elif view.completed_at is not None and (since is None or view.completed_at > since):
                items.append(
                    Item(
                        view.completed_at,
                        f"Roll request #{view.id} is complete: {_verdict(view, gm)}",
                        where,
                    )
                )

        # Ledger rows since: turns that reached me, reveals, rolls I may or may not see.
        rows: list[ledger_svc.RollView] = []
        before: int | None = None
        for _ in range(SCAN // PAGE):
            page = await ledger_svc.latest_rolls_in(
                session, campaign.id, limit=PAGE, before_id=before
            )
            rows += page
            # A row older than my last action may still have been revealed since: look back
            # a little past it (SCAN rows at most).
            if len(page) < PAGE or (since is not None and page[-1].created_at <= since):
                break
            before = page[-1].id
        # Open choices on my characters' rolls, whoever rolled them (a GM's check of my
        # character too): a natural 20 not yet kept or traded (fortune buttons).
        my_rolls = [
            r
            for r in await ledger_svc.latest_rolls_in(
                session, campaign.id, kinds=(LedgerKind.ATTEMPT, LedgerKind.LUCK), limit=PAGE
            )
            if r.character_id in mine
        ]
        chosen: set[int] = set(
            (
                await session.execute(
                    select(fortune_choices.c.roll_id).where(
                        fortune_choices.c.roll_id.in_([r.id for r in my_rolls])
                    )
                )
            ).scalars()
        )
        choices = [
            r
            for r in my_rolls
            if r.id not in chosen
            and isinstance(r.outcome, dict)
            and r.outcome.get("trade_available")
            # Only a roll the caller may see: a blind roll's natural 20 is the GM's secret.
            and can_see(r, caller.user_id, gm)
        ]

        # Carry-overs waiting on my characters (threshold ruling 4).
        if mine:
            carry = await session.execute(
                select(
                    pending_modifiers.c.character_id,
                    pending_modifiers.c.ability,
                    pending_modifiers.c.value,
                    pending_modifiers.c.created_at,
                ).where(pending_modifiers.c.character_id.in_(list(mine)))
            )
            for carry_row in carry:
                items.append(
                    Item(
                        carry_row.created_at,
                        f"{mine[int(carry_row.character_id)]} has a {signed(carry_row.value)} "
                        f"carry-over waiting on the next {carry_row.ability} test",
                    )
                )

        # What the bot could not post by itself (a notice, a verdict; GM copies for GMs).
        notices = await delivery.undelivered_in(session, campaign.id, gm=gm, since=since)

        # An open turn order where it is my turn now.
        open_orders = await session.execute(
            select(turn_orders).where(
                turn_orders.c.campaign_id == campaign.id, turn_orders.c.ended_at.is_(None)
            )
        )
        for order in open_orders:
            entry = order.entries[order.position]
            if int(entry["user_id"]) == caller.user_id:
                items.append(
                    Item(
                        NOW,
                        f"It is your turn with {entry['name']} (round {order.round}) in "
                        f"<#{order.channel_id}>",
                    )
                )
    # Outside the transaction (it may ask Discord): only rows from places the caller can read.
    readable = await readable_channels(caller, [*rows, *choices], campaign)
    for notice in notices:
        if gm or caller.can_read is None or await caller.can_read(notice.channel_id):
            items.append(Item(notice.created_at, notice.line))
    names = set(mine.values())
    for row in rows:
        if row.channel_id in readable:
            items.extend(_ledger_items(row, caller, gm, since, names))
    for roll in choices:
        if roll.channel_id in readable:
            items.append(
                Item(
                    roll.created_at,
                    f"Roll #{roll.number} ({roll.character_name}): a natural 20 waits for your "
                    "choice, keep it or trade it for a fortune die (the buttons under that roll)",
                )
            )
    items.sort(key=lambda i: i.at, reverse=True)
    return CatchUp(campaign.guild_id, since, gm, tuple(items))


def _ledger_items(
    row: ledger_svc.RollView, caller: Caller, gm: bool, since: datetime | None, names: set[str]
) -> list[Item]:
    out: list[Item] = []
    outcome: Any = row.outcome
    if row.kind == LedgerKind.TURN:
        turn = outcome.get("turn") if isinstance(outcome, dict) else None
        if turn in names and (since is None or row.created_at > since):
            out.append(Item(row.created_at, f"The turn order reached you: {turn}'s turn"))
        return out
    if row.kind == LedgerKind.GROUP:
        return out  # requests are summarised above
    if row.user_id == caller.user_id and row.interaction_id is not None:
        return out  # my own rolls: I was there
    visible = can_see(row, caller.user_id, gm)
    who = "you" if row.user_id == caller.user_id else (row.character_name or f"<@{row.user_id}>")
    if row.revealed_at is not None and (since is None or row.revealed_at > since):
        out.append(
            Item(row.revealed_at, f"The GM revealed roll #{row.number} ({who}): {_dice(row)}")
        )
    elif since is None or row.created_at > since:
        if visible:
            out.append(Item(row.created_at, f"Roll #{row.number} ({who}): {_dice(row)}"))
        else:
            out.append(Item(row.created_at, f"Roll #{row.number}: a hidden roll"))
    return out


def _faces(value: Any) -> list[int]:
    """Every die face in a ledger row's dice column (plain faces, or dice-notation terms)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list):
        return [f for v in value for f in _faces(v)]
    if isinstance(value, dict):
        if isinstance(value.get("face"), int):
            return [int(value["face"])]
        return _faces(value.get("dice", []))
    return []


def _total(outcome: Any) -> int | None:
    """The total a row's outcome shows: stored, or the kept die plus its modifiers."""
    if not isinstance(outcome, dict):
        return None
    if isinstance(outcome.get("total"), int):
        return int(outcome["total"])
    kept, modifiers = outcome.get("kept"), outcome.get("modifiers")
    if isinstance(kept, int) and isinstance(modifiers, list):
        try:
            return kept + sum(int(m[1]) for m in modifiers)
        except (TypeError, ValueError, IndexError):
            return None
    return None


def _dice(row: ledger_svc.RollView) -> str:
    if row.kind == LedgerKind.DECLARATION:
        # A sealed declaration has no dice; once revealed, its text (quoted).
        text = row.outcome.get("declaration") if isinstance(row.outcome, dict) else None
        return f"declared {quote(str(text or ''), 100)}"
    total = _total(row.outcome)
    shown = ", ".join(str(d) for d in _faces(row.dice)) or "no dice"
    return f"{row.kind}, dice {shown}" + (f", total {total}" if isinstance(total, int) else "")
