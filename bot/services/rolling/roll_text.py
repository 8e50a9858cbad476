"""The text of a roll as a player types it after a slash: `check DEX Stealth adv dc:15`.

One grammar for inline rolls (`[[…]]` in a post, bot/services/rolling/inline.py) and saved rolls
(bot/services/rolling/macros.py), pure (no Discord, no database): the text becomes the options the
matching slash command's service takes, or a :class:`RollTextError` in the player's words with
the same hints as the offline table (bot/play/_parse.py): the closest command or option, and
the list to choose from.

Grammar: ``<command> [words…] [option:value…] [flags…]``, where the command is ``roll``,
``check``, ``save``, ``attack`` or ``luck``; plain dice notation (``1d20+5``, ``4d6kh3 [fire]``)
is ``roll``. Option names are the slash command's; a value with spaces is quoted
(``helper:"Old Tom"``). Bare flags: ``adv``/``advantage``, ``dis``/``disadvantage`` and the
boolean options by name. Positional words: /check's ability then its proficiency
(``check DEX Thieves' Tools``), /save's ability, /attack's weapon (a label, shown with the
result; the roll is as /attack's, which has no weapon option).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from bot.errors import UserError
from bot.quoting import quote
from bot.services.rolling.attacks import AttackOptions
from bot.services.rolling.checks import CheckOptions

#: The longest roll text (a macro, or the inside of one `[[…]]`), as /roll's dice option.
MAX_TEXT = 1000


class RollTextError(UserError):
    """A roll text that names no command, or an option its command does not have."""


class Command(StrEnum):
    """The slash commands a roll text can stand for."""

    ROLL = "roll"
    CHECK = "check"
    SAVE = "save"
    ATTACK = "attack"
    LUCK = "luck"


@dataclass(frozen=True, slots=True)
class _Option:
    accepts: str  # "int", "bool", "text" or a choice list joined by "|"
    low: int | None = None
    high: int | None = None


_INT_DC = _Option("int", 1, 100)
_BONUS = _Option("int", -100, 100)
_TEXT = _Option("text")
_BOOL = _Option("bool")
_QUALITY = _Option("Novice|Yeoman|Adept|Master|Grand Master")

#: Each command's options, named and bounded as the slash command's (bot/cogs/_options.py,
#: bot/cogs/attack.py); ``secret`` is refused: an inline roll is public.
OPTIONS: Mapping[Command, Mapping[str, _Option]] = {
    Command.ROLL: {"dice": _TEXT, "label": _TEXT},
    Command.CHECK: {
        "ability": _TEXT,
        "proficiency": _TEXT,
        "dc": _INT_DC,
        "difficulty": _Option("very-easy|easy|moderate|hard|very-hard"),
        "advantage": _BOOL,
        "disadvantage": _BOOL,
        "bonus": _BONUS,
        "rank_bonus": _Option("int", -10, 10),
        "reliable": _BOOL,
        "unreliable": _BOOL,
        "helper": _TEXT,
        "helper_needs_proficiency": _BOOL,
        "crit_success_at": _Option("int", -100, 200),
        "crit_failure_at": _Option("int", -100, 200),
    },
    Command.SAVE: {
        "ability": _TEXT,
        "dc": _INT_DC,
        "advantage": _BOOL,
        "disadvantage": _BOOL,
        "bonus": _BONUS,
        "against": _Option("melee|ranged|spell"),
        "from": _TEXT,
        "school": _Option("arcane|mystical|divine|eldritch|primal|psychic|corruption|necrotic"),
    },
    Command.ATTACK: {
        "ac": _Option("int", -1000, 1000),
        "ability": _TEXT,
        "proficiency": _BOOL,
        "advantage": _BOOL,
        "disadvantage": _BOOL,
        "bonus": _BONUS,
        "damage": _TEXT,
        "weapon_quality": _QUALITY,
        "magic_bonus": _Option("int", 0, 9),
        "target": _TEXT,
        "armour_quality": _QUALITY,
        "armour_magic": _Option("int", 0, 9),
    },
    Command.LUCK: {},
}
_REQUIRED = {Command.CHECK: "ability", Command.ATTACK: "ac"}
_FLAG_ALIASES = {"adv": "advantage", "dis": "disadvantage"}

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
            flag = _FLAG_ALIASES.get(bare.casefold(), bare.casefold())
            if allowed.get(flag) is _BOOL:
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
        _put(command, values, name, _convert(name, allowed[name], raw or ""))
    return values, words


def _put(command: Command, values: dict[str, object], name: str, value: object) -> None:
    if name in values:
        raise RollTextError(f"`{name}` is given twice in /{command}.")
    values[name] = value


def _convert(name: str, option: _Option, raw: str) -> object:
    if raw == "":
        raise RollTextError(f"`{name}` needs a value.")
    if option.accepts == "text":
        return raw
    if option.accepts == "bool":
        lowered = raw.casefold()
        if lowered in {"true", "yes", "on", "1", "y"}:
            return True
        if lowered in {"false", "no", "off", "0", "n"}:
            return False
        raise RollTextError(f"`{name}` must be true or false.")
    if option.accepts == "int":
        bounds = f" from {option.low} to {option.high}"
        try:
            number = int(raw.replace("−", "-"))
        except ValueError:
            raise RollTextError(f"`{name}` must be a whole number{bounds}.") from None
        if (
            option.low is not None
            and option.high is not None
            and not (option.low <= number <= option.high)
        ):
            raise RollTextError(f"`{name}` must be a whole number{bounds}.")
        return number
    choices = option.accepts.split("|")
    for choice in choices:
        if choice.casefold() == raw.casefold():
            return choice
    raise RollTextError(f"`{name}` must be one of: {', '.join(choices)}.")


def _flag(values: Mapping[str, object], name: str, default: bool = False) -> bool:
    return bool(values.get(name, default))


def _int(values: Mapping[str, object], name: str) -> int | None:
    value = values.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(values: Mapping[str, object], name: str) -> str | None:
    value = values.get(name)
    return value if isinstance(value, str) else None


def _parse_check(
    command: Command, text: str, values: dict[str, object], words: list[str]
) -> RollText:
    if words and "ability" not in values:
        values["ability"] = words.pop(0)
    if words:
        if command is Command.SAVE:
            raise RollTextError(
                f"/save has no option for {quote(' '.join(words))}: it takes an ability, then "
                f"option:value pairs ({', '.join(OPTIONS[command])})."
            )
        if "proficiency" in values:
            raise RollTextError(
                f"`proficiency` is given twice in /check ({quote(' '.join(words))})."
            )
        values["proficiency"] = " ".join(words)
    if command is Command.CHECK and "ability" not in values:
        raise RollTextError("/check needs `ability` (e.g. check DEX Stealth).")
    difficulty = _text(values, "difficulty")
    options = CheckOptions(
        ability=_text(values, "ability") or "",
        proficiency=_text(values, "proficiency"),
        dc=_int(values, "dc"),
        difficulty=difficulty.replace("-", " ") if difficulty else None,
        advantage=_flag(values, "advantage"),
        disadvantage=_flag(values, "disadvantage"),
        bonus=_int(values, "bonus"),
        rank_bonus=_int(values, "rank_bonus"),
        reliable=_flag(values, "reliable"),
        unreliable=_flag(values, "unreliable"),
        helper=_text(values, "helper"),
        helper_needs_proficiency=_flag(values, "helper_needs_proficiency"),
        against=_text(values, "against"),
        source=_text(values, "from"),
        school=_text(values, "school"),
        crit_success_at=_int(values, "crit_success_at"),
        crit_failure_at=_int(values, "crit_failure_at"),
    )
    return RollText(command, text, check=options)


def _parse_attack(text: str, values: dict[str, object], words: list[str]) -> RollText:
    ac = _int(values, "ac")
    if ac is None and _text(values, "target") is None:
        raise RollTextError(
            "/attack needs `ac` (the target's Armour Class, e.g. ac:15), or a `target` "
            "character whose sheet holds its AC."
        )
    options = AttackOptions(
        ac=ac,
        ability=_text(values, "ability") or "STR",
        proficiency=_flag(values, "proficiency", True),
        advantage=_flag(values, "advantage"),
        disadvantage=_flag(values, "disadvantage"),
        bonus=_int(values, "bonus"),
        damage=_text(values, "damage"),
        weapon_quality=_text(values, "weapon_quality"),
        magic_bonus=_int(values, "magic_bonus"),
        target=_text(values, "target"),
        armour_quality=_text(values, "armour_quality"),
        armour_magic=_int(values, "armour_magic"),
    )
    return RollText(Command.ATTACK, text, label=" ".join(words) or None, attack=options)
