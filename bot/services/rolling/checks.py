"""Checks, saves and luck rolls: each campaign system's core roll, as one transaction.

A check reads the campaign and the character, asks the rules engine for the outcome, and
records the ledger row together with its side effects (a threshold carry-over used and a new
one stored) in the same transaction, so a roll is never half-recorded.

Each command is two phases (:func:`prepare_check_in` and its kin, then
:func:`roll_prepared_in`): the reads and the plan, no dice, then the roll and its records.
The commands here run both in one transaction; a post's inline rolls prepare all of theirs
before rolling any (bot/services/rolling/inline.py).

A hidden roll (gm, blind, self) changes nothing others can observe until it is revealed:
the carry-over it earns is stored by its reveal (:func:`pending.on_reveal_in`).
It does use, at once, an active carry-over already pending for the ability: that is the same
whatever its dice show, so it tells nobody more than the roll's stub (a test of that ability
was made), and deferring it would let the same modifier be used twice (ruling 4: once).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from bot.db.engine import Database
from bot.quoting import quote
from bot.rules import d20_check
from bot.rules.systems import CheckOptions as CheckOptions  # its old home: re-exported
from bot.rules.systems import Plan, read, system_for
from bot.rules.systems import d20 as d20_system
from bot.rules.systems.base import refuse_options, score_of
from bot.rules.systems.commands import NotInSystem
from bot.rules.systems.commands import require as require_rule
from bot.services.kit import budgets
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue
from bot.services.kit.serialize import to_jsonable
from bot.services.kit.sql import Executor, transaction
from bot.services.rolling.reads import PreparesIn, Reads, one_roll
from bot.services.store import ledger, pending
from bot.services.store.campaigns import SYSTEM_NAMES as SYSTEM_NAMES  # its old home: re-exported
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView
from bot.services.trust import fairness, secrecy
from bot.services.trust.access import require_gm
from bot.words import SecrecyCommand, Visibility

if TYPE_CHECKING:
    from bot.services.rolling.prerolls import SealedDraw

#: A check's outcome: whatever the campaign system's rules return (each system's outcome
#: types are registered with it; ``bot.rules.systems.read`` reads any of them).
Outcome = Any

CheckPlan = Plan  # its old name


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
    #: The public number printed as ``#N`` and the row's chain link.
    number: int = 0
    chain: str = ""
    #: The seed rotation this roll set off (its old seed revealed), to announce.
    rotation: fairness.Rotation | None = None

    @property
    def gm_targets(self) -> secrecy.GmTargets:
        """Where the GM copy of a hidden roll goes."""
        return secrecy.GmTargets.of(self.campaign)


def _score(character: CharacterView, ability: str, system: str) -> int:
    return score_of(character, ability, system_for(system).score_word)


def plan_check(
    campaign: CampaignView,
    character: CharacterView,
    options: CheckOptions,
    *,
    carry_over: int | None = None,
) -> CheckPlan:
    """Bind the character's stats to the campaign system's check (no dice rolled yet).

    ``carry_over`` is the pending modifier that applies to this test in a system that has
    one (threshold): the one a real roll consumed, or for odds the active one (None: none).
    """
    return campaign.rules.plan_check(campaign, character, options, carry_over)


def d20_input(
    character: CharacterView, ability: str, options: CheckOptions
) -> tuple[d20_check.CheckInput, str]:
    """A d20 check's input for ``character`` and its title (see the registry's d20 system)."""
    return d20_system.check_input(character, ability, options)


async def with_helper(db: Database, caller: Caller, options: CheckOptions) -> CheckOptions:
    """The helper must be a character of the campaign (any player's); spelled as stored."""
    if not options.helper or caller.guild_id is None:
        return options  # no transaction on the hot path
    async with transaction(db) as session:
        reads = Reads(caller)
        campaign = await reads.campaign_in(session)
        return (await _helper_in(session, campaign, options, reads))[0]


async def _helper_in(
    session: Executor, campaign: CampaignView, options: CheckOptions, reads: Reads
) -> tuple[CheckOptions, CharacterView | None]:
    """:func:`with_helper`'s options, and the helper's character (its player is named by the
    roll's row: docs/privacy.md)."""
    if not options.helper:
        return options, None
    if "helper" not in campaign.rules.check_options:
        return options, None  # plan_check refuses the option, naming the system
    found = await reads.named_in(session, options.helper)
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
    return replace(options, helper=found.name), found


def plan_save(campaign: CampaignView, character: CharacterView, options: CheckOptions) -> CheckPlan:
    """A saving throw in the campaign's system (d20 check ruling 5, roll-under's check)."""
    system = campaign.rules
    require_rule(system, "saves")
    assert system.save_options is not None  # what the rule "saves" means
    refuse_options(system, options.given(), system.save_options, "/save")
    return system.plan_save(campaign, character, options)


async def with_dc_source(db: Database, caller: Caller, options: CheckOptions) -> CheckOptions:
    """A save's DC from ``options.source``'s abilities (d20 check ruling 6: a Weapon or spell
    save DC), computed now by the campaign's system (``System.save_dc``)."""
    if options.against is None and options.source is None:
        return options  # no transaction on the hot path
    async with transaction(db) as session:
        reads = Reads(caller)
        return await _dc_source_in(session, await reads.campaign_in(session), options, reads)


async def _dc_source_in(
    session: Executor, campaign: CampaignView, options: CheckOptions, reads: Reads
) -> CheckOptions:
    """:func:`with_dc_source` in the caller's transaction."""
    if options.against is None and options.source is None:
        return options
    if "against" not in (campaign.rules.save_options or ()):
        return options  # plan_save refuses the options, naming the system
    if options.against is None or options.source is None:
        raise InvalidValue(
            "Give both against (melee, ranged or spell) and from (the attacker or caster)."
        )
    if options.dc is not None:
        raise InvalidValue("Give either dc or against and from (which compute it), not both.")
    compute = campaign.rules.save_dc(campaign, options.against)
    dc, note = compute(await reads.named_in(session, options.source))
    return replace(options, dc=dc, dc_from=note, against=None, source=None)


def plan_luck(campaign: CampaignView, character: CharacterView) -> CheckPlan:
    """A luck-like roll in the campaign's system (Pen & Dagger "Luck Rolls")."""
    require_rule(campaign.rules, "luck")
    plan = campaign.rules.plan_luck(campaign, character)
    if plan is None:
        raise NotInSystem(campaign.rules, "luck")  # a system with the rule but no roll for it
    return plan


# --- two phases: prepared (read and planned, no dice), then rolled and recorded ---------------

Planner = Callable[[CampaignView, CharacterView, int | None], CheckPlan]


@dataclass(frozen=True, slots=True)
class PreparedCheck:
    """A check, save or luck roll read and planned, no die rolled: the campaign and character
    as read, the options as completed (a helper's name as stored, a save's DC from its source)
    and the plan, which refused whatever the system or the sheet does not allow.
    :func:`roll_prepared_in` rolls it."""

    campaign: CampaignView
    character: CharacterView
    plan: CheckPlan
    #: The plan again with a carry-over the roll consumes (threshold ruling 4).
    planner: Planner
    #: The command whose campaign default a visibility of None means.
    command: str
    helper: CharacterView | None = None
    #: The place as the statement that took this roll's fair draw found it (:class:`Reads`).
    here: fairness.Here | None = None

    @property
    def work(self) -> int:
        """What it takes from the budgets, before any die: its recorded row."""
        return budgets.ROLL_ROW


def _prepared(
    campaign: CampaignView,
    character: CharacterView,
    planner: Planner,
    command: str,
    reads: Reads,
    helper: CharacterView | None = None,
) -> PreparedCheck:
    plan = planner(campaign, character, None)  # a bad option refuses here, before any die
    return PreparedCheck(campaign, character, plan, planner, command, helper, reads.take_draw())


async def prepare_check_in(
    session: Executor,
    caller: Caller,
    options: CheckOptions,
    *,
    reads: Reads | None = None,
    character_name: str | None = None,
    as_gm: bool = False,
) -> PreparedCheck:
    """/check read and planned for the caller's active character; with ``as_gm`` (/gm check)
    for the campaign's character ``character_name``, whoever plays it."""
    reads = reads or Reads(caller)
    campaign = await reads.campaign_with_character_in(session, character_name, any_owner=as_gm)
    if as_gm:
        require_gm(campaign, caller, "roll for a player's character")
    character = await reads.character_in(session, character_name, any_owner=as_gm)
    options, helper = await _helper_in(session, campaign, options, reads)
    return _prepared(
        campaign,
        character,
        lambda c, ch, carry: plan_check(c, ch, options, carry_over=carry),
        SecrecyCommand.GM_CHECK if as_gm else SecrecyCommand.CHECK,
        reads,
        helper,
    )


async def prepare_save_in(
    session: Executor, caller: Caller, options: CheckOptions, *, reads: Reads | None = None
) -> PreparedCheck:
    """/save read and planned for the caller's active character (its DC from a source)."""
    reads = reads or Reads(caller)
    campaign = await reads.campaign_with_character_in(session)
    character = await reads.character_in(session)
    options = await _dc_source_in(session, campaign, options, reads)
    return _prepared(
        campaign,
        character,
        lambda c, ch, _carry: plan_save(c, ch, options),
        SecrecyCommand.SAVE,
        reads,
    )


async def prepare_luck_in(
    session: Executor, caller: Caller, *, reads: Reads | None = None
) -> PreparedCheck:
    """/luck read and planned for the caller's active character."""
    reads = reads or Reads(caller)
    campaign = await reads.campaign_with_character_in(session)
    character = await reads.character_in(session)
    return _prepared(
        campaign, character, lambda c, ch, _carry: plan_luck(c, ch), SecrecyCommand.LUCK, reads
    )


async def roll_prepared_in(
    session: Executor,
    prepared: PreparedCheck,
    rng: random.Random,
    caller: Caller,
    request: str,
    *,
    visibility: Visibility | str | None = Visibility.PUBLIC,
    sealed: SealedDraw | None = None,
) -> CheckResult:
    """Roll a prepared check and record it, with its side effects, in the caller's
    transaction. ``visibility`` None means the campaign's default for the command;
    ``sealed``: with the character's sealed pre-rolls (bot/services/rolling/prerolls.py)."""
    campaign, character = prepared.campaign, prepared.character
    system = campaign.rules
    chosen = secrecy.resolve_visibility(visibility, campaign, prepared.command)
    draw = None
    if sealed is None and fairness.chosen_source(rng):
        # Provably fair d20s (docs/fair-dice.md), drawn first: every command takes the seed's
        # row, then the others' (a refusal below rolls the draw back with everything else).
        draw = await fairness.draw_for_in(session, caller, prepared.here, campaign.id, chosen)
        rng = draw.rng
    plan = prepared.plan
    if system.uses_carry_over(campaign):
        # Consumed atomically (DELETE ... RETURNING): a modifier is used once, ruling 4.
        carry_over = await pending.consume_pending_in(session, character.id, plan.ability)
        plan = prepared.planner(campaign, character, carry_over)
    if sealed is not None:  # the character's sealed d20s (services/rolling/prerolls.py)
        rng = await sealed.rng_in(session, character, plan)
    outcome = plan.roll(rng)
    stored = to_jsonable(outcome) if sealed is None else sealed.bind(outcome)
    if draw is not None:
        stored = {**stored, "fair": draw.record(fairness.D20_DRAWS)}
    helper = prepared.helper
    recorded = await ledger.record_in(
        session,
        ledger.NewRoll(
            origin=ledger.Origin.of(caller),
            kind=plan.kind,
            request=request,
            dice=list(_dice_of(outcome)),
            outcome=stored,
            visibility=chosen,
            campaign_id=campaign.id,
            character_id=character.id,
            character_name=character.name,
            named=ledger.naming(
                (character.user_id, character.name),
                None if helper is None else (helper.user_id, helper.name),
            ),
        ),
    )
    if sealed is not None:
        await sealed.mark_used_in(session, recorded.id)
    carried = system.carry_over_next(outcome)
    if carried and chosen is Visibility.PUBLIC:
        # A hidden roll changes nothing others can observe until it is
        # revealed, so its carry-over is stored by the reveal (pending.on_reveal_in).
        await pending.set_pending_in(session, character.id, plan.ability, carried, recorded.id)
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
        draw.rotation if draw is not None else None,
    )


def _dice_of(outcome: Outcome) -> tuple[int, ...]:
    return read(outcome).dice


# --- the commands, each one transaction: prepared, then rolled -------------------------------


async def _perform(
    db: Database,
    rng: random.Random,
    caller: Caller,
    request: str,
    visibility: Visibility | str | None,
    prepare_in: PreparesIn[PreparedCheck],
) -> CheckResult:
    # Its recorded row is charged before any die: a refusal changes nothing.
    work = budgets.ROLL_ROW
    return await one_roll(db, rng, caller, request, visibility, work, prepare_in, roll_prepared_in)


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
    prepare_in = partial(prepare_check_in, caller=caller, options=options)
    return await _perform(db, rng, caller, request, visibility, prepare_in)


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
    prepare_in = partial(
        prepare_check_in, caller=caller, options=options, character_name=character_name, as_gm=True
    )
    return await _perform(db, rng, caller, request, visibility, prepare_in)


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
    prepare_in = partial(prepare_save_in, caller=caller, options=options)
    return await _perform(db, rng, caller, request, visibility, prepare_in)


async def perform_luck(
    db: Database,
    rng: random.Random,
    caller: Caller,
    request: str,
    *,
    visibility: Visibility | str | None = Visibility.PUBLIC,
) -> CheckResult:
    """Roll a Pen & Dagger luck roll for the caller's active character and record it."""
    prepare_in = partial(prepare_luck_in, caller=caller)
    return await _perform(db, rng, caller, request, visibility, prepare_in)
