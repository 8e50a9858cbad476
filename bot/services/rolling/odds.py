"""Odds before you roll: the rules engine's exact probabilities, for the caller's character.

Nothing is rolled or recorded. The numbers are the engine's own exact odds (Fractions), so
``/odds`` and ``/check`` can never disagree; rounding happens only when they are displayed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from bot.db.engine import Database
from bot.dice import exact_odds, parse
from bot.dice.dialects import DEFAULT_DIALECT
from bot.dice.limits import MAX_ODDS_COST
from bot.dice.odds import OddsMeter, odds_cost
from bot.services.kit import budgets
from bot.services.kit.context import Caller
from bot.services.kit.sql import transaction
from bot.services.rolling import checks
from bot.services.rolling.checks import CheckOptions, CheckPlan
from bot.services.store import characters, pending
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView
from bot.services.trust.access import campaign_here

#: Outcome names best first, so every chart reads from the best result down.
_BEST_FIRST = (
    "Critical Success",
    "Major Success",
    "Normal Success",
    "Limited Success",
    "Success",
    "Pass",
    "Lucky",
    "Failure",
    "Fail",
    "Not lucky",
    "Critical Failure",
)


@dataclass(frozen=True, slots=True)
class OddsReport:
    """Exact odds of each outcome, in display order, and the single chance of success if any."""

    title: str
    outcomes: tuple[tuple[str, Fraction], ...]
    success: Fraction | None = None
    success_label: str = "Chance of success"
    #: Totals (dice, a d20 check without DC): a chart by total, which may be grouped.
    numeric: bool = False


def _ordered(odds: Mapping[str, Fraction]) -> tuple[tuple[str, Fraction], ...]:
    if all(name in _BEST_FIRST for name in odds):
        return tuple(sorted(odds.items(), key=lambda item: _BEST_FIRST.index(item[0])))
    return tuple(odds.items())


async def _context(db: Database, caller: Caller) -> tuple[CampaignView, CharacterView]:
    campaign = await campaign_here(db, caller)
    return campaign, await characters.active_character(db, campaign.id, caller.user_id)


def _setup_words(
    campaign: CampaignView,
    character: CharacterView,
    options: CheckOptions,
    plan: CheckPlan,
    carry: int = 0,
) -> list[str]:
    """What the odds assume, in the table's words: rank, advantage, DC, carry-over…"""
    words = campaign.rules.odds_words(campaign, character, options, plan.ability, carry)
    if options.advantage and not options.disadvantage:
        words.append("advantage")
    elif options.disadvantage and not options.advantage:
        words.append("disadvantage")
    if options.reliable and not options.unreliable:
        words.append("reliable")
    elif options.unreliable and not options.reliable:
        words.append("unreliable")
    return words


def _success(odds: Mapping[str, Fraction]) -> Fraction | None:
    """One chance of success where the result is pass/fail (a DC, a threshold, a save)."""
    for names in (("Critical Success", "Success"), ("Success",), ("Pass",), ("Lucky",)):
        if all(n in odds for n in names) and "Major Success" not in odds:
            return sum((odds[n] for n in names), Fraction(0))
    return None


def _report(title: str, plan: CheckPlan, caller: Caller) -> OddsReport:
    budgets.charge(caller, budgets.RULES_ODDS)
    odds = plan.odds()
    if all(name.startswith("total ") for name in odds):
        totals = {int(name.removeprefix("total ")): p for name, p in odds.items()}
        return OddsReport(
            title, tuple((str(k), p) for k, p in sorted(totals.items())), numeric=True
        )
    return OddsReport(title, _ordered(odds), _success(odds))


async def _active_carry_over(
    db: Database, campaign: CampaignView, character: CharacterView, ability: str
) -> int:
    """The carry-over the next test would use: only an active one (threshold ruling 4; one
    from a hidden, unrevealed roll waits and must not show here)."""
    if not campaign.rules.uses_carry_over(campaign):
        return 0
    name = campaign.ability(ability)
    async with transaction(db) as session:
        found = await pending.carry_overs_in(session, character.id)
    return next((c.value for c in found if c.ability == name and c.active), 0)


async def check_odds(db: Database, caller: Caller, options: CheckOptions) -> OddsReport:
    """The odds of ``/check`` with these options, for the caller's active character."""
    options = await checks.with_helper(db, caller, options)
    campaign, character = await _context(db, caller)
    carry = await _active_carry_over(db, campaign, character, options.ability)
    plan = checks.plan_check(campaign, character, options, carry_over=carry)
    words = [plan.title, *_setup_words(campaign, character, options, plan, carry)]
    return _report(f"{character.name}, {', '.join(words)}", plan, caller)


async def save_odds(db: Database, caller: Caller, options: CheckOptions) -> OddsReport:
    """The odds of ``/save`` with these options, for the caller's active character."""
    options = await checks.with_dc_source(db, caller, options)
    campaign, character = await _context(db, caller)
    plan = checks.plan_save(campaign, character, options)
    words = [plan.title, *_setup_words(campaign, character, options, plan)]
    return _report(f"{character.name}, {', '.join(words)}", plan, caller)


async def luck_odds(db: Database, caller: Caller) -> OddsReport:
    """The odds of a Pen & Dagger luck roll (lucky on 10 or higher)."""
    campaign, character = await _context(db, caller)
    plan = checks.plan_luck(campaign, character)
    return _report(f"{character.name}, luck roll", plan, caller)


async def roll_odds(
    caller: Caller,
    expression: str,
    at_least: int | None = None,
    dialect: str = DEFAULT_DIALECT,
) -> OddsReport:
    """``/odds roll``: :func:`dice_odds` charged to the caller's budgets, computed in a
    worker thread (up to ~10-30 ms of engine work must not hold up everyone else's commands).

    The engine's static estimate is taken up front (what it refuses at once is free); the
    steps it really metered are then charged or refunded, as the estimate can fall short
    (keep/drop) by a factor of a few. Metering means the engine's cache of results is not
    used here: every request pays for its own work, a repeated costly one included.
    """
    parsed = parse(expression, dialect)  # the player's dialect (bot/services/rolling/dialects.py)
    estimate = odds_cost(parsed)
    if estimate > MAX_ODDS_COST:
        return dice_odds(expression, at_least, dialect)  # refused by the estimate, at once
    taken = budgets.odds_work(estimate)
    budgets.charge(caller, taken)
    meter = OddsMeter()
    try:
        return await asyncio.to_thread(_dice_odds, expression, at_least, meter, dialect)
    finally:
        if caller.budget is not None:
            # A refused step is charged to the meter but never runs: the work is capped.
            done = budgets.odds_work(min(meter.used, meter.budget))
            caller.budget.spend(caller.user_id, caller.guild_id, done - taken)
            caller.budget.refund(caller.user_id, caller.guild_id, taken - done)


def dice_odds(
    expression: str, at_least: int | None = None, dialect: str = DEFAULT_DIALECT
) -> OddsReport:
    """Exact odds of a ``/roll`` expression's total; with ``at_least``, P(total ≥ it)."""
    return _dice_odds(expression, at_least, None, dialect)


def _dice_odds(
    expression: str,
    at_least: int | None,
    meter: OddsMeter | None = None,
    dialect: str = DEFAULT_DIALECT,
) -> OddsReport:
    parsed = parse(expression, dialect)
    totals = exact_odds(parsed, meter)
    if parsed.compare is not None:  # 1d20+5 >= 15: the total is 1 (pass) or 0 (fail)
        passed = totals.get(1, Fraction(0))
        return OddsReport(
            " ".join(expression.split()),
            (("Pass", passed), ("Fail", 1 - passed)),
            passed,
            "Chance to pass",
        )
    success = None
    if at_least is not None:
        success = sum((p for total, p in totals.items() if total >= at_least), Fraction(0))
    return OddsReport(
        " ".join(expression.split()),
        tuple((str(k), p) for k, p in sorted(totals.items())),
        success,
        f"Chance of a total of {at_least} or more",
        numeric=True,
    )
