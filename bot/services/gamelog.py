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

from bot.db.engine import Database
from bot.services import commitments as cm
from bot.services import ledger
from bot.services._sql import transaction
from bot.services.campaigns import CampaignView
from bot.services.context import Caller
from bot.services.ledger import RollView
from bot.services.secrecy import commitment_of, encoding_of_row, who_matches
from bot.services.sheets import campaign_here


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


def check_rows(
    rows: Iterable[RollView], stored_head: str | None, *, every_commitment: bool = False
) -> tuple[int, str, Break | None]:
    """Walk rows (in number order) from the genesis link; the first break, if any.

    Pure over the rows, so the importer checks a file's chain with the same code; it also
    checks the commitments of hidden rows not revealed yet (``every_commitment``), whose salt
    an operator's export carries.
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
        revealed = every_commitment or row.revealed_at is not None
        sealed = row.commitment is not None and row.salt and revealed
        if sealed and commitment_of(encoding_of_row(row)) != row.commitment:
            return count, previous, Break(row.number, "its result does not match its commitment")
        previous = row.chain
    if stored_head is not None and stored_head != previous:
        return count, previous, Break(None, "the newest rolls are missing from the log")
    return count, previous, None


async def check_campaign_log(db: Database, campaign: CampaignView) -> LogCheck:
    """Walk the campaign's whole chain."""
    async with transaction(db) as session:
        rows = await ledger.chain_rows_in(session, campaign.id)
        head = await ledger.chain_head_in(session, f"campaign:{campaign.id}")
    count, last, broken = check_rows(rows, head)
    return LogCheck(campaign, count, last, broken)


async def verify_log(db: Database, caller: Caller) -> LogCheck:
    """``/verify log:True``: the chain of this channel's campaign."""
    return await check_campaign_log(db, await campaign_here(db, caller))
