"""The text of a roll as a player types it after a slash: `check DEX Stealth adv dc:15`.

One grammar for inline rolls (`[[…]]` in a post, bot/services/rolling/inline.py) and saved rolls
(bot/services/rolling/macros.py), pure (no Discord, no database): the text becomes the options the
matching slash command's service takes, or a :class:`RollTextError` in the player's words with
the same hints as the offline table (bot/play/_parse.py): the closest command or option, and
the list to choose from.

Grammar: ``<command> [words…] [option:value…] [flags…]``, where the command is ``roll``,
``check``, ``save``, ``attack`` or ``luck``; plain dice notation (``1d20+5``, ``4d6kh3 [fire]``)
is ``roll``. Options are the slash command's, named, typed and bounded as the rolling commands'
table declares them (bot/commands/rolling.py), as are the bare words each command takes; a
value with spaces is quoted (``helper:"Old Tom"``). Bare flags: ``adv``/``advantage``,
``dis``/``disadvantage`` and the boolean options by name. Positional words: /check's ability
then its proficiency (``check DEX Thieves' Tools``), /save's ability, /attack's weapon (a label,
shown with the result; the roll is as /attack's, which has no weapon option).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.commands import Kind, Option, RollingCommand, Word, spelled
from bot.errors import UserError
from bot.quoting import quote
from bot.services.rolling.attacks import AttackOptions
from bot.services.rolling.checks import CheckOptions

#: The longest roll text (a macro, or the inside of one `[[…]]`), as /roll's dice option.
MAX_TEXT = 1000


class RollTextError(UserError):
    """A roll text that names no command, or an option its command does not have."""


#: The slash commands a roll text can stand for, by their first word (the table's spellings).
Command = Word

#: The command each first word stands for, from the rolling commands' table (bot/commands/).
COMMANDS: Mapping[Command, RollingCommand] = {word: spelled(word) for word in Command}

#: Each command's options, named, typed and bounded as its slash command's (the table's);
#: ``secret`` is refused: an inline roll is public. Text is not measured here: the service
#: refuses what it cannot find or read, as it would from the slash command.
OPTIONS: Mapping[Command, Mapping[str, Option]] = {
    word: {option.name: option for option in command.inline_options}
    for word, command in COMMANDS.items()
}
#: Bare words that set a true/false option (``adv``), each command's.
_FLAG_ALIASES: Mapping[Command, Mapping[str, str]] = {
    word: {alias: option.name for option in options.values() for alias in option.aliases}
    for word, options in OPTIONS.items()
}

#: `name:value` or `name:"value with spaces"`, or one word.
_TOKEN = re.compile(r'([a-z][a-z0-9_]*):"([^"]*)"|([a-z][a-z0-9_]*):(\S+)|(\S+)', re.IGNORECASE)
#: What plain dice notation starts with: a number, a die, `adv`/`dis` shorthands, a sign.
_NOTATION_START = re.compile(r"^(\d|d\d|d%|[+\-−(]|adv\b|dis\b)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RollText:
    """A parsed roll text: the command and the options its service takes."""

    command: Command
    #: The text as given (whitespace runs as one space): what the ledger's request shows.
    text: str
    dice: str | None = None
    label: str | None = None
    check: CheckOptions | None = None
    attack: AttackOptions | None = None


def _suggest(word: str, names: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(names), n=1)
    return f" Did you mean {close[0]}?" if close else ""


def command_word(text: str) -> str:
    """The first word, lowercased (a macro name or a command)."""
    words = text.split()
    return words[0].casefold() if words else ""


def looks_like_notation(text: str) -> bool:
    """Plain dice notation (`1d20+5`, `d20`, `adv+3`), not a command or a macro name."""
    return bool(_NOTATION_START.match(text.strip()))


def parse_roll_text(text: str) -> RollText:
    """``text`` as its command and options, or a :class:`RollTextError` naming what is wrong.

    Nothing here reads the campaign: a system's own options are checked by the service
    (``/check has no rank_bonus in this system``) when the roll is made.
    """
    text = " ".join(text.split())
    if not text:
        raise RollTextError("Empty roll: type what you would after a slash, e.g. check DEX.")
    if len(text) > MAX_TEXT:
        raise RollTextError(f"A roll is at most {MAX_TEXT} characters.")
    if looks_like_notation(text):
        return RollText(Command.ROLL, text, dice=text)
    word, _, rest = text.partition(" ")
    try:
        command = Command(word.casefold())
    except ValueError:
        raise RollTextError(
            f"/{quote(word, 32)[1:-1]} is not a command an inline roll or a saved roll can run."
            f"{_suggest(word.casefold(), list(Command))} "
            f"Use one of: {', '.join(Command)}, or dice notation such as 1d20+5."
        ) from None
    if command is Command.ROLL:
        return _parse_roll(text, rest)
    values, words = _options(command, rest)
    if command is Command.LUCK:
        if words:
            raise RollTextError(f"/luck takes no options; remove {quote(' '.join(words))}.")
        return RollText(command, text)
    if command is Command.ATTACK:
        return _parse_attack(text, values, words)
    return _parse_check(command, text, values, words)


def _parse_roll(text: str, rest: str) -> RollText:
    # The notation may hold `[labels]` and spaces; only a trailing label: option is split off.
    match = re.search(r"\s+label:(?:\"([^\"]*)\"|(.+))$", " " + rest)
    label = None
    if match:
        label = (match.group(1) or match.group(2) or "").strip() or None
        rest = (" " + rest)[: match.start()].strip()
    dice_match = re.match(r"^dice:(?:\"([^\"]*)\"|(.+))$", rest.strip())
    if dice_match:
        rest = (dice_match.group(1) or dice_match.group(2) or "").strip()
    if not rest.strip():
        raise RollTextError("/roll needs `dice` (dice notation, e.g. 2d6+3 [fire]).")
    return RollText(Command.ROLL, text, dice=rest.strip(), label=label)


def _options(command: Command, rest: str) -> tuple[dict[str, object], list[str]]:
    """The `name:value` options and bare flags converted; the other words in order."""
    allowed = OPTIONS[command]
    values: dict[str, object] = {}
    words: list[str] = []
    for match in _TOKEN.finditer(rest):
        name = (match.group(1) or match.group(3) or "").casefold()
        raw = match.group(2) if match.group(1) else match.group(4)
        if not name:
            bare = match.group(5)
            flag = _FLAG_ALIASES[command].get(bare.casefold(), bare.casefold())
            found = allowed.get(flag)
            if found is not None and found.kind is Kind.BOOL:
                _put(command, values, flag, True)
            else:
                words.append(bare)
            continue
        if name == "secret":
            raise RollTextError(
                f"An inline or saved roll is public: roll a secret one with /{command} secret:."
            )
        if name not in allowed:
            listed = ", ".join(allowed) if allowed else "none"
            raise RollTextError(
                f"/{command} has no option `{name}`.{_suggest(name, allowed)} "
                f"Its options: {listed}."
            )
        _put(command, values, name, _convert(allowed[name], raw or ""))
    return values, words


def _put(command: Command, values: dict[str, object], name: str, value: object) -> None:
    if name in values:
        raise RollTextError(f"`{name}` is given twice in /{command}.")
    values[name] = value


def _convert(option: Option, raw: str) -> object:
    name, shape = option.name, option.shape
    if raw == "":
        raise RollTextError(f"`{name}` needs a value.")
    if shape.choices:
        for choice in shape.choices:
            if choice.casefold() == raw.casefold():
                return choice
        raise RollTextError(f"`{name}` must be one of: {', '.join(shape.choices)}.")
    if shape.kind is Kind.BOOL:
        lowered = raw.casefold()
        if lowered in {"true", "yes", "on", "1", "y"}:
            return True
        if lowered in {"false", "no", "off", "0", "n"}:
            return False
        raise RollTextError(f"`{name}` must be true or false.")
    if shape.kind is Kind.INT:
        bounds = f" from {shape.low} to {shape.high}"
        try:
            number = int(raw.replace("−", "-"))
        except ValueError:
            raise RollTextError(f"`{name}` must be a whole number{bounds}.") from None
        if (
            shape.low is not None
            and shape.high is not None
            and not (shape.low <= number <= shape.high)
        ):
            raise RollTextError(f"`{name}` must be a whole number{bounds}.")
        return number
    return raw


def _words(command: Command, values: dict[str, object], words: list[str]) -> str | None:
    """The bare words put where the command's spelling says (``check DEX Thieves' Tools``:
    ability, then proficiency); what is left of a ``weapon`` is returned, as a label."""
    spelling = COMMANDS[command].spelling
    assert spelling is not None  # every word of Command is a command's spelling
    label = None
    for place, name in enumerate(spelling.words):
        if not words:
            break
        last = place == len(spelling.words) - 1
        if name in values:
            if last and spelling.rest:
                raise RollTextError(
                    f"`{name}` is given twice in /{command} ({quote(' '.join(words))})."
                )
            continue
        taken = " ".join(words) if last and spelling.rest else words[0]
        del words[: len(words) if last and spelling.rest else 1]
        if name in OPTIONS[command]:
            values[name] = taken
        else:
            label = taken
    if words:
        raise RollTextError(
            f"/{command} has no option for {quote(' '.join(words))}: it takes an "
            f"{' and '.join(spelling.words)}, then option:value pairs "
            f"({', '.join(OPTIONS[command])})."
        )
    return label


def _given(command: Command, values: Mapping[str, object]) -> dict[str, Any]:
    """The options as the service takes them (its fields, left-out ones at their default)."""
    found = COMMANDS[command]
    return found.fields({found.option(name).key: value for name, value in values.items()})


def _parse_check(
    command: Command, text: str, values: dict[str, object], words: list[str]
) -> RollText:
    _words(command, values, words)
    if command is Command.CHECK and "ability" not in values:
        raise RollTextError("/check needs `ability` (e.g. check DEX Stealth).")
    fields = _given(command, values)
    options = CheckOptions(ability=fields.pop("ability", ""), **fields)
    return RollText(command, text, check=options)


def _parse_attack(text: str, values: dict[str, object], words: list[str]) -> RollText:
    label = _words(Command.ATTACK, values, words)
    if "ac" not in values and "target" not in values:
        raise RollTextError(
            "/attack needs `ac` (the target's Armour Class, e.g. ac:15), or a `target` "
            "character whose sheet holds its AC."
        )
    options = AttackOptions(**_given(Command.ATTACK, values))
    return RollText(Command.ATTACK, text, label=label, attack=options)
