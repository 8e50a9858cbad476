"""Where the bot disagrees with the rolling commands' table, each difference named.

Three readers of the table are compared with a table given (the real one, or a test's changed
copy): the slash commands as the bot syncs them (the payload and the callbacks' defaults), the
inline and saved roll grammar (played: each bound and choice typed as a player would), and
/help's pages. Each problem names the command and the option: ``/check dc: max_value 100 in
the tree, 99 in the table``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from discord import app_commands
from discord.utils import MISSING

from bot.commands import Kind, Option, RollingCommand, Where, Who
from bot.rules.systems import SYSTEMS
from bot.services.rolling import roll_text
from bot.services.rolling.roll_text import RollTextError, parse_roll_text

Table = Mapping[str, RollingCommand]

#: Discord's option types (string, integer, boolean).
TYPES = {Kind.TEXT: 3, Kind.INT: 4, Kind.BOOL: 5}


def leaves(payload: Iterable[dict[str, Any]]) -> dict[str, tuple[dict[str, Any], bool]]:
    """Every slash command's payload by its qualified name, and whether it may run in a DM
    (its top-level command's ``dm_permission``)."""
    found: dict[str, tuple[dict[str, Any], bool]] = {}

    def walk(node: dict[str, Any], prefix: str, anywhere: bool) -> None:
        name = f"{prefix} {node['name']}".strip()
        groups = [o for o in node.get("options", []) if o["type"] in (1, 2)]
        if not groups:
            found[name] = (node, anywhere)
        for group in groups:
            walk(group, name, anywhere)

    for command in payload:
        if int(command.get("type") or 1) == 1:
            walk(command, "", command.get("dm_permission") is not False)
    return found


def _differs(
    where: str, what: str, theirs: object, ours: object, whose: str = "the tree"
) -> list[str]:
    if theirs == ours:
        return []
    return [f"{where}: {what} {theirs!r} in {whose}, {ours!r} in the table"]


def _names(where: str, theirs: list[str], ours: list[str], whose: str) -> list[str]:
    """Options one side has and the other lacks, or the same in another order."""
    found = [f"{where} {n}: in the table, not in {whose}" for n in ours if n not in theirs]
    found += [f"{where} {n}: in {whose}, not in the table" for n in theirs if n not in ours]
    common = [n for n in ours if n in theirs]
    if not found and common != theirs:
        found.append(f"{where}: options in the order {theirs} in {whose}, {common} in the table")
    return found


def _option_problems(where: str, tree: dict[str, Any], option: Option) -> list[str]:
    shape = option.shape
    low, high = (
        ("min_length", "max_length") if shape.kind is Kind.TEXT else ("min_value", "max_value")
    )
    return [
        *_differs(where, "type", tree["type"], TYPES[shape.kind]),
        *_differs(where, low, tree.get(low), None if shape.choices else shape.low),
        *_differs(where, high, tree.get(high), None if shape.choices else shape.high),
        *_differs(
            where, "choices", [c["value"] for c in tree.get("choices", [])], list(shape.choices)
        ),
        *_differs(where, "required", bool(tree.get("required")), option.required),
        *_differs(where, "description", tree.get("description"), option.help),
        *_differs(
            where, "autocomplete", bool(tree.get("autocomplete")), option.complete is not None
        ),
    ]


def tree_problems(
    table: Table,
    payload: list[dict[str, Any]],
    callbacks: Mapping[str, app_commands.Command[Any, ..., Any]] = {},
) -> list[str]:
    """The synced command tree (and, given, the callbacks' parameters) against ``table``."""
    found: list[str] = []
    synced = leaves(payload)
    for name, command in table.items():
        where = f"/{name}"
        if name not in synced:
            found.append(f"{where}: in the table, not in the command tree")
            continue
        leaf, anywhere = synced[name]
        found += _differs(where, "description", leaf.get("description"), command.help)
        if not anywhere and command.where is Where.ANYWHERE:
            found.append(f"{where}: runs only in a server in the tree, anywhere in the table")
        if " " not in name and anywhere and command.where is Where.SERVER:
            found.append(f"{where}: runs anywhere in the tree, only in a server in the table")
        # /gm is the GM's (bot/cogs/_gm.py); a GM's command elsewhere (/groupcheck) is refused
        # to players by its service, which the tree does not show.
        if command.under_gm and command.who is not Who.GM:
            found.append(f"{where}: who {command.who} in the table, but it is under /gm")
        options = {o["name"]: o for o in leaf.get("options", [])}
        found += _names(where, list(options), [o.name for o in command.options], "the command tree")
        for option in command.options:
            if option.name in options:
                found += _option_problems(f"{where} {option.name}", options[option.name], option)
        if name in callbacks:
            found += _default_problems(where, callbacks[name], command)
    return found


def _default_problems(
    where: str, callback: app_commands.Command[Any, ..., Any], command: RollingCommand
) -> list[str]:
    """Each option's parameter: named by its key, its default the table's (None: none)."""
    params = {p.name: p for p in callback.parameters}
    found = []
    for option in command.options:
        param = params.get(option.key)
        if param is None:
            found.append(f"{where} {option.name}: no parameter {option.key} in the callback")
            continue
        default = None if param.default is MISSING else param.default
        if default != option.default:
            found.append(
                f"{where} {option.name}: default {default!r} in the callback, "
                f"{option.default!r} in the table"
            )
    return found


# --- the inline and saved roll grammar ------------------------------------------------------

#: A roll text each command accepts, and another without the option it needs (to try it).
_BASE = {"check": "check ability:DEX", "save": "save", "attack": "attack ac:10", "luck": "luck"}
_WITHOUT = {("check", "ability"): "check", ("attack", "ac"): "attack target:Bo"}


def _parsed(text: str, option: Option) -> tuple[bool, object]:
    """Whether the grammar takes ``text``, and the value it gave ``option``'s field."""
    try:
        parsed = parse_roll_text(text)
    except RollTextError:
        return False, None
    options = parsed.check if parsed.check is not None else parsed.attack
    return True, getattr(options, option.key, "<no such field>")


def _tries(option: Option) -> list[tuple[str, bool, object]]:
    """(typed value, whether the table allows it, the value the roll options should hold)."""
    shape = option.shape
    if shape.choices:
        return [(c, True, option.value(c)) for c in shape.choices] + [("nonesuch", False, None)]
    if shape.kind is Kind.BOOL:
        return [("true", True, True), ("no", True, False), ("maybe", False, None)]
    if shape.kind is Kind.INT:
        assert shape.low is not None and shape.high is not None
        return [
            (str(shape.low), True, shape.low),
            (str(shape.high), True, shape.high),
            (str(shape.low - 1), False, None),
            (str(shape.high + 1), False, None),
        ]
    return [("Ann", True, option.value("Ann"))]


def grammar_problems(table: Table) -> list[str]:
    """The inline grammar (bot/services/rolling/roll_text.py), played, against ``table``."""
    found: list[str] = []
    for name, command in table.items():
        if command.spelling is None:
            continue
        word = command.spelling.word
        where = f"/{name}"
        if roll_text.COMMANDS[word].name != name:
            found.append(f"{where}: `{word}` stands for /{roll_text.COMMANDS[word].name} inline")
        grammar = list(roll_text.OPTIONS[word])
        ours = [o.name for o in command.inline_options]
        found += _names(where, grammar, ours, "the inline grammar")
        if word == "roll":
            continue  # dice notation: its own grammar (tests/scenarios/test_inline_rolls.py)
        for option in command.inline_options:
            if option.name not in grammar:
                continue
            base = _WITHOUT.get((word, option.name), _BASE[word])
            for typed, allowed, held in _tries(option):
                quoted = f'"{typed}"' if " " in typed else typed
                took, value = _parsed(f"{base} {option.name}:{quoted}", option)
                if took != allowed:
                    verb = "takes" if took else "refuses"
                    found.append(
                        f"{where} {option.name}: the inline grammar {verb} "
                        f"{option.name}:{typed}, which the table {'refuses' if took else 'allows'}"
                    )
                elif took and value != held:
                    found.append(
                        f"{where} {option.name}: {option.name}:{typed} gives {option.key} "
                        f"{value!r} inline, {held!r} in the table"
                    )
            for alias in option.aliases:
                took, value = _parsed(f"{base} {alias}", option)
                if not took or value is not True:
                    found.append(
                        f"{where} {option.name}: the inline grammar does not take `{alias}`"
                    )
    return found


# --- /help ------------------------------------------------------------------------------------

_LINE = re.compile(r"^`/(?P<name>[^`]+)`: (?P<rest>.*)$", re.MULTILINE)
_OPTION = re.compile(r"`([^`]+)`( \(required\))?")


def _help_lines(text: str) -> dict[str, str]:
    return {m["name"]: m["rest"] for m in _LINE.finditer(text)}


def help_problems(table: Table, topics_text: str, system_texts: Mapping[str, str]) -> list[str]:
    """/help's topic pages (``topics_text``: every page's text) and each system's page
    (``system_texts``: key -> its text in a campaign of it) against ``table``."""
    found: list[str] = []
    lines = _help_lines(topics_text)
    for name, command in table.items():
        where = f"/{name}"
        shown = lines.get(name)
        if shown is None:
            found.append(f"{where}: not in /help")
            continue
        description, _, options = shown.partition("; options: ")
        found += _differs(where, "description", description, command.help, "/help")
        listed = [(m[1], bool(m[2])) for m in _OPTION.finditer(options)]
        found += _names(where, [n for n, _ in listed], [o.name for o in command.options], "/help")
        required = {o.name for o in command.options if o.required}
        for option, marked in listed:
            if option in {o.name for o in command.options} and marked != (option in required):
                found.append(f"{where} {option}: /help marks required {marked}, the table not")
    for key, text in system_texts.items():
        shown_here = _help_lines(text)
        for name, command in table.items():
            if name not in shown_here:
                continue
            taken = [
                o.name for o in command.options if key in {s.key for s in command.systems_for(o)}
            ]
            listed_here = [m[1] for m in _OPTION.finditer(shown_here[name])]
            if listed_here != taken:
                found.append(
                    f"/{name} in {SYSTEMS[key].name}: /help system lists {listed_here}, "
                    f"the table {taken}"
                )
    return found
