"""Checks, saves and luck rolls: each campaign system's core roll, as one transaction.

A check reads the campaign and the character, asks the rules engine for the outcome, and
records the ledger row together with its side effects (a threshold carry-over used and a new
one stored) in the same transaction, so a roll is never half-recorded.

A hidden roll (gm, blind, self) changes nothing others can observe until it is revealed
(issue 15): the carry-over it earns is stored by its reveal (:func:`pending.on_reveal_in`).
It does use, at once, an active carry-over already pending for the ability: that is the same
whatever its dice show, so it tells nobody more than the roll's stub (a test of that ability
was made), and deferring it would let the same modifier be used twice (ruling 4: once).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import Any

from bot.db.engine import Database
from bot.db.models import RuleSystem, Visibility
from bot.quoting import escape, quote
from bot.rules import d20_check, roll_under, threshold
from bot.rules import pen_and_dagger as pd
from bot.services import ledger, pending, secrecy
from bot.services._sql import Executor, core_transaction, transaction
from bot.services.access import require_gm
from bot.services.campaigns import SYSTEM_NAMES as SYSTEM_NAMES  # its old home: re-exported
from bot.services.campaigns import CampaignView, campaign_for_channel_in
from bot.services.characters import (
    CharacterView,
    character_by_name_in,
    fortune_maximum,
    resolve_character_in,
)
from bot.services.context import Caller
from bot.services.errors import DuplicateInteraction, InvalidValue, NoCampaign
from bot.services.serialize import to_jsonable

Outcome = (
    pd.AttemptOutcome
    | pd.LuckOutcome
    | roll_under.SaveOutcome
    | threshold.ThresholdOutcome
    | d20_check.CheckOutcome
)


#: Options of /check each system has, beyond `ability` (issue: an option the campaign's
#: system does not have gets a clear error naming the system).
CHECK_OPTIONS: Mapping[RuleSystem, frozenset[str]] = {
    RuleSystem.PEN_AND_DAGGER: frozenset(
        {"proficiency", "advantage", "disadvantage", "rank_bonus", "reliable", "unreliable"}
    ),
    RuleSystem.ROLL_UNDER: frozenset(),
    RuleSystem.THRESHOLD: frozenset({"dc", "difficulty"}),
    RuleSystem.D20_CHECK: frozenset(
        {"proficiency", "dc", "advantage", "disadvantage", "bonus", "helper"}
    ),
}
#: Options of /save; only these systems have saves (roll-under's save is its check).
SAVE_OPTIONS: Mapping[RuleSystem, frozenset[str]] = {
    RuleSystem.ROLL_UNDER: frozenset(),
    RuleSystem.D20_CHECK: frozenset({"dc", "advantage", "disadvantage", "bonus"}),
}


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What the player asked for; None / False means "not given"."""

    ability: str
    proficiency: str | None = None
    dc: int | None = None
    difficulty: str | None = None
    advantage: bool = False
    disadvantage: bool = False
    bonus: int | None = None
    rank_bonus: int | None = None
    reliable: bool = False
    unreliable: bool = False
    #: d20 check ruling 8: a character working together with the leader (any owner).
    helper: str | None = None

    def given(self) -> list[str]:
        """Names of the options that were set, besides the ability."""
        return [name for name in _OPTION_NAMES if getattr(self, name) not in (None, False)]


#: CheckOptions' option names, once (``fields()`` per call showed in group saves' profile).
_OPTION_NAMES = tuple(f.name for f in fields(CheckOptions) if f.name != "ability")


@dataclass(frozen=True, slots=True)
class CheckPlan:
    """A check ready to roll or to price: the rules call with the character's stats bound."""

    system: RuleSystem
    kind: str
    ability: str
    title: str
    roll: Callable[[random.Random], Outcome]
    odds: Callable[[], Mapping[str, Fraction]]


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A recorded check: the ledger id, who rolled, and the rules engine's outcome."""

    roll_id: int
    campaign: CampaignView
    character: CharacterView
    plan_title: str
    kind: str
    outcome: Outcome
    visibility: Visibility = Visibility.PUBLIC
    #: SHA-256 commitment of a hidden roll (shown on its public stub).
    commitment: str | None = None
    #: The public number printed as ``#N`` and the row's chain link (issue 15).
    number: int = 0
    chain: str = ""

    @property
    def gm_targets(self) -> secrecy.GmTargets:
        """Where the GM copy of a hidden roll goes."""
        return secrecy.GmTargets.of(self.campaign)


def _refuse_options(
    system: RuleSystem, given: list[str], allowed: frozenset[str], cmd: str
) -> None:
    extra = [name for name in given if name not in allowed]
    if extra:
        has = ", ".join(sorted(allowed)) if allowed else "no options besides ability"
        raise InvalidValue(
            f"This campaign plays {SYSTEM_NAMES[system]}, where {cmd} has no "
            f"{', '.join(extra)} (it takes {has})."
        )


def _score(character: CharacterView, ability: str, system: RuleSystem) -> int:
    if ability not in character.scores:
        what = "modifier" if system is RuleSystem.THRESHOLD else "score"
        raise InvalidValue(
            f"{escape(character.name)} has no {ability} {what} yet: set it with "
            f"/character set ability:{ability} value:<number>."
        )
    return character.scores[ability]


def _proficiency(character: CharacterView, name: str) -> tuple[str, str | None, int | None]:
    found = character.proficiencies.get(" ".join(name.split()).casefold())
    if found is None:
        raise InvalidValue(
            f"{escape(character.name)} has no proficiency called {quote(name)}: add it with "
            "/character proficiency, or roll without it."
        )
    return found.name, found.rank, found.degree


def _named(odds: Mapping[Any, Fraction], name: Callable[[Any], str]) -> dict[str, Fraction]:
    return {name(key): p for key, p in odds.items()}


def plan_check(
    campaign: CampaignView,
    character: CharacterView,
    options: CheckOptions,
    *,
    carry_over: int | None = None,
) -> CheckPlan:
    """Bind the character's stats to the campaign system's check (no dice rolled yet).

    ``carry_over`` is the threshold system's pending modifier that applies to this test: the
    one a real roll consumed, or for odds the active one (None: none).
    """
    system = campaign.system
    _refuse_options(system, options.given(), CHECK_OPTIONS[system], "/check")
    ability = campaign.ability(options.ability)
    score = _score(character, ability, system)

    if system is RuleSystem.PEN_AND_DAGGER:
        # Pen & Dagger "Attempts": the rank comes from the named proficiency, or else from the
        # ability score (Ability Scores table, ruling 7).
        if options.proficiency:
            skill, rank_name, _ = _proficiency(character, options.proficiency)
            rank = pd.Rank.parse(rank_name or "")
            title = f"{ability} ({skill}) attempt"
        else:
            rank = pd.ability_rank(score)
            title = f"{ability} attempt"
        fortune_max = fortune_maximum(character.double_fortune)
        kwargs: dict[str, Any] = {
            "advantage": options.advantage,
            "disadvantage": options.disadvantage,
            "rank_adjustment": options.rank_bonus or 0,
            "reliable": options.reliable,
            "unreliable": options.unreliable,
        }
        return CheckPlan(
            system,
            ledger.Kind.ATTEMPT,
            ability,
            title,
            lambda rng: pd.attempt(
                rank, rng, fortune=character.fortune, fortune_max=fortune_max, **kwargs
            ),
            lambda: _named(pd.attempt_odds(rank, **kwargs), lambda lv: lv.display_name),
        )

    if system is RuleSystem.ROLL_UNDER:
        # Roll-under ruling 1: the check is a save, d20 <= score.
        ru_ability = roll_under.Ability.parse(ability)
        p = roll_under.save_odds(score)
        return CheckPlan(
            system,
            ledger.Kind.SAVE,
            ability,
            f"{ability} save",
            lambda rng: roll_under.save(score, rng, ability=ru_ability),
            lambda: {"Pass": p, "Fail": 1 - p},
        )

    if system is RuleSystem.THRESHOLD:
        # Threshold ruling 2: an exact threshold, or a difficulty tier with the campaign's
        # defaults; ruling 4: the stored carry-over applies once.
        target: int | threshold.Difficulty
        if options.dc is not None and options.difficulty:
            raise InvalidValue("Give either dc (the exact threshold) or difficulty, not both.")
        if options.dc is not None:
            target = options.dc
        elif options.difficulty:
            target = threshold.Difficulty.parse(options.difficulty)
        else:
            raise InvalidValue(
                "A threshold test needs a target: dc (the exact threshold) or difficulty."
            )
        tiers = {
            threshold.Difficulty.VERY_EASY: campaign.tiers.very_easy,
            threshold.Difficulty.EASY: campaign.tiers.easy,
            threshold.Difficulty.MODERATE: campaign.tiers.moderate,
            threshold.Difficulty.HARD: campaign.tiers.hard,
            threshold.Difficulty.VERY_HARD: campaign.tiers.very_hard,
        }
        # The caller passes the carry-over that applies (the one consumed, or for odds the
        # active one): a stored one from a hidden roll may be waiting (bot/services/pending.py).
        used = carry_over or 0
        return CheckPlan(
            system,
            "test",
            ability,
            f"{ability} test",
            lambda rng: threshold.test(
                score, target, rng, attribute=ability, carry_over=used, tiers=tiers
            ),
            lambda: _named(
                threshold.test_odds(score, target, used, tiers=tiers), lambda r: r.display
            ),
        )

    # d20 check rulings 1-3: d20 + ability modifier + proficiency bonus x degree + bonus.
    degree = d20_check.ProficiencyDegree.NONE
    prof_name: str | None = None
    title = f"{ability} check"
    if options.proficiency:
        prof_name, _, stored_degree = _proficiency(character, options.proficiency)
        # Stored degrees are 1 (Proficient) or 2 (Expert); ruling 1 caps it there.
        degree = d20_check.ProficiencyDegree.parse(str(stored_degree or 0))
        title = f"{ability} ({prof_name}) check"
    check = d20_check.CheckInput(
        score=score,
        ability=ability,
        level=character.level,
        degree=degree,
        bonus=options.bonus or 0,
        advantage=options.advantage,
        disadvantage=options.disadvantage,
        proficiency_name=prof_name,
        name=character.name,
    )
    if options.helper:
        # d20 check ruling 8: working together, the leader rolls with advantage.
        if " ".join(options.helper.split()).casefold() == character.name.casefold():
            raise InvalidValue(
                f"{escape(character.name)} cannot help themselves: name another character."
            )
        check = d20_check.helped_input(check, {options.helper: True})
        title += f", helped by {options.helper}"
    return _d20_plan(system, ledger.Kind.CHECK, ability, title, check, options.dc)


async def with_helper(db: Database, caller: Caller, options: CheckOptions) -> CheckOptions:
    """The helper must be a character of the campaign (any player's); spelled as stored."""
    if not options.helper or caller.guild_id is None:
        return options
    async with transaction(db) as session:
        campaign = await campaign_for_channel_in(
            session, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
        if campaign.system is not RuleSystem.D20_CHECK:
            return options  # plan_check refuses the option, naming the system
        found = await character_by_name_in(session, campaign.id, options.helper)
    return replace(options, helper=found.name)


def _d20_plan(
    system: RuleSystem,
    kind: str,
    ability: str,
    title: str,
    check: d20_check.CheckInput,
    dc: int | None,
) -> CheckPlan:
    def odds() -> Mapping[str, Fraction]:
        if dc is None:
            return {f"total {k}": p for k, p in d20_check.total_distribution(check).items()}
        p = d20_check.check_odds(check, dc)
        return {"Success": p, "Failure": 1 - p}

    return CheckPlan(
        system, kind, ability, title, lambda rng: d20_check.roll_check(check, rng, dc), odds
    )


def plan_save(campaign: CampaignView, character: CharacterView, options: CheckOptions) -> CheckPlan:
    """A saving throw: d20 check ruling 5, or roll-under's save (its check)."""
    system = campaign.system
    if system not in SAVE_OPTIONS:
        raise InvalidValue(
            f"This campaign plays {SYSTEM_NAMES[system]}, which has no saving throws: use /check."
        )
    _refuse_options(system, options.given(), SAVE_OPTIONS[system], "/save")
    if system is RuleSystem.ROLL_UNDER:
        return plan_check(campaign, character, options)
    ability = campaign.ability(options.ability)
    score = _score(character, ability, system)
    proficient = ability in character.save_proficiencies
    check = d20_check.CheckInput.save(
        score=score,
        ability=ability,
        level=character.level,
        proficient=proficient,
        bonus=options.bonus or 0,
        advantage=options.advantage,
        disadvantage=options.disadvantage,
        name=character.name,
    )
    return _d20_plan(
        system, ledger.Kind.SAVE, ability, f"{ability} saving throw", check, options.dc
    )


def plan_luck(campaign: CampaignView, character: CharacterView) -> CheckPlan:
    """A Pen & Dagger luck roll ("Luck Rolls": lucky on 10 or higher)."""
    if campaign.system is not RuleSystem.PEN_AND_DAGGER:
        raise InvalidValue(
            "Luck rolls are a Pen & Dagger rule; this campaign plays "
            f"{SYSTEM_NAMES[campaign.system]}."
        )
    fortune_max = fortune_maximum(character.double_fortune)
    return CheckPlan(
        campaign.system,
        ledger.Kind.LUCK,
        "",
        "luck roll",
        lambda rng: pd.luck_roll(rng, fortune=character.fortune, fortune_max=fortune_max),
        lambda: {("Lucky" if k else "Not lucky"): p for k, p in pd.luck_odds().items()},
    )


async def _context_in(
    session: Executor, caller: Caller, character_name: str | None, *, as_gm: bool = False
) -> tuple[CampaignView, CharacterView]:
    if caller.guild_id is None:
        raise NoCampaign()
    campaign = await campaign_for_channel_in(
        session, caller.guild_id, caller.channel_id, caller.parent_channel_id
    )
    if as_gm:
        require_gm(campaign, caller, "roll for a player's character")
    character = await resolve_character_in(
        session, campaign.id, caller.user_id, character_name, any_owner=as_gm
    )
    return campaign, character


async def _perform(
    db: Database,
    rng: random.Random,
    caller: Caller,
    request: str,
    planner: Callable[[CampaignView, CharacterView, int | None], CheckPlan],
    *,
    visibility: Visibility | str | None = Visibility.PUBLIC,
    command: str = "check",
    character_name: str | None = None,
    as_gm: bool = False,
) -> CheckResult:
    async with core_transaction(db) as session:
        campaign, character = await _context_in(session, caller, character_name, as_gm=as_gm)
        chosen = secrecy.resolve_visibility(visibility, campaign, command)
        carry_over: int | None = None
        if campaign.system is RuleSystem.THRESHOLD:
            # Plan first so a bad option refuses before anything changes, then consume the
            # carry-over atomically (DELETE ... RETURNING): a modifier is used once, ruling 4.
            ability = planner(campaign, character, 0).ability
            carry_over = await pending.consume_pending_in(session, character.id, ability)
        plan = planner(campaign, character, carry_over)
        outcome = plan.roll(rng)
        recorded = await secrecy.record_roll_in(
            session,
            ledger.NewRoll(
                origin=ledger.Origin(
                    channel_id=caller.channel_id,
                    user_id=caller.user_id,
                    guild_id=caller.guild_id,
                    interaction_id=caller.interaction_id,
                    parent_channel_id=caller.parent_channel_id,
                ),
                kind=plan.kind,
                request=request,
                dice=list(_dice_of(outcome)),
                outcome=to_jsonable(outcome),
                visibility=chosen,
                campaign_id=campaign.id,
                character_id=character.id,
                character_name=character.name,
            ),
        )
        if recorded.duplicate:
            raise DuplicateInteraction(recorded.number)
        if (
            isinstance(outcome, threshold.ThresholdOutcome)
            and outcome.carry_over_next
            and chosen is Visibility.PUBLIC
        ):
            # Issue 15: a hidden roll changes nothing others can observe until it is
            # revealed, so its carry-over is stored by the reveal (pending.on_reveal_in).
            await pending.set_pending_in(
                session, character.id, plan.ability, outcome.carry_over_next, recorded.id
            )
    return CheckResult(
        recorded.id,
        campaign,
        character,
        plan.title,
        plan.kind,
        outcome,
        chosen,
        recorded.commitment,
        recorded.number,
        recorded.chain,
    )


def _dice_of(outcome: Outcome) -> tuple[int, ...]:
    if isinstance(outcome, pd.LuckOutcome):
        return (outcome.die,)
    if isinstance(outcome, roll_under.SaveOutcome):
        return (outcome.roll,)
    return tuple(outcome.dice)


async def perform_check(
    db: Database,
    rng: random.Random,
    caller: Caller,
    options: CheckOptions,
    request: str,
    *,
    visibility: Visibility | str | None = Visibility.PUBLIC,
) -> CheckResult:
    """Roll the campaign system's check for the caller's active character and record it.

    ``visibility`` None means the campaign's default for /check.
    """
    options = await with_helper(db, caller, options)
    return await _perform(
        db,
        rng,
        caller,
        request,
        lambda c, ch, carry: plan_check(c, ch, options, carry_over=carry),
        visibility=visibility,
    )


async def perform_gm_check(
    db: Database,
    rng: random.Random,
    caller: Caller,
    character_name: str,
    options: CheckOptions,
    request: str,
    *,
    visibility: Visibility | str | None = None,
) -> CheckResult:
    """GM only: roll a check with a player's character's stored stats (default blind)."""
    options = await with_helper(db, caller, options)
    return await _perform(
        db,
        rng,
        caller,
        request,
        lambda c, ch, carry: plan_check(c, ch, options, carry_over=carry),
        visibility=visibility,
        command="gm-check",
        character_name=character_name,
        as_gm=True,
    )


async def perform_save(
    db: Database,
    rng: random.Random,
    caller: Caller,
    options: CheckOptions,
    request: str,
    *,
    visibility: Visibility | str | None = Visibility.PUBLIC,
) -> CheckResult:
    """Roll a saving throw for the caller's active character and record it."""
    return await _perform(
        db,
        rng,
        caller,
        request,
        lambda c, ch, _carry: plan_save(c, ch, options),
        visibility=visibility,
        command="save",
    )


async def perform_luck(
    db: Database,
    rng: random.Random,
    caller: Caller,
    request: str,
    *,
    visibility: Visibility | str | None = Visibility.PUBLIC,
) -> CheckResult:
    """Roll a Pen & Dagger luck roll for the caller's active character and record it."""
    return await _perform(
        db,
        rng,
        caller,
        request,
        lambda c, ch, _carry: plan_luck(c, ch),
        visibility=visibility,
        command="luck",
    )
