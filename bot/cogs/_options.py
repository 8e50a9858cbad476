"""Slash-command option types, descriptions and builders, from the rolling commands' table.

The rolling commands (/check, /gm check, /odds check…) are declared once, in
``bot/commands/rolling.py``: here their shapes become discord.py option types (:class:`Shaped`:
a range, a length, choices), and :func:`declared` gives a command's callback the table's
descriptions, renames, autocompletes and where it runs. discord.py reads the options from the
callback's signature, so each callback still lists its parameters; ``tests/commands/`` fails,
naming the command and option, when one disagrees with the table.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import discord
from discord import AppCommandOptionType, app_commands

from bot.cogs import _autocomplete as ac
from bot.commands import Complete, Kind, RollingCommand, Shape, Where
from bot.commands import rolling as table
from bot.services.rolling.attacks import AttackOptions
from bot.services.rolling.checks import CheckOptions
from bot.words import LedgerKind


class WordChoices(app_commands.Transformer):
    """A text option whose choices are a word list of bot/words.py, each shown as it is typed
    and stored (``public``, not the member name ``PUBLIC`` that an ``enum`` annotation shows).

    The value reaches the command unchanged, as a ``Literal`` option's did, so a value outside
    the list (only a forged interaction sends one) meets the same checks as before.
    """

    def __init__(self, words: Iterable[enum.StrEnum]) -> None:
        self._choices: list[app_commands.Choice[int | float | str]] = [
            app_commands.Choice(name=str(word), value=str(word)) for word in words
        ]

    @property
    def type(self) -> AppCommandOptionType:
        return AppCommandOptionType.string

    @property
    def choices(self) -> list[app_commands.Choice[int | float | str]]:
        return self._choices

    async def transform(self, interaction: discord.Interaction[Any], value: Any, /) -> Any:
        return value


_TYPES = {
    Kind.TEXT: AppCommandOptionType.string,
    Kind.INT: AppCommandOptionType.integer,
    Kind.BOOL: AppCommandOptionType.boolean,
}


class Shaped(app_commands.Transformer):
    """An option of a table :class:`~bot.commands.Shape`: its type, range (a text's length) and
    choices, as ``Range`` and ``Literal`` declared them (the same payload to Discord).

    The value reaches the command unchanged, as theirs did: Discord enforces the range and the
    choices, and the services check what a forged interaction could send.
    """

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self._choices: list[app_commands.Choice[int | float | str]] | None = [
            app_commands.Choice(name=choice, value=choice) for choice in shape.choices
        ] or None

    @property
    def type(self) -> AppCommandOptionType:
        return _TYPES[self.shape.kind]

    @property
    def min_value(self) -> int | None:
        return self.shape.low

    @property
    def max_value(self) -> int | None:
        return self.shape.high

    @property
    def choices(self) -> list[app_commands.Choice[int | float | str]] | None:
        return self._choices

    async def transform(self, interaction: discord.Interaction[Any], value: Any, /) -> Any:
        return value


# One alias per shape of the table: a callback's parameter names the shape of its option.
Secret = app_commands.Transform[str, Shaped(table.VISIBILITY)]
DifficultyChoice = app_commands.Transform[str, Shaped(table.DIFFICULTY)]
AbilityName = app_commands.Transform[str, Shaped(table.ABILITY)]
Name = app_commands.Transform[str, Shaped(table.NAME)]
Notation = app_commands.Transform[str, Shaped(table.NOTATION)]
Dice = app_commands.Transform[str, Shaped(table.DAMAGE)]
Label = app_commands.Transform[str, Shaped(table.LABEL)]
Dc = app_commands.Transform[int, Shaped(table.DC)]
Bonus = app_commands.Transform[int, Shaped(table.BONUS)]
RankBonus = app_commands.Transform[int, Shaped(table.RANK_BONUS)]
CritAt = app_commands.Transform[int, Shaped(table.CRIT_AT)]
Ac = app_commands.Transform[int, Shaped(table.AC)]
Magic = app_commands.Transform[int, Shaped(table.MAGIC)]
AtLeast = app_commands.Transform[int, Shaped(table.AT_LEAST)]
Against = app_commands.Transform[str, Shaped(table.AGAINST_CHOICES)]
School = app_commands.Transform[str, Shaped(table.SCHOOL)]
Quality = app_commands.Transform[str, Shaped(table.QUALITY)]
Next = app_commands.Transform[str, Shaped(table.NEXT)]
Characters = app_commands.Transform[str, Shaped(table.CHARACTERS)]
Requested = app_commands.Transform[str, Shaped(table.REQUESTED)]
Duration = app_commands.Transform[str, Shaped(table.DURATION)]
RollMode = app_commands.Transform[str, Shaped(table.ROLL_MODE)]
DefaultChoice = app_commands.Transform[str, Shaped(table.DEFAULT_ACTION)]

#: Every kind of roll the ledger records (a turn-order change is not a roll).
HistoryKind = app_commands.Transform[
    str, WordChoices(k for k in LedgerKind if k is not LedgerKind.TURN)
]

_COMPLETE: Mapping[Complete, Callable[..., Any]] = {
    Complete.ABILITY: ac.ability,
    Complete.PROFICIENCY: ac.proficiency,
    Complete.CHARACTER: ac.any_character,
}

_F = TypeVar("_F", bound=Callable[..., Any])


def declared(command: RollingCommand) -> Callable[[_F], _F]:
    """The table's descriptions, renames and autocompletes of ``command``'s options, and
    where it runs, on its callback (beneath ``app_commands.command``)."""

    def apply(func: _F) -> _F:
        decorated: Any = app_commands.describe(**{o.key: o.help for o in command.options})(func)
        if renames := {o.key: o.name for o in command.options if o.key != o.name}:
            decorated = app_commands.rename(**renames)(decorated)
        completes = {o.key: _COMPLETE[o.complete] for o in command.options if o.complete}
        if completes:
            decorated = app_commands.autocomplete(**completes)(decorated)
        # /gm is a server's as a whole (bot/cogs/_gm.py); the others say so each.
        if command.where is Where.SERVER and not command.under_gm:
            decorated = app_commands.guild_only()(decorated)
        result: _F = decorated
        return result

    return apply


def check_options(command: RollingCommand, given: Mapping[str, object]) -> CheckOptions:
    """The check or save ``command``'s callback was given (its parameters by name: the
    ``locals()`` of its first line), as the checks service takes it."""
    fields = command.fields(given)
    return CheckOptions(ability=fields.pop("ability", ""), **fields)


def attack_options(command: RollingCommand, given: Mapping[str, object]) -> AttackOptions:
    """The attack ``command``'s callback was given, as the attacks service takes it."""
    return AttackOptions(**command.fields(given))
