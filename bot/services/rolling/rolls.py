"""The generic dice roller behind /roll: any channel, no campaign needed, always recorded."""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.db.engine import Database
from bot.dice import RollResult, parse_many, roll_many
from bot.dice.batch import Batch
from bot.services.kit import budgets
from bot.services.kit.context import Caller
from bot.services.kit.sql import Executor, core_transaction
from bot.services.rolling.reads import Reads
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.trust import fairness, secrecy
from bot.words import LedgerKind, SecrecyCommand, Visibility


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """A recorded generic roll."""

    roll_id: int
    results: tuple[RollResult, ...]  # one per roll: repeats (6#4d6) and rolls separated by ;
    label: str | None
    visibility: Visibility = Visibility.PUBLIC
    #: SHA-256 commitment of a hidden roll (shown on its public stub).
    commitment: str | None = None
    campaign: CampaignView | None = None
    #: The public number printed as ``#N`` and the row's chain link (docs/secret-rolls.md).
    number: int = 0
    chain: str = ""
    #: Canonical notation of everything rolled, e.g. ``6#4d6kh3`` or ``1d20+5; 2d6``.
    notation: str = ""
    #: The seed rotation this roll set off (its old seed revealed), to announce.
    rotation: fairness.Rotation | None = None

    @property
    def result(self) -> RollResult:
        """The first (usually only) roll."""
        return self.results[0]

    @property
    def gm_targets(self) -> secrecy.GmTargets:
        """Where the GM copy of a hidden roll goes."""
        return secrecy.GmTargets.of(self.campaign)


@dataclass(frozen=True, slots=True)
class PreparedRoll:
    """A generic roll read and parsed, no die rolled: its dice (limits checked), its label and
    the campaign it is filed under. :func:`roll_prepared_in` rolls it."""

    batch: Batch
    label: str | None
    #: The command whose campaign default a visibility of None means ("roll" or "gm-roll").
    command: str
    campaign: CampaignView | None = None
    #: The place as the statement that took this roll's fair draw found it (:class:`Reads`).
    here: fairness.Here | None = None

    @property
    def work(self) -> int:
        """What /roll takes from the budgets, before any die: its dice's worst case."""
        return budgets.dice_work(self.batch)


async def prepare_in(
    session: Executor,
    caller: Caller,
    expression: str,
    *,
    label: str | None = None,
    command: str = SecrecyCommand.ROLL,
    dialect: str | None = None,
    reads: Reads | None = None,
) -> PreparedRoll:
    """Parse one command's rolls in the caller's dialect (the player's, else the campaign's:
    bot/services/rolling/dialects.py), limits checked before any die, and find the campaign
    the row is filed under (none outside one)."""
    reads = reads or Reads(caller)
    if dialect is None:
        dialect = await reads.dialect_in(session)
    batch = parse_many(expression, dialect)
    campaign = await reads.campaign_or_none_in(session)
    label = " ".join(label.split()) if label else None
    return PreparedRoll(batch, label, command, campaign, reads.take_draw())


async def roll_dice(
    db: Database,
    rng: random.Random,
    caller: Caller,
    expression: str,
    *,
    label: str | None = None,
    request: str,
    visibility: Visibility | str | None = Visibility.PUBLIC,
    command: str = SecrecyCommand.ROLL,
    dialect: str | None = None,
) -> DiceRoll:
    """Parse (limits checked before any die), roll and record one command's rolls.

    Several rolls (``6#4d6kh3``, ``1d20+5; 2d6``) are one ledger row: every term keeps the
    index of its roll, and the outcome lists each total.

    In a campaign's channel the row is filed under that campaign, so /history finds it.
    ``visibility`` None means the campaign's default for ``command`` ("roll" or "gm-roll");
    hidden rolls are recorded with their commitment (services/trust/secrecy.py).
    """
    async with core_transaction(db) as session:
        # One statement: the place's campaign and dice dialects, and with fair dice the draw
        # (a DiceError or OverBudget below rolls it back: nothing changes).
        prepared = await prepare_in(
            session,
            caller,
            expression,
            label=label,
            command=command,
            dialect=dialect,
            reads=Reads.for_one(caller, rng),
        )
        budgets.charge(caller, prepared.work)
        return await roll_prepared_in(
            session, prepared, rng, caller, request, visibility=visibility
        )


async def roll_prepared_in(
    session: Executor,
    prepared: PreparedRoll,
    rng: random.Random,
    caller: Caller,
    request: str,
    *,
    visibility: Visibility | str | None = Visibility.PUBLIC,
) -> DiceRoll:
    """Roll a prepared generic roll and record it in the caller's transaction."""
    batch, label, campaign = prepared.batch, prepared.label, prepared.campaign
    if prepared.command == SecrecyCommand.GM_ROLL:
        secrecy.require_campaign_gm(campaign, caller, "roll with /gm roll")
    chosen = secrecy.resolve_visibility(visibility, campaign, prepared.command)
    draw = None
    if fairness.chosen_source(rng):
        campaign_id = campaign.id if campaign else None
        draw = await fairness.draw_for_in(session, caller, prepared.here, campaign_id, chosen)
        rng = draw.rng
    results = roll_many(batch, rng)
    if len(results) == 1:
        result = results[0]
        record = result.to_record()
        dice = record["terms"]
        outcome: dict[str, object] = {
            "total": result.total,
            "label": label,
            "expression": result.expression,
        }
        if result.compared is not None:
            outcome["passed"] = result.passed
    else:
        dice = [
            {**term, "roll": index}
            for index, rolled in enumerate(results)
            for term in rolled.to_record()["terms"]
        ]
        outcome = {
            "totals": [r.total for r in results],
            "label": label,
            "expression": batch.text,
        }
    if draw is not None:
        outcome["fair"] = draw.record()
    recorded = await ledger.record_in(
        session,
        ledger.NewRoll(
            origin=ledger.Origin.of(caller),
            kind=LedgerKind.ROLL,
            request=request,
            dice=dice,
            outcome=outcome,
            visibility=chosen,
            campaign_id=campaign.id if campaign else None,
        ),
    )
    return DiceRoll(
        recorded.id,
        results,
        label,
        chosen,
        recorded.commitment,
        campaign,
        recorded.number,
        recorded.chain,
        batch.text,
        draw.rotation if draw is not None else None,
    )
