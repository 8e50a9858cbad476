"""Group rolls: the party's group save and contests, each system by its own rule.

Every group roll is one transaction: one ledger row per member roll (no interaction id) and
one row for the group result carrying the command's interaction id, so a retried interaction
is never recorded twice. The pieces shared with GM roll requests (reading "names or
mentions", one member's roll, the one-line summary of a roll, the group verdict) live here.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.db.engine import Database
from bot.quoting import escape
from bot.rules.systems import read, system_for, system_of
from bot.rules.systems.commands import NotInSystem
from bot.rules.systems.commands import require as require_rule
from bot.services.kit import budgets, walks
from bot.services.kit.context import Caller
from bot.services.kit.errors import (
    InvalidValue,
    NoCampaign,
    NotAllowed,
    NotFound,
)
from bot.services.kit.serialize import to_jsonable
from bot.services.kit.sql import Executor, core_transaction, transaction
from bot.services.rolling.checks import (
    CheckOptions,
    Outcome,
    plan_check,
    plan_save,
)
from bot.services.rolling.party import party_members_in
from bot.services.store import characters, ledger, pending
from bot.services.store.campaigns import CampaignView, campaign_for_channel_in, place_params
from bot.services.store.characters import CharacterView
from bot.services.trust import fairness
from bot.services.trust.access import is_gm, require_gm
from bot.words import LedgerKind, Visibility

#: At most this many characters in one group roll or roll request. Past
#: ``bot.render.groups.FIELD_MEMBERS`` the message shows a summary by result and the full
#: table comes as an attached file (Discord allows 25 embed fields, 6,000 characters).
MAX_MEMBERS = 100
#: At most this many characters in one contest: its rounds list everyone in one embed field.
MAX_CONTESTANTS = 20
_MENTION = re.compile(r"<@!?(\d+)>")
#: What a GM may type for "the whole party".
PARTY_WORDS = frozenset({"", "party", "all", "everyone", "the party", "whole party"})


# --- one roll, summarised ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RollSummary:
    """What a group message shows of one member's roll; stored as JSON with roll requests.

    ``result`` is the system's word for it ("Pass", "Success", "Major Success"); ``passed``
    is None where the system has no pass/fail (Pen & Dagger levels, a d20 check without DC).
    """

    dice: tuple[int, ...]
    kept: int
    modifiers: tuple[tuple[str, int], ...]
    total: int | None
    result: str
    passed: bool | None
    #: "(Adept)": the rank (Pen & Dagger), or "vs AGI 12": the score rolled under.
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for the database."""
        return {
            "dice": list(self.dice),
            "kept": self.kept,
            "modifiers": [[name, value] for name, value in self.modifiers],
            "total": self.total,
            "result": self.result,
            "passed": self.passed,
            "note": self.note,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RollSummary:
        """The inverse of :meth:`to_json`."""
        return cls(
            dice=tuple(int(d) for d in data["dice"]),
            kept=int(data["kept"]),
            modifiers=tuple((str(n), int(v)) for n, v in data["modifiers"]),
            total=None if data["total"] is None else int(data["total"]),
            result=str(data["result"]),
            passed=data["passed"],
            note=str(data.get("note", "")),
        )


def summarize(outcome: Outcome) -> RollSummary:
    """The summary of any check outcome the group commands roll, as its system reads it."""
    r = read(outcome)
    word = r.result if r.word is None else r.word
    return RollSummary(r.dice, r.kept, r.modifiers, r.total, word, r.passed, r.note)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The group's result: ``succeeded`` is None where the system has no group rule."""

    succeeded: bool | None
    text: str


#: A group with no member left (a request whose every character was skipped at the deadline):
#: no system's group rule has anything to count, so there is no group result at all.
NOBODY_ROLLED = Verdict(None, "Nobody rolled: no group result.")


def group_verdict(
    system: str, members: Sequence[tuple[str, RollSummary]], dc: int | None
) -> Verdict:
    """The group outcome of everyone's rolls, per the campaign system's rule."""
    if not members:
        return NOBODY_ROLLED
    passed = [name for name, s in members if s.passed]
    failed = [name for name, s in members if s.passed is False]
    succeeded, text = system_for(system).group_verdict(passed, failed, len(members), dc)
    return Verdict(succeeded, text)


# --- who: names, mentions or the party --------------------------------------------------------


def parse_targets(text: str | None) -> list[int | str] | None:
    """User ids (mentions) and character names in the order typed; None means the party."""
    raw = (text or "").strip()
    if raw.casefold() in PARTY_WORDS:
        return None
    spaced = _MENTION.sub(lambda m: f",<@{m.group(1)}>,", raw)
    found: list[int | str] = []
    for piece in spaced.split(","):
        piece = " ".join(piece.split())
        if not piece:
            continue
        mention = _MENTION.fullmatch(piece)
        found.append(int(mention.group(1)) if mention else piece)
    return found


async def resolve_targets_in(
    session: Executor,
    campaign: CampaignView,
    text: str | None,
    *,
    minimum: int = 1,
    maximum: int = MAX_MEMBERS,
    nameable: bool = True,
    party: list[CharacterView] | None = None,
) -> list[CharacterView]:
    """The characters a GM named: by name, by their player's mention, or the whole party.

    ``nameable``: the command has a ``characters`` option (/groupsave has not: it is always
    the party), so the empty party's message may suggest it. ``party``: the party, read
    already in this transaction (with the campaign: :func:`campaign_and_party_in`).
    """
    wanted = parse_targets(text)
    found: list[CharacterView] = []
    if wanted is None:
        found = party if party is not None else await party_members_in(session, campaign.id)
        if not found:
            instead = ", or name them with characters:" if nameable else ""
            raise InvalidValue(
                f"The party is empty: add characters with /party add character:<name>{instead}."
            )
    else:
        for item in wanted:
            if isinstance(item, int):
                try:
                    found.append(await characters.active_character_in(session, campaign.id, item))
                except NotFound:
                    raise NotFound(f"<@{item}> has no active character in this campaign.") from None
            else:
                found.append(await characters.character_by_name_in(session, campaign.id, item))
    unique: dict[int, CharacterView] = {}
    for character in found:
        unique.setdefault(character.id, character)
    if len(unique) < minimum:
        raise InvalidValue(f"Name at least {minimum} different characters.")
    if len(unique) > maximum:
        if wanted is None:
            raise InvalidValue(
                f"The party has {len(unique)} characters and at most {maximum} can roll "
                "together: take some out with /party remove character:<name>."
            )
        raise InvalidValue(
            f"At most {maximum} characters can roll together; you named {len(unique)}."
        )
    return list(unique.values())


# --- one member's roll ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemberSpec:
    """What each member rolls: the ability, and the target where the system has one."""

    ability: str
    dc: int | None = None
    difficulty: str | None = None
    #: d20 check: a saving throw (ruling 5) instead of an ability check.
    save: bool = False
    #: A proficiency (skill) the check uses: each member who has it adds it (d20 check degree,
    #: Pen & Dagger rank), the others roll without ("the characters who are skilled at a
    #: particular task help cover those who aren't").
    proficiency: str | None = None


def check_spec(campaign: CampaignView, spec: MemberSpec, *, what: str) -> MemberSpec:
    """Refuse options the system does not have; return the spec with the ability spelled."""
    system = campaign.rules
    ability = campaign.ability(spec.ability)
    name = system.name
    if system.group_no_dc and (spec.dc is not None or spec.difficulty):
        raise InvalidValue(
            f"This campaign plays {name}: {what} takes no dc ({system.group_no_dc})."
        )
    if system.group_needs_target and spec.dc is None and not spec.difficulty:
        raise InvalidValue(
            f"A {system.key} {what} needs a target: dc (the exact {system.target_word}) "
            "or difficulty."
        )
    if "difficulty" not in system.check_options and spec.difficulty:
        raise NotInSystem(system, "tiers")
    if spec.save and not system.group_saves:
        raise InvalidValue(f"This campaign plays {name}: save is a d20-check option.")
    proficiency = " ".join(spec.proficiency.split()) if spec.proficiency else None
    if proficiency and "proficiency" not in system.check_options:
        raise InvalidValue(f"This campaign plays {name}: characters there have no proficiencies.")
    if proficiency and spec.save:
        raise InvalidValue("A saving throw uses no skill proficiency: give save:false.")
    return MemberSpec(ability, spec.dc, spec.difficulty, spec.save, proficiency)


def member_kind(campaign: CampaignView, spec: MemberSpec) -> str:
    """The ledger kind of one member's roll."""
    return LedgerKind.SAVE if spec.save else campaign.rules.check_word


async def roll_member_in(
    session: Executor,
    rng: random.Random,
    campaign: CampaignView,
    character: CharacterView,
    spec: MemberSpec,
) -> Outcome:
    """Roll one member's part with their stored stats (not roll-under's shared d20).

    Threshold ruling 4: the member's pending carry-over is used once and a new one stored by
    the caller (:func:`store_carry_over_in`) once the roll is recorded.
    """
    options = _member_options(character, spec)
    if campaign.rules.uses_carry_over(campaign):
        plan_check(campaign, character, options, carry_over=0)  # refuse before consuming
        used = await pending.consume_pending_in(session, character.id, spec.ability)
        return plan_check(campaign, character, options, carry_over=used).roll(rng)
    if spec.save:
        return plan_save(campaign, character, options).roll(rng)
    return plan_check(campaign, character, options).roll(rng)


async def roll_members_in(
    session: Executor,
    rngs: Sequence[random.Random],
    campaign: CampaignView,
    party: Sequence[CharacterView],
    spec: MemberSpec,
) -> list[tuple[CharacterView, Outcome]]:
    """:func:`roll_member_in` for every member (``rngs[i]``: member i's dice), the party's
    carry-overs taken in one statement once no member's roll is refused. A big party's
    rolls give the loop turns (:data:`walks.MEMBERS_PER_TURN`)."""
    options = [_member_options(member, spec) for member in party]
    rolled: list[tuple[CharacterView, Outcome]] = []
    if not campaign.rules.uses_carry_over(campaign):
        plan = plan_save if spec.save else plan_check
        for i, (member, o, r) in enumerate(zip(party, options, rngs, strict=True)):
            await walks.turn_every(i)
            rolled.append((member, plan(campaign, member, o).roll(r)))
        return rolled
    for member, o in zip(party, options, strict=True):
        plan_check(campaign, member, o, carry_over=0)  # refuse before consuming
    used = await pending.consume_many_in(session, [m.id for m in party], spec.ability)
    for i, (member, o, r) in enumerate(zip(party, options, rngs, strict=True)):
        await walks.turn_every(i)
        carry = used.get(member.id, 0)
        rolled.append((member, plan_check(campaign, member, o, carry_over=carry).roll(r)))
    return rolled


def _member_options(character: CharacterView, spec: MemberSpec) -> CheckOptions:
    # Each member uses the proficiency only if their sheet has it (d20 check "Group Checks").
    skill = (
        spec.proficiency if spec.proficiency and character.proficiency(spec.proficiency) else None
    )
    return CheckOptions(
        ability=spec.ability, dc=spec.dc, difficulty=spec.difficulty, proficiency=skill
    )


def shared_save(
    campaign: CampaignView, character: CharacterView, ability: str, shared_roll: int
) -> Outcome:
    """The group's one shared die against this member (roll-under ruling 2)."""
    return campaign.rules.shared_outcome(character, ability, shared_roll)


async def store_carry_over_in(
    session: Executor, character: CharacterView, ability: str, outcome: Outcome, roll_id: int
) -> None:
    """Threshold ruling 4: a critical leaves +2 / −2 on the member's next test."""
    system = system_of(outcome)
    carried = system.carry_over_next(outcome) if system is not None else None
    if carried:
        await pending.set_pending_in(session, character.id, ability, carried, roll_id)


async def store_carry_overs_in(
    session: Executor, ability: str, rolled: Sequence[tuple[CharacterView, Outcome, int]]
) -> None:
    """:func:`store_carry_over_in` for every member's recorded roll (character, outcome, row
    id), in one statement (none if nobody rolled a critical)."""
    carried: list[tuple[int, int, int | None]] = []
    for character, outcome, roll_id in rolled:
        system = system_of(outcome)
        value = system.carry_over_next(outcome) if system is not None else None
        if value:
            carried.append((character.id, value, roll_id))
    await pending.set_many_in(session, ability, carried)


def dice_of(outcome: Outcome) -> list[int]:
    """Every die of an outcome, for the ledger's dice column."""
    return list(read(outcome).dice)


async def campaign_in(session: Executor, caller: Caller) -> CampaignView:
    """The campaign of the caller's channel, inside a transaction."""
    if caller.guild_id is None:
        raise NoCampaign()
    return await campaign_for_channel_in(
        session, caller.guild_id, caller.channel_id, caller.parent_channel_id
    )


async def campaign_and_party_in(
    session: Executor, caller: Caller
) -> tuple[CampaignView, list[CharacterView]]:
    """The campaign of the caller's channel and its party, in one statement."""
    if caller.guild_id is None:
        raise NoCampaign()
    place = place_params(caller.guild_id, caller.channel_id, caller.parent_channel_id)
    return await characters.placed_party_in(session, place)


# --- /groupsave -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemberResult:
    """One member's recorded roll."""

    name: str
    user_id: int
    summary: RollSummary
    roll_id: int
    #: The member row's public number.
    number: int = 0


@dataclass(frozen=True, slots=True)
class GroupRollResult:
    """A recorded group save: every member's roll, the verdict, the group's ledger row."""

    campaign: CampaignView
    ability: str
    title: str
    members: tuple[MemberResult, ...]
    verdict: Verdict
    roll_id: int
    shared_roll: int | None
    dc: int | None
    difficulty: str | None
    #: The group row's public number and chain link.
    number: int = 0
    chain: str = ""
    #: Seeds the members' rolls used up, rotated after the last: the place is shown them.
    rotations: tuple[fairness.Rotation, ...] = ()


def _title(campaign: CampaignView, spec: MemberSpec) -> str:
    what = f"{spec.ability} ({spec.proficiency})" if spec.proficiency else spec.ability
    return f"Group {what} {'saving throw' if spec.save else campaign.rules.check_word}"


async def group_save(
    db: Database,
    rng: random.Random,
    caller: Caller,
    ability: str,
    request: str,
    *,
    dc: int | None = None,
    difficulty: str | None = None,
) -> GroupRollResult:
    """GM: the party's group save, per the campaign's system, as one transaction.

    Roll-under ruling 2: one d20 for the whole party. d20 check: every member rolls the save
    (ruling 5) against the DC; the group succeeds when at least half succeed (ruling 9).
    Pen & Dagger and threshold: every member attempts / tests with their own stats.
    """
    return await _group_roll(
        db, rng, caller, request, MemberSpec(ability, dc, difficulty, save=True), "/groupsave"
    )


async def group_check(
    db: Database,
    rng: random.Random,
    caller: Caller,
    ability: str,
    request: str,
    *,
    proficiency: str | None = None,
    dc: int | None = None,
    difficulty: str | None = None,
) -> GroupRollResult:
    """GM: the party's group ability check, with a skill each member adds if they have it.

    d20 check "Group Checks" (ruling 9): everyone makes the check; at least half succeeding
    is a group success, so the skilled cover those who aren't. Other systems as /groupsave.
    """
    spec = MemberSpec(ability, dc, difficulty, save=False, proficiency=proficiency)
    return await _group_roll(db, rng, caller, request, spec, "/groupcheck")


def _with_fair(stored: Any, record: dict[str, Any] | None) -> Any:
    """A member's stored outcome with the inputs its d20s were drawn from, if any."""
    return stored if record is None else {**stored, "fair": record}


async def _group_roll(
    db: Database,
    rng: random.Random,
    caller: Caller,
    request: str,
    asked: MemberSpec,
    command: str,
) -> GroupRollResult:
    async with core_transaction(db) as session:
        campaign, party = await campaign_and_party_in(session, caller)
        what = "group save" if command == "/groupsave" else "group check"
        require_gm(campaign, caller, f"call for a {what}")
        system = campaign.rules
        spec = check_spec(
            campaign,
            MemberSpec(
                asked.ability,
                asked.dc,
                asked.difficulty,
                asked.save and system.group_saves,
                asked.proficiency,
            ),
            what=command,
        )
        if system.group_needs_dc and spec.dc is None:
            raise InvalidValue(f"A {system.key} {what} needs a dc: each member rolls against it.")
        party = await resolve_targets_in(session, campaign, None, nameable=False, party=party)
        # Before any die: a refusal rolls back the reads and changes nothing.
        budgets.charge(caller, budgets.group_work(len(party)))
        outcomes: list[tuple[CharacterView, Outcome]] = []
        shared: int | None = None
        # Provably fair d20s (docs/fair-dice.md): each member's with that player's own seed,
        # the one shared die with the GM's; a seed falling due rotates after the last.
        fair = fairness.chosen_source(rng)
        records: list[dict[str, Any] | None] = [None] * len(party)
        with fairness.rotations_held() as held:
            if system.group_shares_die:
                for member in party:
                    shared_save(campaign, member, spec.ability, 1)  # a missing score first
                die_rng = rng
                if fair:
                    draw = await fairness.draw_in(session, caller, campaign.id, Visibility.PUBLIC)
                    die_rng, records[0] = draw.rng, draw.record(fairness.D20_DRAWS)
                shared = system.roll_shared_die(party, spec.ability, die_rng)
                outcomes = [(m, shared_save(campaign, m, spec.ability, shared)) for m in party]
            else:
                # Every member's draw in one statement, every carry-over taken in another.
                rngs: list[random.Random] = [rng] * len(party)
                if fair:
                    players = [replace(caller, user_id=m.user_id) for m in party]
                    draws = await fairness.draw_many_in(
                        session, players, campaign.id, Visibility.PUBLIC
                    )
                    rngs = [draw.rng for draw in draws]
                    records[:] = [draw.record(fairness.D20_DRAWS) for draw in draws]
                outcomes = await roll_members_in(session, rngs, campaign, party, spec)
        rotations = await fairness.rotate_held_in(session, held)
        kind = member_kind(campaign, spec)
        member_origin = ledger.Origin.of(caller, with_interaction=False)
        new_rows: list[ledger.NewRoll] = []
        for position, (member, outcome) in enumerate(outcomes):
            await walks.turn_every(position)
            new_rows.append(
                ledger.NewRoll(
                    origin=member_origin,
                    kind=kind,
                    request=request,
                    # A die is stored in one row only (/stats counts each die once): the one
                    # shared d20 of roll-under ruling 2 in the first member's row.
                    dice=[] if shared is not None and position else dice_of(outcome),
                    outcome=_with_fair(to_jsonable(outcome), records[position]),
                    campaign_id=campaign.id,
                    character_id=member.id,
                    character_name=member.name,
                    named=ledger.naming((member.user_id, member.name)),
                )
            )
        summaries = [summarize(outcome) for _, outcome in outcomes]
        verdict = group_verdict(
            campaign.system,
            [(m.name, sm) for (m, _), sm in zip(outcomes, summaries, strict=True)],
            spec.dc,
        )

        def group_row(numbers: Sequence[int]) -> ledger.NewRoll:
            """The group's own row, after its members' (whose numbers it lists)."""
            return ledger.NewRoll(
                origin=ledger.Origin.of(caller),
                kind=LedgerKind.GROUP,
                request=request,
                dice=[shared] if shared is not None else [],
                outcome={
                    "verdict": verdict.text,
                    "succeeded": verdict.succeeded,
                    "member_rolls": list(numbers),
                    "shared_roll": shared,
                },
                campaign_id=campaign.id,
                named=ledger.naming(*((m.user_id, m.name) for m, _ in outcomes)),
            )

        # The members' rows and the group's in one INSERT (its chain bumped once).
        *member_rows, group = await ledger.record_rolls_in(session, new_rows, last=group_row)
        await store_carry_overs_in(
            session,
            spec.ability,
            [(m, o, row.id) for (m, o), row in zip(outcomes, member_rows, strict=True)],
        )
        members = [
            MemberResult(member.name, member.user_id, summary, row.id, row.number)
            for (member, _), summary, row in zip(outcomes, summaries, member_rows, strict=True)
        ]
    return GroupRollResult(
        campaign,
        spec.ability,
        _title(campaign, spec),
        tuple(members),
        verdict,
        group.id,
        shared,
        spec.dc,
        spec.difficulty,
        group.number,
        group.chain,
        tuple(rotations),
    )


# --- /contest ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ContestResult:
    """A recorded contest: the rules outcome and who took part."""

    campaign: CampaignView
    ability: str
    #: The system's contest outcome (roll-under's ranking, d20 check's two checks).
    outcome: Any
    characters: tuple[CharacterView, ...]
    roll_id: int
    #: The contest row's public number and chain link.
    number: int = 0
    chain: str = ""
    #: The seed its draw used up, if it was due: the place is shown it.
    rotation: fairness.Rotation | None = None


@dataclass(frozen=True, slots=True)
class ContestSide:
    """What one side of a d20-check contest brings besides its ability score (ruling 4: "They
    apply all appropriate bonuses and penalties"): a proficiency on its sheet, a bonus,
    advantage or disadvantage, and its own ability when it differs (STR against DEX)."""

    ability: str | None = None
    proficiency: str | None = None
    bonus: int | None = None
    advantage: bool = False
    disadvantage: bool = False

    def given(self) -> bool:
        """Whether anything besides the shared ability was asked for."""
        return any((self.ability, self.proficiency, self.bonus, self.advantage, self.disadvantage))


def _contest_records(
    draw: fairness.Draw | None, start: Any, dice: list[list[int]]
) -> tuple[dict[str, Any] | None, list[dict[str, Any] | None]]:
    """A contest's fair records (docs/fair-dice.md): the contest row's (its dice, member by
    member) and each member row's, each saying where its d20s were drawn (``at``)."""
    at = None if draw is None else fairness.drawn_at(draw, start, [d for m in dice for d in m])
    if draw is None or at is None:
        return None, [None] * len(dice)
    base = draw.record(fairness.D20_DRAWS)
    parts: list[dict[str, Any] | None] = []
    offset = 0
    for member in dice:
        parts.append({**base, "at": at[offset : offset + len(member)]})
        offset += len(member)
    return {**base, "at": at}, parts


async def contest(
    db: Database,
    rng: random.Random,
    caller: Caller,
    ability: str,
    names: str,
    request: str,
    sides: tuple[ContestSide, ContestSide] = (ContestSide(), ContestSide()),
) -> ContestResult:
    """A contest among the named characters, per the campaign's system, as one transaction.

    Roll-under ruling 3: score − d20 each, ranked; ties re-contested among the tied until
    broken. d20 check ruling 4: both roll their checks; the higher total wins, a tie changes
    nothing. The GM may contest any characters; a player only with one of their own in it.
    """
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        require_rule(campaign.rules, "contest")
        canonical = campaign.ability(ability)
        refusal = campaign.rules.contest_sides
        if refusal is not None and any(side.given() for side in sides):
            raise InvalidValue(refusal)
        if parse_targets(names) is None:
            raise InvalidValue("Name the characters who contest (names or @mentions).")
        who = await resolve_targets_in(session, campaign, names, minimum=2, maximum=MAX_CONTESTANTS)
        if not is_gm(campaign, caller) and all(c.user_id != caller.user_id for c in who):
            raise NotAllowed(
                "Only the GM, or a player whose character takes part, can start a contest."
            )
        abilities = [canonical] * len(who)
        if refusal is None and len(who) == 2:
            abilities = [campaign.ability(s.ability) if s.ability else canonical for s in sides]
        for character, used in zip(who, abilities, strict=True):
            if used not in character.scores:
                raise InvalidValue(
                    f"{escape(character.name)} has no {used} score yet: set it with "
                    f"/character set ability:{used} value:<number>."
                )
        options = [
            CheckOptions(
                ability=used,
                proficiency=side.proficiency,
                bonus=side.bonus,
                advantage=side.advantage,
                disadvantage=side.disadvantage,
            )
            for used, side in zip(abilities, sides, strict=False)
        ]
        draw = start = None
        if fairness.chosen_source(rng):  # one draw with the seed of whoever started it
            draw = await fairness.draw_in(session, caller, campaign.id, Visibility.PUBLIC)
            rng, start = draw.rng, draw.rng.getstate()
        outcome, dice = campaign.rules.contest(who, abilities, options, rng)
        per_member = {c.id: d for c, d in zip(who, dice, strict=True)}
        whole, parts = _contest_records(draw, start, dice)
        rows = await ledger.record_rolls_in(
            session,
            [
                ledger.NewRoll(
                    origin=ledger.Origin.of(caller, with_interaction=False),
                    kind=LedgerKind.CHECK,
                    request=request,
                    dice=per_member[character.id],
                    outcome=_with_fair(
                        {"contest_of": canonical, "dice": per_member[character.id]}, part
                    ),
                    campaign_id=campaign.id,
                    character_id=character.id,
                    character_name=character.name,
                    named=ledger.naming((character.user_id, character.name)),
                )
                for character, part in zip(who, parts, strict=True)
            ],
        )
        contest_row = await ledger.record_in(
            session,
            ledger.NewRoll(
                origin=ledger.Origin.of(caller),
                kind=LedgerKind.CONTEST,
                request=request,
                dice=[d for c in who for d in per_member[c.id]],
                outcome=_with_fair(
                    {"contest": to_jsonable(outcome), "member_rolls": [row.number for row in rows]},
                    whole,
                ),
                campaign_id=campaign.id,
                visibility=Visibility.PUBLIC,
                named=ledger.naming(*((c.user_id, c.name) for c in who)),
            ),
        )
    return ContestResult(
        campaign,
        canonical,
        outcome,
        tuple(who),
        contest_row.id,
        contest_row.number,
        contest_row.chain,
        draw.rotation if draw is not None else None,
    )
