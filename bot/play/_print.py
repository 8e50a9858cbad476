"""Print what the bot sent the way each person would see it in Discord.

Embeds become text boxes with a colour marker (a coloured square, plus an ANSI-coloured bar
when the output is a terminal), buttons become numbered choices for `click N`, and every
message says where it is and who can see it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
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
        out.append(f"{bar} {names.mentions(author)}")
    title = embed.get("title")
    heading = f"{marker} {names.mentions(title)}" if title else marker
    out.append(f"{bar} {heading}")
    if embed.get("description"):
        out += [f"{bar} {line}" for line in _lines(names.mentions(embed["description"]))]
    for item in embed.get("fields") or []:
        name = names.mentions(str(item.get("name", "")))
        value = names.mentions(str(item.get("value", "")))
        value_lines = _lines(value)
        if len(value_lines) == 1:
            out.append(f"{bar} {name}: {value_lines[0]}")
        else:
            out.append(f"{bar} {name}:")
            out += [f"{bar}   {line}" for line in value_lines]
    footer = (embed.get("footer") or {}).get("text")
    if footer:
        out.append(f"{bar} — {names.mentions(footer)}")
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
        out += _lines(names.mentions(shown.content))
    for embed in shown.embeds:
        out += render_embed(embed, names, ansi=ansi)
    out += render_components(shown.components)
    return out


def indent(lines: Iterable[str], by: str = "  ") -> list[str]:
    """Indent the bot's output under the line that caused it."""
    return [by + line for line in lines]


Printer = Callable[[str], None]
