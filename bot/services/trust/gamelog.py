"""The tamper-evident game log: walk a campaign's hash chain and say where it breaks.

Each ledger row stores ``link = sha256(previous link || sha256(entry))``
(bot/services/kit/commitments.py). Walking the rows in number order and recomputing every link
detects a row changed, removed, inserted or reordered after it was written; the chain's stored
head (``ledger_chains``) catches the newest rows being cut off. Revealed hidden rows are also
checked against their commitment, and every row against its ``who`` digest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import log_checkpoints
from bot.services.kit import budgets, walks
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.kit.personal import PersonalData, declare
from bot.services.kit.sql import insert_for, reading, transaction
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.store.ledger import RollView
from bot.services.trust.access import campaign_here
from bot.services.trust.secrecy import (
    commitment_of,
    encoding_of_row,
    erased_before_format_3,
    fields_match,
    who_matches,
)
from bot.words import Visibility


@dataclass(frozen=True, slots=True)
class Break:
    """Where a chain stops verifying: the roll's number and what is wrong with it."""

    number: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class LogCheck:
    """The outcome of walking one chain: how many rolls, the head, and the first break."""

    campaign: CampaignView | None
    rolls: int
    head: str
    broken: Break | None
    #: The checkpoint this walk went on from (its roll number), 0 for a walk from the start.
    since: int = 0
    #: A checkpoint was stored but its message did not read back: the whole log was walked.
    checkpoint_unconfirmed: bool = False

    @property
    def last_number(self) -> int:
        """The number of the last roll found intact (the checkpoint a next walk goes on from)."""
        return self.since + self.rolls

    @property
    def intact(self) -> bool:
        return self.broken is None


def redacted(row: RollView) -> bool:
    """A self roll its GM exported before it was revealed: result, salt and personal salt
    left out (bot/services/trust/export.py), so it can be chained but never revealed."""
    return (
        row.visibility is Visibility.SELF
        and row.revealed_at is None
        and row.salt is None
        and row.outcome == {"redacted": True}
    )


def _row_problem(row: RollView, every_commitment: bool) -> str | None:
    """What is wrong with one row beyond its link, or None."""
    if who_matches(row) is False:
        return "its roller, character or command no longer match what was bound"
    if not fields_match(row):
        return "the salts of its text are missing, so it cannot be checked"
    if erased_before_format_3(row):
        # An older row bound the erased text in clear; its link still holds (by the
        # entry digest it had), its commitment can no longer be recomputed.
        return None
    hidden = row.visibility is not Visibility.PUBLIC and row.commitment is not None
    if hidden and not row.salt:
        # Only a GM's export leaves a salt out, of an unrevealed self roll; anything else
        # without one could hide a changed result behind its commitment.
        if every_commitment and not redacted(row):
            return "its salt is missing, so its result cannot be checked"
        if row.revealed_at is not None:
            return "it was revealed without its salt, so its result cannot be checked"
        return None
    salts = row.salts or cm.Salts()
    if (
        row.format >= cm.WHO_FORMAT
        and every_commitment
        and not (salts.row_salt or salts.field_salts or salts.erased)
    ):
        return "its roller and command are not bound"
    checkable = hidden and (every_commitment or row.revealed_at is not None)
    if checkable and commitment_of(encoding_of_row(row)) != row.commitment:
        return "its result does not match its commitment"
    return None


class ChainWalk:
    """A walk of one chain fed a page at a time: the state :func:`check_rows` keeps between
    rows, so a long chain is checked page by page with memory flat in its length.

    ``previous`` / ``last_number``: where the walk starts (the genesis link, or a checkpoint).
    """

    __slots__ = ("broken", "count", "every_commitment", "last_number", "previous")

    def __init__(
        self, previous: str = cm.GENESIS, last_number: int = 0, *, every_commitment: bool = False
    ) -> None:
        self.previous = previous
        self.last_number = last_number
        self.every_commitment = every_commitment
        self.count = 0
        self.broken: Break | None = None

    def feed(self, rows: Iterable[RollView]) -> Break | None:
        """Check the next rows (in number order); the first break, if any (then stop)."""
        for row in rows:
            if self.broken is not None:
                return self.broken
            self.count += 1
            self.broken = self._check(row)
            if self.broken is None:
                self.previous = row.chain
        return self.broken

    def _check(self, row: RollView) -> Break | None:
        if row.number <= self.last_number:
            return Break(row.number, "its number is out of order")
        self.last_number = row.number
        try:
            linked = row.link_from(self.previous)
        except cm.Unsalted:
            return Break(row.number, "the salts of its text are missing, so it cannot be checked")
        if linked != row.chain:
            return Break(row.number, "it does not link to the roll before it")
        problem = _row_problem(row, self.every_commitment)
        return None if problem is None else Break(row.number, problem)

    def end(self, stored_head: str | None) -> Break | None:
        """The walk's verdict once every row is fed: the stored head must be where it ended."""
        if self.broken is None and stored_head is not None and stored_head != self.previous:
            self.broken = Break(None, "the newest rolls are missing from the log")
        return self.broken


def check_rows(
    rows: Iterable[RollView], stored_head: str | None, *, every_commitment: bool = False
) -> tuple[int, str, Break | None]:
    """Walk rows (in number order) from the genesis link; the first break, if any.

    Pure over the rows, so the importer checks a file's chain with the same code; it also
    checks the commitments of hidden rows not revealed yet (``every_commitment``), whose salt
    an operator's export carries.
    """
    walk = ChainWalk(every_commitment=every_commitment)
    if walk.feed(rows) is None:
        walk.end(stored_head)
    return walk.count, walk.previous, walk.broken


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The last point ``/verify log`` found intact, and the message that published its head."""

    number: int
    head: str
    channel_id: int
    message_id: int


#: ``confirm(checkpoint)``: whether the message the checkpoint names, as Discord shows it now,
#: was posted by the bot and shows that number and head (the cog reads it).
Confirm = Callable[[Checkpoint], Awaitable[bool]]


async def check_campaign_log(
    db: Database,
    campaign: CampaignView,
    *,
    start: Checkpoint | None = None,
    progress: walks.Progress | None = None,
) -> LogCheck:
    """Walk the campaign's chain (from ``start``, a confirmed checkpoint, or the first roll),
    a page per transaction, hashing each page in a worker thread and giving the loop a turn
    between pages; memory stays flat in the chain's length.

    The chain's last number and head are read together first: rolls appended during the walk
    are left to the next one.
    """
    async with transaction(db) as session:
        size, head = await ledger.chain_state_in(session, f"campaign:{campaign.id}")
        anchor = (
            None
            if start is None
            else await ledger.find_number_in(session, start.number, campaign_id=campaign.id)
        )
    after = 0 if start is None else start.number
    walk = ChainWalk() if start is None else ChainWalk(start.head, start.number)
    if start is not None:
        problem = _checkpoint_problem(start, anchor, size)
        if problem is not None:
            return LogCheck(campaign, 0, start.head, problem, since=start.number)
    total = size - after
    await walks.tell(progress, 0, total)
    while after < size:
        async with reading(db) as session:
            page = await ledger.chain_page_in(session, campaign.id, after, size, walks.PAGE)
            page = await ledger.with_salts_in(session, page)
        if not page:
            break
        if await asyncio.to_thread(walk.feed, page) is not None:
            break
        after = page[-1].number
        await walks.tell(progress, after - (0 if start is None else start.number), total)
        await walks.turn()
    walk.end(head)
    return LogCheck(
        campaign, walk.count, walk.previous, walk.broken, since=0 if start is None else start.number
    )


def _checkpoint_problem(start: Checkpoint, anchor: RollView | None, size: int) -> Break | None:
    """The checkpoint's roll must still be there, with the head the message published."""
    if size < start.number or anchor is None:
        return Break(None, "rolls checked before are missing from the log")
    if anchor.chain != start.head:
        return Break(
            start.number, "it no longer has the head published when the log was last checked"
        )
    return None


async def last_checkpoint(db: Database, campaign_id: int) -> Checkpoint | None:
    """Where the last intact ``/verify log`` of the campaign ended, if it was published."""
    async with transaction(db) as session:
        found = (
            await session.execute(
                select(log_checkpoints).where(log_checkpoints.c.campaign_id == campaign_id)
            )
        ).first()
    if found is None:
        return None
    return Checkpoint(
        int(found.number), str(found.head), int(found.channel_id), int(found.message_id)
    )


async def record_checkpoint(db: Database, campaign_id: int, checkpoint: Checkpoint) -> None:
    """Keep an intact check's end and the message that published its head, for the next one."""
    values = {
        "number": checkpoint.number,
        "head": checkpoint.head,
        "channel_id": checkpoint.channel_id,
        "message_id": checkpoint.message_id,
        "checked_at": datetime.now(UTC),
    }
    async with transaction(db) as session:
        await session.execute(
            insert_for(session, log_checkpoints)
            .values(campaign_id=campaign_id, **values)
            .on_conflict_do_update(index_elements=["campaign_id"], set_=values)
        )


async def verify_log(
    db: Database,
    caller: Caller,
    *,
    full: bool = False,
    confirm: Confirm | None = None,
    progress: walks.Progress | None = None,
) -> LogCheck:
    """``/verify log:True``: the chain of this channel's campaign, from the last published
    checkpoint that ``confirm`` reads back (or all of it: ``full``, no checkpoint, or one that
    does not read back)."""
    campaign = await campaign_here(db, caller)
    start = None if full else await last_checkpoint(db, campaign.id)
    refused = False
    if start is not None and confirm is None:
        start = None  # nobody to read the message back: the whole walk
    elif start is not None and confirm is not None and not await confirm(start):
        start, refused = None, True
    async with transaction(db) as session:
        size = await ledger.chain_size_in(session, f"campaign:{campaign.id}")
    rows = max(0, size - (start.number if start else 0))
    budgets.charge(caller, budgets.LEDGER_ROW * rows)
    async with walks.one_walk(campaign.id, "a /verify log", rows):
        checked = await check_campaign_log(db, campaign, start=start, progress=progress)
    return replace(checked, checkpoint_unconfirmed=refused)


PERSONAL_DATA = declare(
    PersonalData(
        "log checks",
        not_personal={
            "log_checkpoints": "where /verify log last found a campaign's chain intact "
            "(number, head, message)"
        },
    )
)
