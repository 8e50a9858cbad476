"""/reroll: reroll one d20 of your latest d20-check roll made with advantage or disadvantage.

The text: "When you have Advantage or Disadvantage and something in the game lets you reroll
the d20, you can reroll only one of the dice. You choose which one." Advantage and
Disadvantage come "on an ability check, a saving throw, or an attack roll", so a check, a save
and an attack are rerolled alike. The "something in the game" is the GM's to allow: the
campaign's ``rerolls`` setting (off by default).

The reroll is a new ledger row (kind ``d20-reroll``) linked to the original by its id and
number; the original row is never changed (the ledger is append-only and hash-chained). It
keeps the original's visibility, so a hidden roll's reroll stays hidden. A roll is rerolled at
most once: only a player's latest check, save or attack can be, and after a reroll the latest
is the reroll itself (read under the campaign chain's lock, so concurrent /reroll see each
other).

An attack's reroll (:func:`bot.rules.d20_check.reroll_attack`) keeps its modifiers, AC and
crit rules. Where the text is silent, the project rules (docs/rules/d20-check.md): the damage
follows what the new d20 decides. A miss that becomes a hit rolls its damage; a hit that stays
a hit keeps the damage dice as they fell (the reroll is of the d20, not of the damage); a hit
that becomes a miss deals none. The target's AC loss follows the new result: for a public
attack the sheet is corrected by the difference in the reroll's transaction; a hidden one's
waits for the reveals (:func:`bot.services.store.pending.ac_loss_on_reveal_in`).
"""

from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass
from typing import Any

from bot.db.engine import Database
from bot.dice import roll
from bot.rules import d20_check
from bot.rules.common import Advantage
from bot.rules.systems.base import SYSTEM_FIELD
from bot.rules.systems.commands import require as require_rule
from bot.rules.systems.d20 import D20, attack_from_record, check_from_record
from bot.services.kit import budgets
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NoCampaign, NotFound
from bot.services.kit.serialize import to_jsonable
from bot.services.kit.sql import Executor, core_transaction
from bot.services.rolling.attacks import (
    AttackResult,
    Damage,
    KeptDamage,
    damage_expression,
    roll_damage,
)
from bot.services.rolling.checks import CheckResult
from bot.services.store import characters, ledger
from bot.services.store.campaigns import CampaignView, campaign_for_channel_in
from bot.services.store.characters import MAX_AC_LOSS, load_character_in
from bot.services.trust import fairness
from bot.words import LedgerKind, Visibility

#: The rows /reroll looks at: the player's own checks, saves and attacks, and rerolls.
_KINDS = (LedgerKind.CHECK, LedgerKind.SAVE, LedgerKind.ATTACK, LedgerKind.D20_REROLL)
DICE = {"first": 0, "second": 1}


@dataclass(frozen=True, slots=True)
class RerollResult:
    """A recorded reroll: the new outcome as a check or an attack result, and what was
    replaced."""

    check: CheckResult | None
    which: str
    replaced: int
    original_number: int
    #: The new face of the rerolled die.
    new: int = 0
    #: A rerolled attack, as an attack result (``check`` is then None).
    attack: AttackResult | None = None
    #: An attack's original: whether it hit, its damage, and the AC its critical took.
    original_hit: bool = False
    original_damage: int | None = None
    original_ac_lost: int = 0
    #: The target's sheet was corrected now (a public attack whose sheet may change).
    sheet_corrected: bool = False

    @property
    def roll(self) -> CheckResult | AttackResult:
        """The reroll's recorded row, as delivery reads it."""
        found = self.attack or self.check
        assert found is not None
        return found

    @property
    def roller(self) -> str:
        """Who rolled: the character (or a GM's monster)."""
        if self.attack is not None:
            return self.attack.attacker
        assert self.check is not None
        return self.check.character.name

    @property
    def title(self) -> str:
        """What was rerolled, as the stub of a hidden reroll names it."""
        if self.attack is not None:
            return self.attack.title
        assert self.check is not None
        return self.check.plan_title


def _outcome(data: Any) -> d20_check.CheckOutcome | None:
    """The d20-check outcome a check or save row stores, or None for any other shape."""
    if not isinstance(data, dict) or "kept" not in data or "kind" not in data:
        return None
    if data.get(SYSTEM_FIELD, D20.key) != D20.key:
        return None
    try:
        return check_from_record(data)
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
        fair_dice = fairness.chosen_source(rng)
        if fair_dice:
            # The reroll's new dice come from a draw of their own, taken once the rerolled
            # row's visibility is known; its seed's lock is taken now, before the chain's, in
            # the order every roll takes them (docs/fair-dice.md).
            await fairness.hold_in(session, campaign.id, caller)
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
        if row.kind == LedgerKind.ATTACK:
            return await _reroll_attack_in(
                session, rng, caller, campaign, row, which, request, fair_dice=fair_dice
            )
        original = _original(row)
        if row.character_id is None:
            raise NotFound(f"Roll #{row.number}'s character no longer exists.")
        character = await load_character_in(session, row.character_id)
        budgets.charge(caller, budgets.ROLL_ROW)  # a recorded rules roll (budgets.py)
        visibility = row.visibility
        draw = None
        if fair_dice:  # the new d20, as the rules draw it
            draw = await fairness.draw_in(session, caller, campaign.id, visibility)
            rng = draw.rng
        outcome = d20_check.reroll_one(original, DICE[which], rng)
        replaced = original.dice[DICE[which]]
        stored: dict[str, Any] = {
            "original_id": row.id,
            "original_number": row.number,
            "die": which,
            "replaced": replaced,
            "outcome": to_jsonable(outcome),
        }
        if draw is not None:
            stored["fair"] = draw.record(fairness.D20_DRAWS)
        recorded = await ledger.record_in(
            session,
            ledger.NewRoll(
                origin=ledger.Origin.of(caller),
                kind=LedgerKind.D20_REROLL,
                request=request,
                dice=[outcome.dice[DICE[which]]],
                outcome=stored,
                visibility=visibility,
                campaign_id=campaign.id,
                character_id=character.id,
                character_name=character.name,
                named=await ledger.names_of_in(session, row.id),
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
            draw.rotation if draw is not None else None,
        ),
        which,
        replaced,
        row.number,
        outcome.dice[DICE[which]],
    )


def _allowed(campaign: CampaignView) -> None:
    require_rule(campaign.rules, "rerolls")
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
    outcome = _outcome(row.outcome)
    if outcome is None or len(outcome.dice) != 2 or outcome.advantage is Advantage.NONE:
        raise _single_die(row)
    return outcome


def _single_die(row: ledger.RollView) -> InvalidValue:
    return InvalidValue(
        f"Your latest roll (#{row.number}) was made without advantage or disadvantage: "
        "there is only one d20, so no die to choose. Nothing changed."
    )


# --- attacks ---------------------------------------------------------------------------------


def _attack_outcome(data: Any) -> d20_check.AttackOutcome | None:
    """The attack outcome an attack row stores (its system's decoder), or None for any other
    shape."""
    attack = data.get("attack") if isinstance(data, dict) else None
    if not isinstance(attack, dict):
        return None
    try:
        return attack_from_record(attack)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _quality(text: Any) -> d20_check.ItemQuality | None:
    return d20_check.ItemQuality(text) if isinstance(text, str) else None


def _kept(
    old: Any,
    number: int,
    outcome: d20_check.AttackOutcome,
    expression: Any,
    rng: random.Random,
    *,
    double: bool,
) -> KeptDamage:
    """A hit that stays a hit keeps its damage as rolled; only a critical's second roll of
    every die (the GM's crit-damage option) follows the new result."""
    again = old.get("again") if double and outcome.critical else None
    extra = sum(int(t["subtotal"]) for t in again["terms"]) if isinstance(again, dict) else 0
    fresh = None
    if double and outcome.critical and again is None and expression is not None:
        fresh = roll(expression, rng)  # a new critical: every damage die again
    return KeptDamage(
        expression=str(old["expression"]),
        rolled=int(old["roll"]["total"]),
        extra=extra,
        number=number,
        again=fresh,
    )


def _kept_record(kept: KeptDamage, old: Any) -> dict[str, Any]:
    """The kept damage for the ledger: the dice as the original rolled them, any new ones."""
    again: Any = None
    if kept.again is not None:
        again = kept.again.to_record()
    elif kept.extra:
        again = old.get("again")
    return {
        "expression": kept.expression,
        "roll": old["roll"],
        "again": again,
        "total": kept.total,
        "kept_from": kept.number,
    }


async def _reroll_attack_in(
    session: Executor,
    rng: random.Random,
    caller: Caller,
    campaign: CampaignView,
    row: ledger.RollView,
    which: str,
    request: str,
    *,
    fair_dice: bool = False,
) -> RerollResult:
    """Reroll one d20 of the attack ``row`` (see the module docstring), in the caller's
    transaction: the new row and the target's corrected AC commit together. ``fair_dice``:
    the new dice come from a draw of this row's own (the seed's lock already held)."""
    data = row.outcome
    original = _attack_outcome(data)
    inputs = data.get("inputs") if isinstance(data, dict) else None
    if original is None or not isinstance(inputs, dict):
        raise InvalidValue(
            f"Your latest roll (#{row.number}) is an attack recorded before attacks could be "
            "rerolled: it does not say its damage dice and items. Nothing changed."
        )
    if len(original.dice) != 2 or original.advantage is Advantage.NONE:
        raise _single_die(row)
    expression = damage_expression(inputs.get("damage"))
    # The roll and its row, and its damage's worst case twice, as /attack is charged.
    dice = 0 if expression is None else 2 * budgets.dice_work(expression)
    budgets.charge(caller, budgets.ROLL_ROW + dice)
    double = bool(inputs.get("crit_double_dice"))
    draw = None
    if fair_dice:
        draw = await fairness.draw_in(session, caller, campaign.id, row.visibility)
        rng = draw.rng
    outcome = d20_check.reroll_attack(
        original,
        DICE[which],
        rng,
        weapon_quality=_quality(inputs.get("weapon_quality")),
        weapon_magic_bonus=int(inputs.get("weapon_magic") or 0),
        armor_quality=_quality(inputs.get("armour_quality")),
        armor_magic_bonus=int(inputs.get("armour_magic") or 0),
    )
    old = data.get("damage")
    damage: Damage | None = None
    kept: KeptDamage | None = None
    if outcome.hit and isinstance(old, dict):
        kept = _kept(old, row.number, outcome, expression, rng, double=double)
    elif outcome.hit:
        damage = roll_damage(expression, outcome, rng, double=double)
    total = kept.total if kept else damage.total if damage else 0
    before = int(data.get("ac_loss_before") or 0)
    lost = min(total if outcome.lowers_target_ac else 0, MAX_AC_LOSS - before)
    original_lost = int(data.get("ac_lost") or 0)
    target_id, target = data.get("target_id"), data.get("target")
    may_change = bool(data.get("sheet_changes", True))
    record = {
        "original_id": row.id,
        "original_number": row.number,
        "die": which,
        "replaced": original.dice[DICE[which]],
        "attack": to_jsonable(outcome),
        "ac_given": data.get("ac_given"),
        "ac_from_sheet": bool(data.get("ac_from_sheet")),
        "ac_loss_before": before,
        "damage": _kept_record(kept, old) if kept else damage.to_record() if damage else None,
        "target": target,
        "target_id": target_id,
        "sheet_changes": may_change,
        "ac_lost": lost,
        "inputs": inputs,
    }
    if draw is not None:
        record["fair"] = fairness.attack_record(draw, _drawn(original, outcome, damage, kept))
    recorded = await ledger.record_in(
        session,
        ledger.NewRoll(
            origin=ledger.Origin.of(caller),
            kind=LedgerKind.D20_REROLL,
            request=request,
            dice=[outcome.dice[DICE[which]]],
            outcome=record,
            visibility=row.visibility,
            campaign_id=campaign.id,
            character_id=row.character_id,
            character_name=row.character_name,
            named=await ledger.names_of_in(session, row.id),
        ),
    )
    # A public attack's critical changed its target's sheet at once: the reroll corrects it
    # by the difference now. A hidden one's waits for the reveals (store/pending.py).
    stored = False
    loss_after = before + lost
    if isinstance(target_id, int) and may_change and row.visibility is Visibility.PUBLIC:
        if lost != original_lost:
            await characters.lower_ac_in(session, target_id, lost - original_lost)
        stored = True
        with contextlib.suppress(NotFound):
            loss_after = (await load_character_in(session, target_id)).ac_loss
    attacker = row.character_name or "Monster"
    ability = outcome.modifiers[0][0] if row.character_id is not None else ""
    what = f"{ability} attack" if ability else "attack"
    result = AttackResult(
        roll_id=recorded.id,
        campaign=campaign,
        attacker=attacker,
        title=f"{what}, {which} die rerolled (roll #{row.number})",
        outcome=outcome,
        ac_given=int(data.get("ac_given") or 0),
        ac_loss_before=before,
        target=target if isinstance(target, str) else None,
        damage=damage,
        ac_lost=lost,
        ac_loss_after=loss_after,
        stored=stored and lost > 0,
        sheet_locked=isinstance(target, str) and not may_change,
        ac_from_sheet=bool(data.get("ac_from_sheet")),
        visibility=row.visibility,
        commitment=recorded.commitment,
        number=recorded.number,
        chain=recorded.chain,
        character_id=row.character_id,
        kept_damage=kept,
        rotation=draw.rotation if draw is not None else None,
    )
    old_total = old.get("total") if isinstance(old, dict) else None
    return RerollResult(
        None,
        which,
        original.dice[DICE[which]],
        row.number,
        outcome.dice[DICE[which]],
        attack=result,
        original_hit=original.hit,
        original_damage=old_total if isinstance(old_total, int) else None,
        original_ac_lost=original_lost,
        sheet_corrected=stored,
    )


def _drawn(
    original: d20_check.AttackOutcome,
    outcome: d20_check.AttackOutcome,
    damage: Damage | None,
    kept: KeptDamage | None,
) -> list[str]:
    """What a rerolled attack drew, in order (:data:`fairness.ATTACK_PARTS`): the new d20, a
    quality save the new result called for (one the original's result already had is kept),
    new damage, or a new critical's second roll of the kept damage's dice."""
    parts = ["d20"]
    if outcome.weapon_save is not None and not original.fumble:
        parts.append("weapon_save")
    if outcome.armor_save is not None and not original.critical:
        parts.append("armor_save")
    if damage is not None:
        parts.append("damage")
        if damage.again is not None:
            parts.append("again")
    elif kept is not None and kept.again is not None:
        parts.append("again")
    return parts


def _title(outcome: d20_check.CheckOutcome, which: str, number: int) -> str:
    what = "saving throw" if outcome.kind is d20_check.CheckKind.SAVING_THROW else "check"
    return f"{outcome.ability} {what}, {which} die rerolled (roll #{number})"
