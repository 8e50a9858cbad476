"""The commands a roll text can stand for, one entry each: what it checks, reads, rolls and says.

:func:`roll_text.parse_roll_text` gives a text's :class:`Command`; its entry here decides what
runs, for every caller: the inline rolls of a text (bot/services/rolling/inline.py), a saved
roll run or saved (bot/services/rolling/macros.py). Each entry runs the two phases its slash
command's service runs in a transaction of its own (``checks.perform_check`` …), so a text
rolls exactly as its command would: prepared (the campaign, the character and any helper read,
the options completed, the roll planned, no dice), then rolled and recorded in the caller's
transaction.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from bot.dice import RollResult, parse_many, reading_notes, render_plain
from bot.rules.systems import System, summarize
from bot.rules.systems.base import d20_line, number
from bot.rules.systems.commands import NotInSystem
from bot.rules.systems.commands import require as require_rule
from bot.services.kit import budgets
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue
from bot.services.kit.sql import Executor
from bot.services.rolling import attacks, checks, rolls
from bot.services.rolling.attacks import AttackResult
from bot.services.rolling.checks import CheckOptions, CheckResult
from bot.services.rolling.reads import Reads, RollsPrepared
from bot.services.rolling.roll_text import Command, RollText, RollTextError
from bot.services.rolling.rolls import DiceRoll
from bot.words import Visibility

#: What a command's roll recorded.
Result = DiceRoll | CheckResult | AttackResult


class _Prepared(Protocol):
    @property
    def work(self) -> int: ...


P = TypeVar("P", bound=_Prepared)
R = TypeVar("R", bound=Result)

Visible = Visibility | str | None


@dataclass(frozen=True, slots=True)
class RollCommand(Generic[P, R]):
    """One command a roll text can stand for."""

    command: Command
    #: Refuse, as a saved roll is saved, what the command refuses whatever the sheet and the
    #: dice: a command or option the campaign's system does not have, a bad notation.
    check_saved_in: Callable[[Executor, RollText, Reads], Awaitable[None]]
    #: Read, complete and plan it (no dice): its slash command's first phase.
    prepare_in: Callable[[Executor, Caller, RollText, Reads], Awaitable[P]]
    #: Roll and record it in the caller's transaction: its slash command's second phase.
    roll_in: RollsPrepared[P, R]
    #: Its short result and its dice, plain text (`Success (17 vs DC 15)`, `1d20 (12) + 5`).
    summary: Callable[[RollText, R], tuple[str, str]]
    #: What a roll among several of a text adds to its command's work: /roll pays for its
    #: dice alone, but a text's twenty rolls are twenty rows too (budgets.ROLL_ROW).
    row_in_text: int = 0


@dataclass(frozen=True, slots=True)
class Ready(Generic[P, R]):
    """A roll text prepared by its command, no die rolled: ready to charge and roll."""

    parsed: RollText
    entry: RollCommand[P, R]
    prepared: P

    @property
    def work(self) -> int:
        """What its command takes from the budgets, as typed out (/macro run)."""
        return self.prepared.work

    @property
    def work_in_text(self) -> int:
        """What it takes as one of several rolls of a text (an inline roll)."""
        return self.prepared.work + self.entry.row_in_text

    async def roll_in(
        self,
        session: Executor,
        rng: random.Random,
        caller: Caller,
        request: str,
        *,
        visibility: Visible,
    ) -> R:
        """Roll and record it in the caller's transaction (``visibility`` None: the campaign's
        default for the command)."""
        return await self.entry.roll_in(
            session, self.prepared, rng, caller, request, visibility=visibility
        )

    def summary(self, result: R) -> tuple[str, str]:
        """Its short result and its dice, plain text."""
        return self.entry.summary(self.parsed, result)


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


def _check_summary(_parsed: RollText, result: CheckResult) -> tuple[str, str]:
    return summarize(result.outcome, result.plan_title)


# --------------------------------------------------------------------------- the entries


def _check_options(parsed: RollText) -> CheckOptions:
    if parsed.check is None:  # pragma: no cover - parse_roll_text fills its command's options
        raise RollTextError("Nothing to roll.")
    return parsed.check


async def _roll_fits_in(session: Executor, parsed: RollText, reads: Reads) -> None:
    parse_many(parsed.dice or "", await reads.dialect_in(session))  # in the player's dialect


def _options_fit(
    allowed_of: Callable[[System], frozenset[str] | None],
) -> Callable[[Executor, RollText, Reads], Awaitable[None]]:
    """A check's or a save's options (``allowed_of`` the system's) and its ability, as the
    campaign's system has them."""

    async def fits_in(session: Executor, parsed: RollText, reads: Reads) -> None:
        campaign = await reads.campaign_in(session)
        system = campaign.rules
        options = _check_options(parsed)
        allowed = allowed_of(system)
        if allowed is None:
            raise NotInSystem(system, "saves")
        given = options.given()
        extra = ["from" if name == "source" else name for name in given if name not in allowed]
        if extra:
            has = ", ".join(sorted(allowed)) if allowed else "no options besides ability"
            raise InvalidValue(
                f"This campaign plays {system.name}, where /{parsed.command} has no "
                f"{', '.join(extra)} (it takes {has})."
            )
        if options.ability:
            campaign.ability(options.ability)  # an ability the campaign has

    return fits_in


def _rule_fits(rule: str) -> Callable[[Executor, RollText, Reads], Awaitable[None]]:
    async def fits_in(session: Executor, _parsed: RollText, reads: Reads) -> None:
        require_rule((await reads.campaign_in(session)).rules, rule)

    return fits_in


async def _prepare_roll_in(
    session: Executor, caller: Caller, parsed: RollText, reads: Reads
) -> rolls.PreparedRoll:
    return await rolls.prepare_in(
        session, caller, parsed.dice or "", label=parsed.label, reads=reads
    )


async def _prepare_check_in(
    session: Executor, caller: Caller, parsed: RollText, reads: Reads
) -> checks.PreparedCheck:
    return await checks.prepare_check_in(session, caller, _check_options(parsed), reads=reads)


async def _prepare_save_in(
    session: Executor, caller: Caller, parsed: RollText, reads: Reads
) -> checks.PreparedCheck:
    return await checks.prepare_save_in(session, caller, _check_options(parsed), reads=reads)


async def _prepare_luck_in(
    session: Executor, caller: Caller, _parsed: RollText, reads: Reads
) -> checks.PreparedCheck:
    return await checks.prepare_luck_in(session, caller, reads=reads)


async def _prepare_attack_in(
    session: Executor, caller: Caller, parsed: RollText, reads: Reads
) -> attacks.PreparedAttack:
    if parsed.attack is None:  # pragma: no cover - parse_roll_text fills its options
        raise RollTextError("Nothing to roll.")
    return await attacks.prepare_in(session, caller, parsed.attack, reads=reads)


def _attack_summary(parsed: RollText, result: AttackResult) -> tuple[str, str]:
    return attack_summary(result, parsed.label)  # the label: the weapon the text names


_ENTRIES: tuple[RollCommand[Any, Any], ...] = (
    RollCommand(
        Command.ROLL,
        _roll_fits_in,
        _prepare_roll_in,
        rolls.roll_prepared_in,
        lambda _parsed, result: dice_summary(result),
        row_in_text=budgets.ROLL_ROW,
    ),
    RollCommand(
        Command.CHECK,
        _options_fit(lambda system: system.check_options),
        _prepare_check_in,
        checks.roll_prepared_in,
        _check_summary,
    ),
    RollCommand(
        Command.SAVE,
        _options_fit(lambda system: system.save_options),
        _prepare_save_in,
        checks.roll_prepared_in,
        _check_summary,
    ),
    RollCommand(
        Command.LUCK, _rule_fits("luck"), _prepare_luck_in, checks.roll_prepared_in, _check_summary
    ),
    RollCommand(
        Command.ATTACK,
        _rule_fits("attacks"),
        _prepare_attack_in,
        attacks.roll_prepared_in,
        _attack_summary,
    ),
)
#: Every command a roll text can stand for (:class:`Command`), and what runs it.
COMMANDS: Mapping[Command, RollCommand[Any, Any]] = {entry.command: entry for entry in _ENTRIES}


async def prepare_in(
    session: Executor, caller: Caller, parsed: RollText, reads: Reads
) -> Ready[Any, Result]:
    """``parsed`` read, completed and planned by its command, in the caller's transaction."""
    entry = COMMANDS[parsed.command]
    return Ready(parsed, entry, await entry.prepare_in(session, caller, parsed, reads))


async def check_saved_in(session: Executor, parsed: RollText, reads: Reads) -> None:
    """Refuse a saved roll's text its command would refuse whatever the sheet and the dice."""
    await COMMANDS[parsed.command].check_saved_in(session, parsed, reads)
