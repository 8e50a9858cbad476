"""The tamper-evident game log: walk a campaign's hash chain and say where it breaks (issue 15).

Each ledger row stores ``link = sha256(previous link || sha256(entry))``
(bot/services/commitments.py). Walking the rows in number order and recomputing every link
detects a row changed, removed, inserted or reordered after it was written; the chain's stored
head (``ledger_chains``) catches the newest rows being cut off. Revealed hidden rows are also
checked against their commitment, and every row against its ``who`` digest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass

from bot.db.engine import Database
from bot.services import budgets
from bot.services import commitments as cm
from bot.services._sql import transaction
from bot.services.context import Caller
from bot.services.secrecy import (
    commitment_of,
    encoding_of_row,
    erased_before_format_3,
    fields_match,
    who_matches,
)
from bot.services.sheets import campaign_here
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.store.ledger import RollView
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

    @property
    def intact(self) -> bool:
        return self.broken is None


def redacted(row: RollView) -> bool:
    """A self roll its GM exported before it was revealed: result, salt and personal salt
    left out (bot/services/export.py), so it can be chained but never revealed."""
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
        # Issue 22: an older row bound the erased text in clear; its link still holds (by the
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
        try:
            linked = row.link_from(previous)
        except cm.Unsalted:
            return (
                count,
                previous,
                Break(row.number, "the salts of its text are missing, so it cannot be checked"),
            )
        if linked != row.chain:
            return count, previous, Break(row.number, "it does not link to the roll before it")
        problem = _row_problem(row, every_commitment)
        if problem is not None:
            return count, previous, Break(row.number, problem)
        previous = row.chain
    if stored_head is not None and stored_head != previous:
        return count, previous, Break(None, "the newest rolls are missing from the log")
    return count, previous, None


async def check_campaign_log(db: Database, campaign: CampaignView) -> LogCheck:
    """Walk the campaign's whole chain; the hashing runs in a worker thread (a long game's
    chain takes a while, and must not hold up everyone else's commands)."""
    async with transaction(db) as session:
        rows = await ledger.with_salts_in(session, await ledger.chain_rows_in(session, campaign.id))
        head = await ledger.chain_head_in(session, f"campaign:{campaign.id}")
    count, last, broken = await asyncio.to_thread(check_rows, rows, head)
    return LogCheck(campaign, count, last, broken)


async def verify_log(db: Database, caller: Caller) -> LogCheck:
    """``/verify log:True``: the chain of this channel's campaign."""
    campaign = await campaign_here(db, caller)
    async with transaction(db) as session:
        size = await ledger.chain_size_in(session, f"campaign:{campaign.id}")
    budgets.charge(caller, budgets.LEDGER_ROW * size)
    return await check_campaign_log(db, campaign)
