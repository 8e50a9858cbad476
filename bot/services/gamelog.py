"""The tamper-evident game log: walk a campaign's hash chain and say where it breaks (issue 15).

Each ledger row stores ``link = sha256(previous link || sha256(entry))``
(bot/services/commitments.py). Walking the rows in number order and recomputing every link
detects a row changed, removed, inserted or reordered after it was written; the chain's stored
head (``ledger_chains``) catches the newest rows being cut off. Revealed hidden rows are also
checked against their commitment, and every row against its ``who`` digest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import Visibility, ledger, ledger_chains
from bot.services import commitments as cm
from bot.services._sql import Executor, transaction
from bot.services.campaigns import CampaignView
from bot.services.context import Caller
from bot.services.ledger import RollView, view_of
from bot.services.secrecy import commitment_of, encoding_of_row, who_matches
from bot.services.sheets import campaign_here

#: Rows read per query while walking a long chain.
_PAGE = 500


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

    @property
    def intact(self) -> bool:
        return self.broken is None


def check_rows(rows: Iterable[RollView], stored_head: str | None) -> tuple[int, str, Break | None]:
    """Walk rows (in number order) from the genesis link; the first break, if any.

    Pure over the rows, so the importer checks a file's chain with the same code.
    """
    previous = cm.GENESIS
    count = 0
    last_number = 0
    for row in rows:
        count += 1
        if row.number <= last_number:
            return count, previous, Break(row.number, "its number is out of order")
        last_number = row.number
        if cm.link(previous, row.entry()) != row.chain:
            return count, previous, Break(row.number, "it does not link to the roll before it")
        if who_matches(row) is False:
            return count, previous, Break(
                row.number, "its roller, character or command no longer match what was bound"
            )
        revealed = row.visibility is Visibility.PUBLIC or row.revealed_at is not None
        sealed = row.commitment is not None and row.salt and revealed
        if sealed and commitment_of(encoding_of_row(row)) != row.commitment:
            return count, previous, Break(row.number, "its result does not match its commitment")
        previous = row.chain
    if stored_head is not None and stored_head != previous:
        return count, previous, Break(None, "the newest rolls are missing from the log")
    return count, previous, None


async def _rows_in(session: Executor, campaign_id: int) -> list[RollView]:
    rows: list[RollView] = []
    after = 0
    while True:
        page = (
            await session.execute(
                select(ledger)
                .where(ledger.c.campaign_id == campaign_id, ledger.c.number > after)
                .order_by(ledger.c.number)
                .limit(_PAGE)
            )
        ).all()
        rows.extend(view_of(row) for row in page)
        if len(page) < _PAGE:
            return rows
        after = rows[-1].number


async def check_campaign_log(db: Database, campaign: CampaignView) -> LogCheck:
    """Walk the campaign's whole chain."""
    async with transaction(db) as session:
        rows = await _rows_in(session, campaign.id)
        head = (
            await session.execute(
                select(ledger_chains.c.head).where(
                    ledger_chains.c.key == f"campaign:{campaign.id}"
                )
            )
        ).scalar_one_or_none()
    count, last, broken = check_rows(rows, head)
    return LogCheck(campaign, count, last, broken)


async def verify_log(db: Database, caller: Caller) -> LogCheck:
    """``/verify log:True``: the chain of this channel's campaign."""
    return await check_campaign_log(db, await campaign_here(db, caller))
