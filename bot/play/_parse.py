"""Read a line typed at the offline table, and the slash command in it.

Slash commands are looked up in the bot's own command tree and every `option:value` is
converted with that command's own parameter metadata (type, choices, min/max, required), so
the table accepts exactly what a Discord client would send, and refuses the rest, with a
message in the player's words, before the bot is called.
"""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from discord import AppCommandOptionType, AppCommandType, app_commands

META_WORDS = ("help", "who", "switch", "wait", "quit", "exit")


class PlayError(Exception):
    """A line the table cannot run; str() is shown as the error."""


@dataclass(frozen=True)
class Slash:
    """`alice> /check ability:DEX`: run a slash command."""

    person: str | None
    channel: str | None
    text: str


@dataclass(frozen=True)
class Click:
    """`alice> click 2` or `click "Cancel"`: press a button on the latest message."""

    person: str | None
    index: int | None = None
    label: str | None = None


@dataclass(frozen=True)
class Meta:
    """`help`, `who`, `switch NAME`, `wait 2h`, `quit`: the table's own commands."""

    word: str
    argument: str = ""


Action = Slash | Click | Meta

# `alice>` or `gm #gm>` at the start of a line: who acts (and where).
_PREFIX = re.compile(
    r"^(?P<person>[A-Za-z0-9_.-]+)(?:\s+#(?P<channel>[\w-]+))?\s*>\s?(?P<rest>.*)$"
)
# An option name as Discord allows it (lowercase), followed by a colon.
_OPTION = re.compile(r"(?<![\w-])([a-z0-9_-]+):")
_NEXT_OPTION = re.compile(r"\s+([a-z0-9_-]+):")


def parse_line(line: str) -> Action | None:
    """One line of a script or the prompt; None for a blank line or a `#` comment."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    person: str | None = None
    channel: str | None = None
    match = _PREFIX.match(text)
    if match and not text.startswith("/"):
        person, channel = match["person"].lower(), match["channel"]
        text = match["rest"].strip()
    if text.startswith("/"):
        if len(text) == 1:
            raise PlayError("Type a command after the slash, e.g. /roll dice:1d20.")
        return Slash(person, channel.lower() if channel else None, text[1:].strip())
    word, _, argument = text.partition(" ")
    word, argument = word.lower(), argument.strip()
    if word == "click":
        return _parse_click(person, argument)
    if channel is not None:
        raise PlayError(f"Only a slash command can name a channel: {line.strip()}")
    if word in META_WORDS:
        if person is not None:
            raise PlayError(f"`{word}` is the table's own command; type it without a name.")
        if word == "switch" and not argument:
            raise PlayError("Switch to whom? For example: switch bob")
        if word == "wait" and not argument:
            raise PlayError("Wait how long? For example: wait 2h (the game clock moves on)")
        return Meta("quit" if word == "exit" else word, argument)
    raise PlayError(
        f"Not understood: {text!r}. Type a slash command (/roll dice:1d20), "
        '`click 1`, `click "label"`, or `help`.'
    )


def _parse_click(person: str | None, argument: str) -> Click:
    if not argument:
        raise PlayError('Click what? `click 1` or `click "Cancel"`.')
    if argument.isdigit():
        index = int(argument)
        if index < 1:
            raise PlayError("Buttons are numbered from 1.")
        return Click(person, index=index)
    try:
        parts = shlex.split(argument)
    except ValueError:
        parts = [argument]
    label = " ".join(parts) if len(parts) > 1 or not parts else parts[0]
    return Click(person, label=label.strip())


# --------------------------------------------------------------------------- commands


class Directory(Protocol):
    """Who and what a USER / ROLE / CHANNEL option can name at this table."""

    def member(self, name: str) -> Any | None: ...
    def role(self, name: str) -> Any | None: ...
    def channel(self, name: str) -> Any | None: ...
    def member_names(self) -> list[str]: ...
    def role_names(self) -> list[str]: ...
    def channel_names(self) -> list[str]: ...


AnyCommand = app_commands.Command[Any, Any, Any]
AnyGroup = app_commands.Group


@dataclass(frozen=True)
class Invocation:
    """A resolved slash command: its path, converted options and any autocomplete request."""

    path: str
    command: AnyCommand
    options: dict[str, Any] = field(default_factory=dict)
    #: `name:?an` asks the bot's autocomplete for `name` with "an" typed, instead of running.
    focus: tuple[str, str] | None = None


def _top_level(tree: app_commands.CommandTree[Any]) -> dict[str, AnyCommand | AnyGroup]:
    found: dict[str, AnyCommand | AnyGroup] = {}
    for command in tree.get_commands(type=AppCommandType.chat_input):
        if isinstance(command, (app_commands.Command, app_commands.Group)):
            found[command.name] = command
    return found


def _children(group: AnyGroup) -> dict[str, AnyCommand | AnyGroup]:
    return {c.name: c for c in group.commands}


def _suggest(word: str, names: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(names), n=1)
    return f" Did you mean {close[0]}?" if close else ""


def command_paths(tree: app_commands.CommandTree[Any]) -> list[tuple[str, AnyCommand]]:
    """Every runnable slash command as ("campaign set tier", command), sorted."""
    out: list[tuple[str, AnyCommand]] = []
    for command in tree.walk_commands(type=AppCommandType.chat_input):
        if isinstance(command, app_commands.Command):
            out.append((command.qualified_name, command))
    return sorted(out, key=lambda item: item[0])


def resolve(tree: app_commands.CommandTree[Any], text: str, directory: Directory) -> Invocation:
    """`check ability:DEX advantage:true` → the command and its converted options."""
    first = _OPTION.search(text)
    head = text[: first.start()] if first else text
    words = head.split()
    if not words:
        raise PlayError("Type a command after the slash, e.g. /roll dice:1d20.")
    level = _top_level(tree)
    node: AnyCommand | AnyGroup | None = None
    consumed = 0
    path: list[str] = []
    while True:
        if consumed >= len(words):
            break
        word = words[consumed].lower()
        if word not in level:
            if node is None:
                raise PlayError(f"/{word} is not a command of this bot.{_suggest(word, level)}")
            if isinstance(node, app_commands.Group):
                raise PlayError(
                    f"/{' '.join(path)} has no subcommand {word}.{_suggest(word, level)} "
                    f"Choose one of: {', '.join(sorted(level))}."
                )
            break  # the leaf is reached; the rest is a value for its first option
        node = level[word]
        path.append(word)
        consumed += 1
        if isinstance(node, app_commands.Command):
            break
        level = _children(node)
    if node is None or isinstance(node, app_commands.Group):
        choices = ", ".join(sorted(level))
        raise PlayError(f"/{' '.join(path)} needs a subcommand: {choices}.")
    leftover = " ".join(words[consumed:])
    raw = _split_options(node, " ".join(path), leftover, text[first.start() :] if first else "")
    return _convert_all(node, " ".join(path), raw, directory)


def _split_options(command: AnyCommand, path: str, leftover: str, rest: str) -> dict[str, str]:
    """`a:1 b:two words c:"x: y"` → {"a": "1", "b": "two words", "c": "x: y"}."""
    names = [p.display_name for p in command.parameters]
    raw: dict[str, str] = {}
    if leftover:
        # As in Discord's client: text after the command name fills its first option.
        required = [p.display_name for p in command.parameters if p.required]
        if not names:
            raise PlayError(f"/{path} takes no options; remove {leftover!r}.")
        raw[required[0] if required else names[0]] = leftover.strip()
    position = 0
    while position < len(rest):
        while position < len(rest) and rest[position].isspace():
            position += 1
        if position >= len(rest):
            break
        match = _OPTION.match(rest, position)
        if match is None:
            raise PlayError(f"Expected option:value in /{path}, got {rest[position:]!r}.")
        name = match.group(1)
        if name not in names:
            listed = ", ".join(names) if names else "none"
            raise PlayError(
                f"/{path} has no option `{name}`.{_suggest(name, names)} Its options: {listed}."
            )
        if name in raw:
            raise PlayError(f"`{name}` is given twice in /{path}.")
        position = match.end()
        while position < len(rest) and rest[position] == " ":
            position += 1
        if position < len(rest) and rest[position] in "\"'":
            quote = rest[position]
            end = rest.find(quote, position + 1)
            if end < 0:
                raise PlayError(f"The value of `{name}` opens a {quote} but never closes it.")
            raw[name] = rest[position + 1 : end]
            position = end + 1
            continue
        following = _NEXT_OPTION.search(rest, position)
        end = following.start() if following else len(rest)
        raw[name] = rest[position:end].strip()
        position = end
    return raw


def _convert_all(
    command: AnyCommand, path: str, raw: dict[str, str], directory: Directory
) -> Invocation:
    params = {p.display_name: p for p in command.parameters}
    focus: tuple[str, str] | None = None
    options: dict[str, Any] = {}
    for name, text in raw.items():
        if text.startswith("?"):
            if focus is not None:
                raise PlayError("Ask autocomplete for one option at a time.")
            focus = (name, text[1:])
            continue
        options[name] = convert(params[name], text, directory)
    if focus is None:
        missing = [p for p in command.parameters if p.required and p.display_name not in options]
        if missing:
            needed = ", ".join(f"`{p.display_name}` ({p.description})" for p in missing)
            raise PlayError(f"/{path} needs {needed}.")
    return Invocation(path, command, options, focus)


_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n"}


def _choice_value(param: app_commands.Parameter, text: str) -> Any:
    wanted = text.casefold()
    for choice in param.choices:
        if str(choice.value).casefold() == wanted or choice.name.casefold() == wanted:
            return choice.value
    listed = ", ".join(str(c.value) for c in param.choices)
    raise PlayError(f"`{param.display_name}` must be one of: {listed}.")


def _bounds(param: app_commands.Parameter, unit: str = "") -> str:
    low, high = param.min_value, param.max_value
    if low is not None and high is not None:
        return f" from {low} to {high}{unit}"
    if low is not None:
        return f" of at least {low}{unit}"
    if high is not None:
        return f" of at most {high}{unit}"
    return ""


def convert(param: app_commands.Parameter, text: str, directory: Directory) -> Any:
    """The text of one option → the value a Discord client would send for it."""
    name, kind = param.display_name, param.type
    if text == "":
        raise PlayError(f"`{name}` needs a value.")
    if param.choices:
        return _choice_value(param, text)
    if kind is AppCommandOptionType.string:
        text = mentions_in(text, directory)
        low, high = param.min_value, param.max_value
        if (low is not None and len(text) < low) or (high is not None and len(text) > high):
            raise PlayError(f"`{name}` must be text{_bounds(param, ' characters')}.")
        return text
    if kind is AppCommandOptionType.integer:
        try:
            number: float = int(text.replace("−", "-"))
        except ValueError:
            raise PlayError(f"`{name}` must be a whole number{_bounds(param)}.") from None
    elif kind is AppCommandOptionType.number:
        try:
            number = float(text.replace("−", "-"))
        except ValueError:
            raise PlayError(f"`{name}` must be a number{_bounds(param)}.") from None
    elif kind is AppCommandOptionType.boolean:
        lowered = text.casefold()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise PlayError(f"`{name}` must be true or false.")
    elif kind is AppCommandOptionType.user:
        return _lookup(name, "member", text.lstrip("@"), directory.member, directory.member_names())
    elif kind is AppCommandOptionType.role:
        return _lookup(name, "role", text.lstrip("@"), directory.role, directory.role_names())
    elif kind is AppCommandOptionType.channel:
        return _lookup(
            name, "channel", text.lstrip("#"), directory.channel, directory.channel_names()
        )
    elif kind is AppCommandOptionType.mentionable:
        found = directory.member(text.lstrip("@")) or directory.role(text.lstrip("@"))
        if found is None:
            raise PlayError(f"`{name}`: nobody and no role here is called {text}.")
        return found
    else:
        raise PlayError(f"`{name}` is a {kind.name} option, which the offline table cannot send.")
    low, high = param.min_value, param.max_value
    if (low is not None and number < low) or (high is not None and number > high):
        word = "whole number" if kind is AppCommandOptionType.integer else "number"
        raise PlayError(f"`{name}` must be a {word}{_bounds(param)}.")
    return number


# `@bob`, `@GM` or `#gm` typed in text, not inside a word or an existing `<@id>` mention.
_MENTION = re.compile(r"(?<![\w<&@#])([@#])([\w.-]+)")


def mentions_in(text: str, directory: Directory) -> str:
    """Text with `@name`, `@Role` and `#channel` as the mentions Discord's client sends.

    In Discord, picking `@bob` from the client's list puts `<@id>` in a text option (a role
    `<@&id>`, a channel `<#id>`); what names nobody here stays as typed. A role wins over a
    member only when typed exactly as the role is spelled (`@GM`; `@gm` is the GM player).
    """

    def replace(match: re.Match[str]) -> str:
        sign, word = match[1], match[2]
        # A name may end a sentence: "@bob." is bob unless someone is called "bob.".
        for name in dict.fromkeys((word, word.rstrip(".-"))):
            mention = _mention(sign, name, directory)
            if mention is not None:
                return mention + word[len(name) :]
        return match[0]

    return _MENTION.sub(replace, text)


def _mention(sign: str, name: str, directory: Directory) -> str | None:
    if sign == "#":
        channel = directory.channel(name)
        return None if channel is None else f"<#{channel.id}>"
    role = directory.role(name)
    if role is not None and name in directory.role_names():
        return f"<@&{role.id}>"
    member = directory.member(name)
    if member is not None:
        return f"<@{member.id}>"
    return None if role is None else f"<@&{role.id}>"


def _lookup(option: str, what: str, text: str, find: Any, names: Sequence[str]) -> Any:
    found = find(text)
    if found is None:
        listed = ", ".join(names)
        raise PlayError(f"`{option}`: there is no {what} {text!r} here. Known: {listed}.")
    return found


# --------------------------------------------------------------------------- completion


def complete(
    tree: app_commands.CommandTree[Any],
    people: Sequence[str],
    directory: Directory,
    before: str,
) -> list[str]:
    """Candidates for the last word of `before` (the line up to the cursor)."""
    body = before
    prefix = _PREFIX.match(before)
    if prefix and not before.lstrip().startswith("/"):
        body = prefix["rest"]
    elif ">" not in before and " " not in before.strip() and not before.startswith("/"):
        word = before.strip().lower()
        starts = [f"{p}>" for p in people] + [*META_WORDS, "click"]
        return sorted(c for c in starts if c.startswith(word))
    stripped = body.lstrip()
    if not stripped.startswith("/"):
        if stripped.lower().startswith("switch "):
            word = stripped[7:].strip().lower()
            return [p for p in people if p.startswith(word)]
        return []
    words = stripped[1:].split(" ")
    current = words[-1]
    done = [w for w in words[:-1] if w]
    level = _top_level(tree)
    node: AnyCommand | AnyGroup | None = None
    for word in done:
        if ":" in word or word.lower() not in level:
            break
        node = level[word.lower()]
        if isinstance(node, app_commands.Command):
            break
        level = _children(node)
    if node is None or isinstance(node, app_commands.Group):
        if not any(":" in w for w in done):
            return sorted(f"/{n}" if node is None else n for n in level if n.startswith(current))
        return []
    return _complete_option(node, done, current, directory)


def _complete_option(
    command: AnyCommand, done: list[str], current: str, directory: Directory
) -> list[str]:
    params = {p.display_name: p for p in command.parameters}
    used = {w.split(":", 1)[0] for w in done if ":" in w}
    if ":" not in current:
        return sorted(f"{n}:" for n in params if n not in used and n.startswith(current.lower()))
    name, _, typed = current.partition(":")
    param = params.get(name)
    if param is None:
        return []
    values: list[str]
    if param.choices:
        values = [str(c.value) for c in param.choices]
    elif param.type is AppCommandOptionType.boolean:
        values = ["true", "false"]
    elif param.type is AppCommandOptionType.user:
        values = [f"@{n}" for n in directory.member_names()]
    elif param.type is AppCommandOptionType.role:
        values = [f"@{n}" for n in directory.role_names()]
    elif param.type is AppCommandOptionType.channel:
        values = [f"#{n}" for n in directory.channel_names()]
    else:
        return []
    return [f"{name}:{v}" for v in values if v.casefold().startswith(typed.casefold())]
