"""Inline rolls: every `[[…]]` in a text rolled as the matching slash command would roll it.

`[[1d20+5]]`, `[[roll 2d6+3 [fire]]]`, `[[check DEX Stealth adv]]`, `[[save WIS]]`,
`[[attack longsword ac:15]]`, `[[luck]]` or a saved roll's name (`[[sneak]]`): the grammar is
bot/services/rolling/roll_text.py. Each runs its command's entry (bot/services/rolling/commands.py),
the two phases of its slash command (the caller's active character in the channel's campaign,
the campaign system's rules), and is recorded in the ledger, public, in the CALLER's
transaction: a post and its rolls are one transaction, so a bad roll anywhere leaves nothing
recorded. Every roll is prepared before any die is rolled (the campaign, the character and each
helper read once for the whole text), and each takes its work from the budgets as its command
would, before any die.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select, update

from bot.db.engine import Database
from bot.db.inline_models import rolled_messages
from bot.db.types import utcnow
from bot.dice import DiceError
from bot.errors import UserError
from bot.quoting import quote
from bot.services.kit import budgets, personal
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.kit.personal import Person, PersonalData, declare
from bot.services.kit.sql import Executor, core_transaction, insert_for
from bot.services.rolling import commands, macros
from bot.services.rolling.reads import Reads
from bot.services.rolling.roll_text import RollTextError, parse_roll_text
from bot.services.store import ledger
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
    ready: commands.Ready[Any, commands.Result]
    macro: str | None


def _name(index: int, span: InlineSpan) -> str:
    return f"Inline roll {index} {quote('[[' + span.source + ']]', 80)}"


def _refusal(index: int, span: InlineSpan, exc: Exception) -> InlineRollError:
    why = str(exc).rstrip()
    if why and why[-1] not in ".!?)":
        why += "."
    return InlineRollError(f"{_name(index, span)}: {why} Nothing was rolled.")


async def _plan(
    session: Executor, caller: Caller, index: int, span: InlineSpan, reads: Reads
) -> _Planned:
    """Read and check one `[[…]]` (a macro's stored text with any extra words appended): its
    grammar, then its command's own first phase (the campaign, the character and any helper
    read once for the whole text, the options completed, the rules planned, no dice), so a
    bad roll refuses before any is recorded."""
    macro: str | None = None
    text = span.source
    try:
        word, _, extra = text.partition(" ")
        if text and not macros.is_command_text(text):
            found = await macros.find_macro_in(session, caller, word, reads=reads)
            macro = found.name
            text = f"{found.roll} {extra}".strip()
        ready = await commands.prepare_in(session, caller, parse_roll_text(text), reads)
    except (RollTextError, DiceError, UserError) as exc:
        raise _refusal(index, span, exc) from None
    return _Planned(span, ready, macro)


@dataclass(frozen=True, slots=True)
class PreparedText:
    """Every `[[…]]` of a text read, checked and planned, none rolled yet."""

    planned: tuple[_Planned, ...] = ()


async def prepare_text_in(
    session: Executor, caller: Caller, text: str, *, reads: Reads | None = None
) -> PreparedText:
    """Read and check every `[[…]]` in ``text`` in the caller's transaction, no die rolled:
    the campaign, the caller's character and each helper or source are read once for all
    (``reads``: what the caller read already, e.g. a post's author). Raises
    :class:`InlineRollError` naming the first bad roll."""
    spans = find_rolls(text)
    if len(spans) > MAX_ROLLS:
        raise InlineRollError(
            f"At most {MAX_ROLLS} inline rolls in one text ({len(spans)} here). Nothing was rolled."
        )
    if not spans:
        return PreparedText()
    reads = reads or Reads(caller)
    return PreparedText(
        tuple([await _plan(session, caller, i, span, reads) for i, span in enumerate(spans, 1)])
    )


async def roll_prepared_text_in(
    session: Executor,
    prepared: PreparedText,
    rng: random.Random,
    caller: Caller,
    *,
    bound_to: str | None = None,
) -> InlineRolls:
    """Charge the budgets for every prepared roll, then roll and record each in the caller's
    transaction, in order (see :func:`roll_text_in`)."""
    planned = prepared.planned
    if not planned:
        return InlineRolls()
    # Every roll is a recorded row besides its dice: twenty in one text are twenty rows, a
    # check, a save or a luck roll included.
    works = [p.ready.work_in_text for p in planned]
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
                # A target the roll reads only now, a target's sheet refusing the attack:
                # the caller's transaction rolls back the rolls before this one, and the
                # refused text gives back the work it took (it has done nothing).
                _refund(caller, works)
                raise _refusal(index, plan.span, exc) from None
    rotations = await fairness.rotate_held_in(session, held)
    return InlineRolls(tuple(done), tuple(rotations))


async def roll_text_in(
    session: Executor,
    caller: Caller,
    text: str,
    rng: random.Random,
    *,
    bound_to: str | None = None,
) -> InlineRolls:
    """Roll and record every `[[…]]` in ``text`` in the caller's transaction (see the module):
    :func:`prepare_text_in`, then :func:`roll_prepared_text_in`.

    Raises :class:`InlineRollError` (a UserError) naming the first bad roll; the caller's
    transaction must then roll back, and nothing is recorded. ``bound_to`` ("post 12", a
    message link) is kept in each row's request, so /history shows what the roll belongs to.
    Only the first roll carries the caller's interaction id (the ledger records an interaction
    once: a retried interaction is a :class:`DuplicateInteraction`, as for any command).
    """
    prepared = await prepare_text_in(session, caller, text)
    return await roll_prepared_text_in(session, prepared, rng, caller, bound_to=bound_to)


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
        text += f" = /{plan.ready.parsed.text}"
    if bound_to:
        text += f" in {bound_to}"
    return text[: ledger.MAX_REQUEST]


async def _roll(
    session: Executor, caller: Caller, rng: random.Random, plan: _Planned, request: str
) -> InlineRoll:
    ready = plan.ready
    result = await ready.roll_in(session, rng, caller, request, visibility=Visibility.PUBLIC)
    total, detail = ready.summary(result)
    return InlineRoll(
        plan.span,
        result.roll_id,
        result.number,
        result,
        total,
        detail,
        str(ready.parsed.command),
        plan.macro,
    )


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
