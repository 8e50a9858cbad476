"""Inline rolls: every `[[…]]` in a text rolled as the matching slash command would roll it.

`[[1d20+5]]`, `[[roll 2d6+3 [fire]]]`, `[[check DEX Stealth adv]]`, `[[save WIS]]`,
`[[attack longsword ac:15]]`, `[[luck]]` or a saved roll's name (`[[sneak]]`): the grammar is
bot/services/rolling/roll_text.py. Each is rolled by the same service function as its command (the
caller's active character in the channel's campaign, the campaign system's rules) and recorded
in the ledger, public, in the CALLER's transaction: a post and its rolls are one transaction,
so a bad roll anywhere leaves nothing recorded. Every roll is read and checked before any die
is rolled, and each takes its work from the budgets as its command would, before any die.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace

from sqlalchemy import select, update

from bot.db.engine import Database
from bot.db.inline_models import rolled_messages
from bot.db.types import utcnow
from bot.dice import DiceError, RollResult, parse_many, reading_notes, render_plain
from bot.errors import UserError
from bot.quoting import quote
from bot.rules.systems import summarize
from bot.rules.systems.base import d20_line, number
from bot.services.kit import budgets, personal
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.kit.errors import NoCampaign
from bot.services.kit.personal import Person, PersonalData, declare
from bot.services.kit.sql import Executor, core_transaction, insert_for
from bot.services.rolling import attacks, checks, dialects, macros, rolls
from bot.services.rolling.attacks import AttackResult
from bot.services.rolling.checks import CheckResult
from bot.services.rolling.roll_text import Command, RollText, RollTextError, parse_roll_text
from bot.services.rolling.rolls import DiceRoll
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView, campaign_for_channel_in
from bot.services.store.characters import CharacterView, active_character_in
from bot.services.trust import fairness
from bot.words import Visibility

#: The most `[[…]]` one text may hold (a post is at most 4,000 characters).
MAX_ROLLS = 20

# `[[…]]` whose inside may hold one level of `[label]` (`[[roll 2d6+3 [fire]]]`), lazily.
_SPAN = re.compile(r"\[\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\]")


class InlineRollError(UserError):
    """A bad inline roll: the message names it (`[[…]]`, its number) and why; nothing rolled."""


@dataclass(frozen=True, slots=True)
class InlineSpan:
    """One `[[…]]`: where it is in the text (the whole brackets) and what is inside, stripped."""

    start: int
    end: int
    source: str


@dataclass(frozen=True, slots=True)
class InlineRoll:
    """A recorded inline roll: its span, ledger row, public number and the service's outcome.

    ``total`` is the short result shown in bold in place (``17``, ``Success (17 vs DC 15)``),
    ``detail`` the compact dice line; both plain text (the renderer escapes them).
    """

    span: InlineSpan
    ledger_id: int
    number: int
    outcome: object
    total: str
    detail: str
    #: The command it ran (roll, check, save, attack, luck) and, for a macro, its name.
    command: str = ""
    macro: str | None = None


@dataclass(frozen=True, slots=True)
class InlineRolls:
    """Every inline roll of a text, in order."""

    rolls: tuple[InlineRoll, ...] = ()
    #: Seeds the rolls used up, rotated after the last one: the place is shown them.
    rotations: tuple[fairness.Rotation, ...] = ()


def find_rolls(text: str) -> list[InlineSpan]:
    """Every `[[…]]` in ``text``, in order (an empty `[[ ]]` too: it is refused when rolled)."""
    spans: list[InlineSpan] = []
    for match in _SPAN.finditer(text):
        spans.append(InlineSpan(match.start(), match.end(), match.group(1).strip()))
    return spans


@dataclass(frozen=True, slots=True)
class _Planned:
    span: InlineSpan
    parsed: RollText
    macro: str | None
    work: int


def _name(index: int, span: InlineSpan) -> str:
    return f"Inline roll {index} {quote('[[' + span.source + ']]', 80)}"


def _refusal(index: int, span: InlineSpan, exc: Exception) -> InlineRollError:
    why = str(exc).rstrip()
    if why and why[-1] not in ".!?)":
        why += "."
    return InlineRollError(f"{_name(index, span)}: {why} Nothing was rolled.")


async def _plan(
    session: Executor, caller: Caller, index: int, span: InlineSpan, context: _Context
) -> _Planned:
    """Read and check one `[[…]]` (a macro's stored text with any extra words appended): its
    grammar, its notation, and its rules with the character's stats bound (the services'
    own planners, which roll no dice), so a bad roll refuses before any is recorded."""
    macro: str | None = None
    text = span.source
    try:
        word, _, extra = text.partition(" ")
        if text and not macros.is_command_text(text):
            found = await macros.find_macro_in(session, caller, word)
            macro = found.name
            text = f"{found.roll} {extra}".strip()
        parsed = parse_roll_text(text)
        # Every roll is a recorded row besides its dice: twenty in one text are twenty rows
        # (budgets.ROLL_ROW), a check, a save or a luck roll included.
        work = budgets.ROLL_ROW
        if parsed.command is Command.ROLL:
            dialect = await dialects.resolve_in(session, caller)
            work += budgets.dice_work(parse_many(parsed.dice or "", dialect))
        else:
            parsed = await _check_rules(session, caller, parsed, context)
            if parsed.attack is not None:
                work = attacks.attack_work(parsed.attack)
    except (RollTextError, DiceError, UserError) as exc:
        raise _refusal(index, span, exc) from None
    return _Planned(span, parsed, macro, work)


@dataclass(slots=True)
class _Context:
    """The caller's campaign and active character, read once for all the rolls of a text."""

    found: tuple[CampaignView, CharacterView] | None = None


async def _check_rules(
    session: Executor, caller: Caller, parsed: RollText, context: _Context
) -> RollText:
    """Refuse what the command's service would refuse (no dice rolled); returns the options
    as the service completes them (a helper's name as stored, a save's DC from its source)."""
    if context.found is None:
        if caller.guild_id is None:
            raise NoCampaign()
        campaign = await campaign_for_channel_in(
            session, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
        context.found = (campaign, await active_character_in(session, campaign.id, caller.user_id))
    campaign, character = context.found
    if parsed.command is Command.LUCK:
        checks.plan_luck(campaign, character)
    elif parsed.command is Command.ATTACK and parsed.attack is not None:
        attacks.attack_input(campaign, character, parsed.attack)
    elif parsed.command is Command.SAVE and parsed.check is not None:
        options = await checks.with_dc_source_in(session, caller, parsed.check)
        checks.plan_save(campaign, character, options)
        return replace(parsed, check=options)
    elif parsed.check is not None:
        options = await checks.with_helper_in(session, caller, parsed.check)
        checks.plan_check(campaign, character, options)
        return replace(parsed, check=options)
    return parsed


async def roll_text_in(
    session: Executor,
    caller: Caller,
    text: str,
    rng: random.Random,
    *,
    bound_to: str | None = None,
) -> InlineRolls:
    """Roll and record every `[[…]]` in ``text`` in the caller's transaction (see the module).

    Raises :class:`InlineRollError` (a UserError) naming the first bad roll; the caller's
    transaction must then roll back, and nothing is recorded. ``bound_to`` ("post 12", a
    message link) is kept in each row's request, so /history shows what the roll belongs to.
    Only the first roll carries the caller's interaction id (the ledger records an interaction
    once: a retried interaction is a :class:`DuplicateInteraction`, as for any command).
    """
    spans = find_rolls(text)
    if not spans:
        return InlineRolls()
    if len(spans) > MAX_ROLLS:
        raise InlineRollError(
            f"At most {MAX_ROLLS} inline rolls in one text ({len(spans)} here). Nothing was rolled."
        )
    context = _Context()
    planned = [
        await _plan(session, caller, i, span, context) for i, span in enumerate(spans, start=1)
    ]
    works = [p.work for p in planned]
    _charge(caller, works)
    done: list[InlineRoll] = []
    # A dice seed falling due mid-text rotates after the last roll, never between two
    # (docs/fair-dice.md).
    with fairness.rotations_held() as held:
        for index, plan in enumerate(planned, start=1):
            who = caller if index == 1 else replace(caller, interaction_id=None)
            request = _request(plan, bound_to)
            try:
                done.append(await _roll(session, who, rng, plan, request))
            except UserError as exc:
                # A check this campaign's system refuses, a character without the score:
                # found only now; the caller's transaction rolls back the rolls before this
                # one, and the refused text gives back the work it took (it has done nothing).
                _refund(caller, works)
                raise _refusal(index, plan.span, exc) from None
    rotations = await fairness.rotate_held_in(session, held)
    return InlineRolls(tuple(done), tuple(rotations))


def _charge(caller: Caller, works: list[int]) -> None:
    """Each roll's work taken from the budgets as its command would take it, all before any
    die is rolled; when one is refused, what the others took is given back (a refused text
    has done nothing). Charged one by one, not as one sum: a bucket lets one request larger
    than itself through, which twenty large rolls in one text must not be."""
    taken: list[int] = []
    try:
        for work in works:
            if work:
                budgets.charge(caller, work)
                taken.append(work)
    except budgets.OverBudget:
        _refund(caller, taken)
        raise


def _refund(caller: Caller, works: list[int]) -> None:
    """Give back what :func:`_charge` took for ``works``."""
    if caller.budget is not None:
        for work in works:
            caller.budget.refund(caller.user_id, caller.guild_id, work)


def _request(plan: _Planned, bound_to: str | None) -> str:
    text = f"[[{plan.span.source}]]"
    if plan.macro is not None:
        text += f" = /{plan.parsed.text}"
    if bound_to:
        text += f" in {bound_to}"
    return text[: ledger.MAX_REQUEST]


async def _roll(
    session: Executor, caller: Caller, rng: random.Random, plan: _Planned, request: str
) -> InlineRoll:
    parsed = plan.parsed
    if parsed.command is Command.ROLL:
        batch = parse_many(parsed.dice or "", await dialects.resolve_in(session, caller))
        rolled = await rolls.roll_batch_in(
            session, rng, caller, batch, label=parsed.label, request=request
        )
        total, detail = dice_summary(rolled)
        return InlineRoll(
            plan.span, rolled.roll_id, rolled.number, rolled, total, detail, "roll", plan.macro
        )
    if parsed.command is Command.ATTACK and parsed.attack is not None:
        attack = await attacks.attack_in(
            session, rng, caller, parsed.attack, request, visibility=Visibility.PUBLIC
        )
        total, detail = attack_summary(attack, parsed.label)
        return InlineRoll(
            plan.span, attack.roll_id, attack.number, attack, total, detail, "attack", plan.macro
        )
    result: CheckResult
    if parsed.command is Command.LUCK:
        result = await checks.luck_in(session, rng, caller, request)
    elif parsed.command is Command.SAVE and parsed.check is not None:
        result = await checks.save_in(session, rng, caller, parsed.check, request)
    elif parsed.check is not None:
        result = await checks.check_in(session, rng, caller, parsed.check, request)
    else:  # pragma: no cover - parse_roll_text always fills the options of its command
        raise RollTextError("Nothing to roll.")
    total, detail = summarize(result.outcome, result.plan_title)
    return InlineRoll(
        plan.span,
        result.roll_id,
        result.number,
        result,
        total,
        detail,
        str(parsed.command),
        plan.macro,
    )


# --------------------------------------------------------------------------- short words


def _dice_total(result: RollResult) -> str:
    if result.compared is not None:
        return "Pass" if result.passed else "Fail"
    return number(result.total)


def dice_summary(rolled: DiceRoll) -> tuple[str, str]:
    """A generic roll's total(s) and its dice (`2d6 (4, 2) + 3 [fire] = 9`)."""
    total = ", ".join(_dice_total(r) for r in rolled.results)
    detail = "; ".join(render_plain(r, max_length=300) for r in rolled.results)
    notes = reading_notes(rolled.results)
    if notes:  # how a contested spelling was read (docs/dice.md, "Dialects")
        detail += " (" + "; ".join(notes) + ")"
    return total, detail


def attack_summary(result: AttackResult, weapon: str | None = None) -> tuple[str, str]:
    """An attack's result (`Hit (17 vs AC 15), 7 damage`) and its dice."""
    outcome = result.outcome
    total = f"{outcome.result_text} ({number(outcome.total)} vs AC {outcome.ac})"
    if result.damage is not None:
        total += f", {result.damage.total} damage"
    what = f"{result.title} ({weapon})" if weapon else result.title
    detail = f"{what}: {d20_line(outcome.dice, outcome.kept, outcome.modifiers)}"
    if result.damage is not None:
        detail += f"; damage {render_plain(result.damage.roll, max_length=200)}"
        if result.damage.again is not None:
            detail += f", again {render_plain(result.damage.again, max_length=200)}"
    if result.ac_lost:
        detail += f"; target's AC −{result.ac_lost}"
    return total, detail


async def roll_text(
    db: Database,
    caller: Caller,
    text: str,
    rng: random.Random,
    *,
    bound_to: str | None = None,
    message_id: int | None = None,
) -> InlineRolls:
    """:func:`roll_text_in` in its own transaction (the message context-menu command).

    A text without any `[[…]]` is refused: there is nothing to roll. With ``message_id`` (the
    Discord message the text is), its dice are rolled once, not until they please: the
    message's id is claimed in ``rolled_messages`` in the transaction that records the rolls,
    and a second try, or one racing the first, finds the claim and names the earlier roll.
    The claim is keyed on the id alone, never on the text (which can be cut or padded).
    """
    if not find_rolls(text):
        raise InlineRollError(
            "That message has no inline rolls: write them in double brackets, e.g. "
            "[[1d20+5]], [[check DEX Stealth adv]] or [[sneak]] (a saved roll)."
        )
    async with core_transaction(db) as session:
        if message_id is not None:
            await _refuse_rolled_in(session, message_id)
        rolled = await roll_text_in(session, caller, text, rng, bound_to=bound_to)
        if message_id is not None and rolled.rolls:
            claimed = await session.execute(
                insert_for(session, rolled_messages)
                .values(
                    message_id=message_id,
                    user_id=caller.user_id,
                    ledger_id=rolled.rolls[0].ledger_id,
                    created_at=utcnow(),
                )
                .on_conflict_do_nothing()
                .returning(rolled_messages.c.message_id)
            )
            if claimed.first() is None:  # a concurrent roll of the same message won
                await _refuse_rolled_in(session, message_id)
                raise InlineRollError(_ROLLED_ALREADY.format(""))
        return rolled


_ROLLED_ALREADY = (
    "The dice in that message were rolled already{}: a message's dice are rolled once. "
    "Nothing was rolled."
)


async def _refuse_rolled_in(session: Executor, message_id: int) -> None:
    """Refuse a message whose dice were rolled already, naming the earlier roll."""
    found = await session.execute(
        select(rolled_messages.c.ledger_id).where(rolled_messages.c.message_id == message_id)
    )
    ledger_id = found.scalar_one_or_none()
    if ledger_id is not None:
        number = (await ledger.numbers_in(session, [int(ledger_id)])).get(int(ledger_id))
        raise InlineRollError(_ROLLED_ALREADY.format(f" (roll #{number})"))


# --- what the context menu keeps about a person (bot/services/kit/personal.py) ------------------


async def _erase_in(session: Executor, person: Person) -> int:
    """Whose message's dice the context menu rolled: the id goes, the message's claim stays,
    so its dice still roll once."""
    stmt = update(rolled_messages).where(rolled_messages.c.user_id == person.user_id)
    if person.guild_id is not None:
        stmt = stmt.where(ledger.rolled_in(rolled_messages.c.ledger_id, person.guild_id))
    return personal.changed(await session.execute(stmt.values(user_id=cm.TOMBSTONE_ID)))


PERSONAL_DATA = declare(
    PersonalData(
        "rolled messages",
        # The message's claim stays, so its dice still roll once; only whose message it was goes.
        holdings=(personal.holding("rolled_messages", "user_id", "user_id"),),
        erase=personal.each_in_its_transaction(_erase_in),
    )
)
