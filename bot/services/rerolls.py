"""/reroll: reroll one d20 of your latest d20-check roll made with advantage or disadvantage.

The text: "When you have Advantage or Disadvantage and something in the game lets you reroll
the d20, you can reroll only one of the dice. You choose which one." The "something in the
game" is the GM's to allow: the campaign's ``rerolls`` setting (off by default).

The reroll is a new ledger row (kind ``d20-reroll``) linked to the original by its id and
number; the original row is never changed (the ledger is append-only and hash-chained). It
keeps the original's visibility, so a hidden roll's reroll stays hidden. A roll is rerolled at
most once: only a player's latest check or save can be, and after a reroll the latest is the
reroll itself (read under the campaign chain's lock, so concurrent /reroll see each other).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bot.db.engine import Database
from bot.rules import d20_check
from bot.rules.common import Advantage
from bot.rules.systems import Feature
from bot.services._sql import core_transaction
from bot.services.checks import SYSTEM_NAMES, CheckResult
from bot.services.context import Caller
from bot.services.errors import InvalidValue, NoCampaign, NotFound
from bot.services.serialize import to_jsonable
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView, campaign_for_channel_in
from bot.services.store.characters import load_character_in
from bot.words import LedgerKind

#: The rows /reroll looks at: the player's own checks, saves and attacks, and rerolls.
_KINDS = (LedgerKind.CHECK, LedgerKind.SAVE, LedgerKind.ATTACK, LedgerKind.D20_REROLL)
DICE = {"first": 0, "second": 1}


@dataclass(frozen=True, slots=True)
class RerollResult:
    """A recorded reroll: the new outcome as a check result, and what was replaced."""

    check: CheckResult
    which: str
    replaced: int
    original_number: int
    #: The new face of the rerolled die.
    new: int = 0


def _outcome(data: Any) -> d20_check.CheckOutcome | None:
    """The d20-check outcome a check or save row stores, or None for any other shape."""
    if not isinstance(data, dict) or "kept" not in data or "kind" not in data:
        return None
    try:
        result = data.get("result")
        dc = data.get("dc")
        return d20_check.CheckOutcome(
            kind=d20_check.CheckKind(data["kind"]),
            ability=str(data["ability"]),
            dice=tuple(int(d) for d in data["dice"]),
            kept=int(data["kept"]),
            advantage=Advantage(data.get("advantage") or "none"),
            modifiers=tuple((str(n), int(v)) for n, v in data["modifiers"]),
            dc=None if dc is None else int(dc),
            result=None if result is None else d20_check.CheckResult(result),
            name=str(data.get("name") or ""),
        )
    except (KeyError, TypeError, ValueError):
        return None


async def reroll(
    db: Database, rng: random.Random, caller: Caller, which: str, request: str
) -> RerollResult:
    """Reroll ``which`` ("first" or "second") die of the caller's latest d20-check roll."""
    if which not in DICE:
        raise InvalidValue("Choose which die to reroll: first or second.")
    if caller.guild_id is None:
        raise NoCampaign()
    async with core_transaction(db) as session:
        campaign = await campaign_for_channel_in(
            session, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
        _allowed(campaign)
        # "A roll is rerolled at most once" is a read (the latest roll is not a reroll) then
        # an append: two /reroll at once must not both read the same latest roll. The chain
        # row is the lock every append to the campaign takes anyway; take it before reading.
        await ledger.lock_campaign_chain_in(session, campaign.id)
        latest = await ledger.latest_rolls_in(
            session, campaign.id, limit=1, user_id=caller.user_id, kinds=_KINDS
        )
        if not latest:
            raise NotFound("You have made no d20-check roll in this campaign to reroll.")
        row = latest[0]
        original = _original(row)
        if row.character_id is None:
            raise NotFound(f"Roll #{row.number}'s character no longer exists.")
        character = await load_character_in(session, row.character_id)
        outcome = d20_check.reroll_one(original, DICE[which], rng)
        replaced = original.dice[DICE[which]]
        visibility = row.visibility
        recorded = await ledger.record_in(
            session,
            ledger.NewRoll(
                origin=ledger.Origin.of(caller),
                kind=LedgerKind.D20_REROLL,
                request=request,
                dice=[outcome.dice[DICE[which]]],
                outcome={
                    "original_id": row.id,
                    "original_number": row.number,
                    "die": which,
                    "replaced": replaced,
                    "outcome": to_jsonable(outcome),
                },
                visibility=visibility,
                campaign_id=campaign.id,
                character_id=character.id,
                character_name=character.name,
            ),
        )
    title = _title(outcome, which, row.number)
    return RerollResult(
        CheckResult(
            recorded.id,
            campaign,
            character,
            title,
            LedgerKind.D20_REROLL,
            outcome,
            visibility,
            recorded.commitment,
            recorded.number,
            recorded.chain,
        ),
        which,
        replaced,
        row.number,
        outcome.dice[DICE[which]],
    )


def _allowed(campaign: CampaignView) -> None:
    if Feature.REROLLS not in campaign.rules.features:
        raise InvalidValue(
            "/reroll is a d20 check rule (reroll one die of an advantage roll); this campaign "
            f"plays {SYSTEM_NAMES[campaign.system]}. Nothing changed."
        )
    if not campaign.rerolls:
        raise InvalidValue(
            "Rerolls need something in the game that allows them, and this campaign's GM has "
            "not turned them on (/campaign set rerolls on:true). Nothing changed."
        )


def _original(row: ledger.RollView) -> d20_check.CheckOutcome:
    if row.kind == LedgerKind.D20_REROLL:
        raise InvalidValue(
            f"Your latest roll (#{row.number}) is already a reroll: a die is rerolled once. "
            "Nothing changed."
        )
    if row.kind == LedgerKind.ATTACK:
        raise InvalidValue(
            f"Your latest roll (#{row.number}) is an attack: /reroll rerolls a check or a save. "
            "Nothing changed."
        )
    outcome = _outcome(row.outcome)
    if outcome is None or len(outcome.dice) != 2 or outcome.advantage is Advantage.NONE:
        raise InvalidValue(
            f"Your latest roll (#{row.number}) was made without advantage or disadvantage: "
            "there is only one d20, so no die to choose. Nothing changed."
        )
    return outcome


def _title(outcome: d20_check.CheckOutcome, which: str, number: int) -> str:
    what = "saving throw" if outcome.kind is d20_check.CheckKind.SAVING_THROW else "check"
    return f"{outcome.ability} {what}, {which} die rerolled (roll #{number})"
