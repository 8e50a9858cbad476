"""Print what the bot sent the way each person would see it in Discord.

Embeds become text boxes with a colour marker (a coloured square, plus an ANSI-coloured bar
when the output is a terminal), buttons become numbered choices for `click N`, and every
message says where it is and who can see it. Text reads as the client shows it: mentions as
names, `<t:…>` timestamps as times, markdown escapes without their backslash.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

BAR = "┃"

# The bot's colours (bot/render/style.py) and Discord's usual ones, by name.
_PALETTE: tuple[tuple[str, str, tuple[int, int, int]], ...] = (
    ("gold", "🟨", (0xF1, 0xC4, 0x0F)),
    ("green", "🟩", (0x2E, 0xCC, 0x71)),
    ("orange", "🟧", (0xE6, 0x7E, 0x22)),
    ("red", "🟥", (0xE7, 0x4C, 0x3C)),
    ("dark red", "🟫", (0x99, 0x2D, 0x22)),
    ("blurple", "🟦", (0x58, 0x65, 0xF2)),
    ("blue", "🟦", (0x34, 0x98, 0xDB)),
    ("purple", "🟪", (0x9B, 0x59, 0xB6)),
    ("grey", "⬜", (0x95, 0xA5, 0xA6)),
)

_USER = re.compile(r"<@!?(\d+)>")
_ROLE = re.compile(r"<@&(\d+)>")
_CHANNEL = re.compile(r"<#(\d+)>")
_TIMESTAMP = re.compile(r"<t:(-?\d{1,13})(?::([tTdDfFR]))?>")
# Discord markdown: a backslash before any ASCII punctuation shows that character alone.
# Code spans and blocks show backslashes as typed, so they are left whole.
_CODE_OR_ESCAPE = re.compile(r"(```.*?```|`[^`]*`)|\\([!-/:-@\[-`{-~])", re.DOTALL)

# How Discord writes each timestamp style (in the viewer's time zone: here, the machine's).
_STYLES = {
    "t": "%H:%M",
    "T": "%H:%M:%S",
    "d": "%Y-%m-%d",
    "D": "%-d %B %Y",
    "f": "%-d %B %Y %H:%M",
    "F": "%A, %-d %B %Y %H:%M",
}
# Relative times as Discord words them: (below this many seconds, the text); None = count.
_RELATIVE: tuple[tuple[float, str, float | None], ...] = (
    (45, "a few seconds", None),
    (90, "a minute", None),
    (45 * 60, "{} minutes", 60),
    (90 * 60, "an hour", None),
    (22 * 3600, "{} hours", 3600),
    (36 * 3600, "a day", None),
    (26 * 86400, "{} days", 86400),
    (45 * 86400, "a month", None),
    (320 * 86400, "{} months", 30 * 86400),
    (548 * 86400, "a year", None),
    (float("inf"), "{} years", 365 * 86400),
)


@dataclass(frozen=True)
class Shown:
    """One message as it appears to the people who can see it."""

    where: str
    author: str
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    updated: bool = False
    deleted: bool = False
    attachments: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Names:
    """Display names for the ids a message mentions."""

    users: dict[int, str] = field(default_factory=dict)
    roles: dict[int, str] = field(default_factory=dict)
    channels: dict[int, str] = field(default_factory=dict)

    def mentions(self, text: str) -> str:
        """`<@123>` → `@alice`, `<@&9>` → `@GM`, `<#5>` → `#gm`, as the client shows them."""
        text = _ROLE.sub(lambda m: "@" + self.roles.get(int(m[1]), "unknown-role"), text)
        text = _USER.sub(lambda m: "@" + self.users.get(int(m[1]), "unknown-user"), text)
        return _CHANNEL.sub(lambda m: "#" + self.channels.get(int(m[1]), "unknown"), text)

    def show(self, text: str) -> str:
        """``text`` as the client shows it: mentions, timestamps, markdown escapes."""
        return unescape_markdown(timestamps(self.mentions(text), self.now()))

    #: The clock relative timestamps count from (a test can stop it).
    now: Callable[[], float] = time.time


def relative_time(seconds: float) -> str:
    """`in 5 minutes` / `5 minutes ago`, worded as Discord's client words them."""
    ago = abs(seconds)
    for limit, words, unit in _RELATIVE:
        if ago < limit:
            text = words.format(round(ago / unit)) if unit else words
            return f"in {text}" if seconds > 0 else f"{text} ago"
    raise AssertionError("unreachable: the last limit is infinite")


def timestamps(text: str, now: float) -> str:
    """`<t:1700000000:R>` and the other styles as readable times, in local time."""

    def one(match: re.Match[str]) -> str:
        seconds, style = int(match[1]), match[2] or "f"
        try:
            when = datetime.fromtimestamp(seconds)
        except (OverflowError, OSError, ValueError):
            return match[0]  # out of the machine's range: Discord shows it raw too
        if style == "R":
            return relative_time(seconds - now)
        return when.strftime(_STYLES[style])

    return _TIMESTAMP.sub(one, text)


def unescape_markdown(text: str) -> str:
    """`\\*Bob\\*` → `*Bob*`, as Discord displays an escape; code is left as it is."""
    return _CODE_OR_ESCAPE.sub(lambda m: m[1] or m[2], text)


def human_size(size: int) -> str:
    """A file size as Discord shows it: bytes, then KB, MB, GB (powers of 1024)."""
    if size < 1024:
        return f"{size} byte{'' if size == 1 else 's'}"
    value = size / 1024
    for unit in ("KB", "MB"):
        if value < 1024:
            return f"{value:.2f} {unit}"
        value /= 1024
    return f"{value:.2f} GB"


def colour_name(value: int | None) -> tuple[str, str]:
    """The nearest named colour to an embed colour, and its marker."""
    if value is None:
        return "none", "▫️"
    rgb = ((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)
    name, marker, _ = min(
        _PALETTE, key=lambda entry: sum((a - b) ** 2 for a, b in zip(entry[2], rgb, strict=True))
    )
    return name, marker


def _bar(colour: int | None, ansi: bool) -> str:
    if not ansi or colour is None:
        return BAR
    red, green, blue = (colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF
    return f"\x1b[38;2;{red};{green};{blue}m{BAR}\x1b[0m"


def _lines(text: str) -> list[str]:
    return text.splitlines() or [""]


def render_embed(embed: dict[str, Any], names: Names, *, ansi: bool = False) -> list[str]:
    """An embed as a box of text lines, marked with its colour."""
    colour = embed.get("color")
    bar = _bar(colour, ansi)
    _, marker = colour_name(colour)
    out: list[str] = []
    author = (embed.get("author") or {}).get("name")
    if author:
        out.append(f"{bar} {names.show(author)}")
    title = embed.get("title")
    heading = f"{marker} {names.show(title)}" if title else marker
    out.append(f"{bar} {heading}")
    if embed.get("description"):
        out += [f"{bar} {line}" for line in _lines(names.show(embed["description"]))]
    for item in embed.get("fields") or []:
        name = names.show(str(item.get("name", "")))
        value = names.show(str(item.get("value", "")))
        value_lines = _lines(value)
        if len(value_lines) == 1:
            out.append(f"{bar} {name}: {value_lines[0]}")
        else:
            out.append(f"{bar} {name}:")
            out += [f"{bar}   {line}" for line in value_lines]
    footer = (embed.get("footer") or {}).get("text")
    if footer:
        out.append(f"{bar} — {names.show(footer)}")
    return out


def walk_components(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every component, depth first, in the order the client shows them."""
    found: list[dict[str, Any]] = []
    for component in rows:
        found.append(component)
        found += walk_components(component.get("components") or [])
        accessory = component.get("accessory")
        if accessory:
            found.append(accessory)
    return found


def buttons(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The buttons of a message, numbered from 1 by their position here."""
    return [c for c in walk_components(rows) if c.get("type") == 2]


def render_components(rows: list[dict[str, Any]]) -> list[str]:
    """Buttons as `[1 Label]` choices; select menus listed with their options."""
    out: list[str] = []
    choices = []
    for number, button in enumerate(buttons(rows), start=1):
        label = button.get("label") or (button.get("emoji") or {}).get("name") or "?"
        notes = []
        if button.get("disabled"):
            notes.append("disabled")
        if button.get("style") == 5:
            notes.append(f"link: {button.get('url', '')}")
        suffix = f" ({', '.join(notes)})" if notes else ""
        choices.append(f"[{number}] {label}{suffix}")
    if choices:
        out.append("   ".join(choices))
    for menu in walk_components(rows):
        if menu.get("type") in (3, 5, 6, 7, 8):
            options = ", ".join(str(o.get("label")) for o in menu.get("options") or [])
            placeholder = menu.get("placeholder") or "choose"
            out.append(f"[menu: {placeholder}{': ' + options if options else ''}]")
    return out


def render(shown: Shown, names: Names, *, ansi: bool = False) -> list[str]:
    """A message as printed lines: a header saying where and for whom, then the message."""
    status = " · updated" if shown.updated else ""
    if shown.deleted:
        return [f"── {shown.where} · {shown.author} · message deleted ──"]
    out = [f"── {shown.where} · {shown.author}{status} ──"]
    if shown.content:
        out += _lines(names.show(shown.content))
    for attachment in shown.attachments:
        name = attachment.get("filename") or "file"
        out.append(f"📎 {name}, {human_size(int(attachment.get('size') or 0))}")
    for embed in shown.embeds:
        out += render_embed(embed, names, ansi=ansi)
    out += render_components(shown.components)
    return out


def indent(lines: Iterable[str], by: str = "  ") -> list[str]:
    """Indent the bot's output under the line that caused it."""
    return [by + line for line in lines]


Printer = Callable[[str], None]
