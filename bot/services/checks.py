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
from typing import Any, TypeVar

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

_PdRoll = TypeVar("_PdRoll", pd.AttemptOutcome, pd.LuckOutcome)

#: Options of /check each system has, beyond `ability` (issue: an option the campaign's
#: system does not have gets a clear error naming the system).
CHECK_OPTIONS: Mapping[RuleSystem, frozenset[str]] = {
    RuleSystem.PEN_AND_DAGGER: frozenset(
        {"proficiency", "advantage", "disadvantage", "rank_bonus", "reliable", "unreliable"}
    ),
    RuleSystem.ROLL_UNDER: frozenset(),
    RuleSystem.THRESHOLD: frozenset({"dc", "difficulty", "crit_success_at", "crit_failure_at"}),
    RuleSystem.D20_CHECK: frozenset(
        {
            "proficiency",
            "dc",
            "advantage",
            "disadvantage",
            "bonus",
            "helper",
            "helper_needs_proficiency",
        }
    ),
}
#: Options of /save; only these systems have saves (roll-under's save is its check).
SAVE_OPTIONS: Mapping[RuleSystem, frozenset[str]] = {
    RuleSystem.ROLL_UNDER: frozenset(),
    RuleSystem.D20_CHECK: frozenset(
        {"dc", "advantage", "disadvantage", "bonus", "against", "source", "school"}
    ),
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
    #: The task needs the named proficiency: a helper without it cannot help (ruling 8).
    helper_needs_proficiency: bool = False
    #: d20 check saves, ruling 6: the DC comes from ``source``'s abilities: "melee" or
    #: "ranged" (the Weapon DC) or "spell" (the spell save DC).
    against: str | None = None
    source: str | None = None
    #: d20 check "Spell Effect Saves": the spell's school picks the ability.
    school: str | None = None
    #: Threshold: this action's own critical thresholds (totals), besides natural 20 / 1.
    crit_success_at: int | None = None
    crit_failure_at: int | None = None
    #: Set by :func:`with_dc_source`, not by the player: how the DC was computed.
    dc_from: str | None = None

    def given(self) -> list[str]:
        """Names of the options that were set, besides the ability."""
        return [name for name in _OPTION_NAMES if getattr(self, name) not in (None, False)]


#: CheckOptions' option names, once (``fields()`` per call showed in group saves' profile).
_OPTION_NAMES = tuple(f.name for f in fields(CheckOptions) if f.name not in ("ability", "dc_from"))


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
            lambda rng: _trade_rule(
                pd.attempt(rank, rng, fortune=character.fortune, fortune_max=fortune_max, **kwargs),
                campaign,
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
        cs_at, cf_at = options.crit_success_at, options.crit_failure_at
        if cs_at is not None or cf_at is not None:
            # Checked now, so a bad option refuses before anything changes.
            threshold.odds_of_test(
                score, target, used, tiers=tiers, crit_success_at=cs_at, crit_failure_at=cf_at
            )
        return CheckPlan(
            system,
            "test",
            ability,
            f"{ability} test",
            lambda rng: threshold.roll_test(
                score,
                target,
                rng,
                attribute=ability,
                carry_over=used,
                tiers=tiers,
                carry_over_rule=campaign.carry_over,
                crit_success_at=cs_at,
                crit_failure_at=cf_at,
            ),
            lambda: _named(
                threshold.odds_of_test(
                    score, target, used, tiers=tiers, crit_success_at=cs_at, crit_failure_at=cf_at
                ),
                lambda r: r.display,
            ),
        )

    check, title = d20_input(character, ability, options)
    if options.helper:
        # d20 check ruling 8: working together, the leader rolls with advantage.
        if " ".join(options.helper.split()).casefold() == character.name.casefold():
            raise InvalidValue(
                f"{escape(character.name)} cannot help themselves: name another character."
            )
        check = d20_check.helped_input(check, {options.helper: True})
        title += f", helped by {options.helper}"
    return _d20_plan(system, ledger.Kind.CHECK, ability, title, check, options.dc)


def d20_input(
    character: CharacterView, ability: str, options: CheckOptions
) -> tuple[d20_check.CheckInput, str]:
    """A d20 check's input for ``character`` (rulings 1-3) and its title, e.g. "STR
    (Athletics) check": d20 + ability modifier + proficiency bonus x degree + bonus."""
    score = _score(character, ability, RuleSystem.D20_CHECK)
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
    return check, title


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
    if options.helper_needs_proficiency:
        # "A character can only provide help if the task is one that he or she could attempt
        # alone": the engine's helped_input takes who could; here that is who has the skill.
        if not options.proficiency:
            raise InvalidValue(
                "helper_needs_proficiency needs the proficiency the task calls for: "
                "give proficiency:, e.g. Thieves' Tools."
            )
        if found.proficiency(options.proficiency) is None:
            raise InvalidValue(
                f"{found.name} cannot help: they have no {quote(options.proficiency)} "
                "proficiency, and a character can only help with a task they could attempt "
                "alone (opening a lock needs proficiency with thieves' tools, so a character "
                "without it cannot help). Nothing was rolled."
            )
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


def _save_ability(campaign: CampaignView, options: CheckOptions) -> str:
    """The save's ability: the one named, or the spell school's ("Spell Effect Saves")."""
    if not options.school:
        if not options.ability.strip():
            raise InvalidValue("Name the ability the save uses, or the spell's school.")
        return campaign.ability(options.ability)
    key = options.school.strip().casefold()
    if key not in d20_check.SPELL_SCHOOLS:
        names = ", ".join(d20_check.SPELL_SCHOOLS)
        raise InvalidValue(f"Unknown school {quote(options.school)}: use one of {names}.")
    candidates = d20_check.SPELL_SCHOOLS[key]
    found = next(
        (a for a in campaign.ability_names if a.casefold() in {c.casefold() for c in candidates}),
        None,
    )
    if found is None:
        raise InvalidValue(
            f"A {key} spell effect is saved with {candidates[0]}, which this campaign does not "
            "have: a GM can add it with /campaign set abilities."
        )
    if options.ability.strip() and campaign.ability(options.ability) != found:
        raise InvalidValue(
            f"A {key} spell effect is saved with {found}, not {options.ability}: give one of "
            "ability or school."
        )
    return found


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
    ability = _save_ability(campaign, options)
    score = _score(character, ability, system)
    # "Null Saves": a Null always adds proficiency and the Null bonus to Mana saves.
    null_proficient, extra = d20_check.null_save_extra(ability, character.null_bonus)
    proficient = ability in character.save_proficiencies or null_proficient
    check = d20_check.CheckInput.save(
        score=score,
        ability=ability,
        level=character.level,
        proficient=proficient,
        bonus=options.bonus or 0,
        advantage=options.advantage,
        disadvantage=options.disadvantage,
        name=character.name,
        extra=extra,
    )
    title = f"{ability} saving throw"
    if options.school:
        title += f" ({options.school.strip().casefold()} spell effect)"
    if options.dc_from:
        title += f" against {options.dc_from}"
    return _d20_plan(system, ledger.Kind.SAVE, ability, title, check, options.dc)


_AGAINST = ("melee", "ranged", "spell")


async def with_dc_source(db: Database, caller: Caller, options: CheckOptions) -> CheckOptions:
    """A save's DC from a character's abilities (d20 check ruling 6), computed now.

    Weapon DC: 8 + STR (melee) or DEX (ranged) modifier + proficiency bonus; spell save DC:
    8 + Mana modifier + proficiency bonus, all of ``options.source``.
    """
    if options.against is None and options.source is None:
        return options
    if caller.guild_id is None:
        raise NoCampaign()
    async with transaction(db) as session:
        campaign = await campaign_for_channel_in(
            session, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
        if campaign.system is not RuleSystem.D20_CHECK:
            return options  # plan_save refuses the options, naming the system
        if options.against is None or options.source is None:
            raise InvalidValue(
                "Give both against (melee, ranged or spell) and from (the attacker or caster)."
            )
        if options.dc is not None:
            raise InvalidValue("Give either dc or against and from (which compute it), not both.")
        against = options.against.strip().casefold()
        if against not in _AGAINST:
            raise InvalidValue(
                f"Unknown against {quote(options.against)}: use melee, ranged or spell."
            )
        source = await character_by_name_in(session, campaign.id, options.source)
    wanted = (
        d20_check.NULL_SAVE_ABILITY
        if against == "spell"
        else (d20_check.WeaponKind(against).ability)
    )
    try:
        ability = campaign.ability(wanted)
    except InvalidValue:
        raise InvalidValue(
            f"A {'spell save' if against == 'spell' else 'Weapon'} DC uses {wanted}, which this "
            "campaign does not have: a GM can add it with /campaign set abilities."
        ) from None
    score = _score(source, ability, campaign.system)
    modifier = d20_check.ability_modifier(score)
    bonus = d20_check.proficiency_bonus(source.level)
    if against == "spell":
        dc = d20_check.spell_save_dc(modifier, bonus)
        what = "spell save DC"
    else:
        dc = d20_check.weapon_dc(against, modifier, bonus)
        what = f"{against} Weapon DC"
    sign = "+" if modifier >= 0 else "−"
    note = f"{source.name}'s {what} {dc} (8 {sign} {abs(modifier)} {ability} + {bonus} proficiency)"
    return replace(options, dc=dc, dc_from=note, against=None, source=None)


def _trade_rule(outcome: _PdRoll, campaign: CampaignView) -> _PdRoll:
    """No natural-20 trade on offer when the GM turned the option off (ruling 5, issue 16)."""
    if campaign.luck_trade or not outcome.trade_available:
        return outcome
    return replace(outcome, trade_available=False)


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
        lambda rng: _trade_rule(
            pd.luck_roll(rng, fortune=character.fortune, fortune_max=fortune_max), campaign
        ),
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
        if campaign.system is RuleSystem.THRESHOLD and campaign.carry_over:
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
    options = await with_dc_source(db, caller, options)
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
