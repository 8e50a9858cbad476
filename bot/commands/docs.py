"""docs/commands.md, written from the rolling commands' table: ``python -m bot.commands.docs``.

The page is generated, never edited by hand: ``tests/commands/test_docs.py`` fails when it
differs from what :func:`markdown` writes, and prints the command that rewrites it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from bot.commands.rolling import ROLLING, Option, RollingCommand, Where, Who
from bot.rules.systems import SYSTEMS
from bot.words import Visibility

#: Where the page lives in a checkout.
PAGE = Path(__file__).resolve().parents[2] / "docs" / "commands.md"
#: What rewrites it, as the test prints it.
COMMAND = "PYTHONPATH=. .venv/bin/python -m bot.commands.docs"

_WHO = {
    Who.ANYONE: "anyone",
    Who.PLAYER: "a player, for their active character",
    Who.GM: "a GM of the campaign",
    Who.TAKING_PART: "a GM of the campaign, or a player whose character takes part",
}
_WHO_SHORT = {
    Who.ANYONE: "anyone",
    Who.PLAYER: "player",
    Who.GM: "GM",
    Who.TAKING_PART: "GM or player",
}
_WHERE = {
    Where.SERVER: "in a campaign's channel or its threads",
    Where.ANYWHERE: "any channel or a direct message with the bot (no campaign needed)",
}
_SEEN = {
    "public": "everyone",
    "gm": "the roller and the GM",
    "blind": "only the GM",
    "self": "only the one who ran it",
}


def _systems(found: Iterable[str]) -> str:
    keys = list(found)
    if keys == list(SYSTEMS):
        return "every system"
    names = [SYSTEMS[key].name for key in keys]
    return ", ".join(names) if names else "none"


def _default(option: Option) -> str:
    if option.default is None or option.default is False:
        return ""
    if option.default is True:
        return "true"
    return f"`{option.default}`"


def _seen(command: RollingCommand) -> str:
    if command.secrecy is None and command.visibility is Visibility.SELF:
        return "only the one who ran it, unless `public:true` shows it to the channel"
    if command.secrecy is None:
        return f"{_SEEN[command.visibility]} (`{command.visibility}`); no setting changes it"
    return (
        f"{_SEEN[command.visibility]} (`{command.visibility}`) unless `secret:` says otherwise; "
        f"a GM changes the default with `/campaign set secrecy command:{command.secrecy}`"
    )


def _spelling(command: RollingCommand) -> str:
    spelling = command.spelling
    if spelling is None:
        return "none (only the slash command)"
    words = ""
    if spelling.words:
        shown = [f"`{word}`" for word in spelling.words]
        last = " (the rest of the words)" if spelling.rest else ""
        words = f"; the words before the options are {', then '.join(shown)}{last}"
    aliases = [
        f"`{alias}` for `{option.name}`"
        for option in command.inline_options
        for alias in option.aliases
    ]
    shorthands = f"; bare {', '.join(aliases)}" if aliases else ""
    return f"`[[{spelling.example}]]`{words}{shorthands}"


def _section(command: RollingCommand) -> list[str]:
    lines = [
        f"## `/{command.name}`",
        "",
        f"{command.help}.",
        "",
        f"- **Who:** {_WHO[command.who]}",
        f"- **Where:** {_WHERE[command.where]}",
        f"- **Who sees it:** {_seen(command)}",
        f"- **Rule systems:** {_systems(s.key for s in command.systems())}",
        f"- **In a post or a saved roll:** {_spelling(command)}",
        "",
        "| option | type | required | default | rule systems | description |",
        "|---|---|---|---|---|---|",
    ]
    for option in command.options:
        systems = _systems(s.key for s in command.systems_for(option))
        lines.append(
            f"| `{option.name}` | {option.shape.words()} | {'yes' if option.required else ''} "
            f"| {_default(option)} | {systems} | {option.help} |"
        )
    return [*lines, ""]


def markdown() -> str:
    """The whole page."""
    lines = [
        "# Rolling commands",
        "",
        f"<!-- Written by `{COMMAND}` from bot/commands/rolling.py; do not edit. -->",
        "",
        "Every command that rolls dice or gives odds, as the bot declares it once "
        "(`bot/commands/rolling.py`): the slash commands' options, the `[[…]]` rolls in a "
        "post and saved rolls (`/macro`), `/help` and this page are all made from that "
        "table. *Rule systems* says which systems' campaigns take a command or an option; "
        "the others refuse it and say what to use instead. Longer guides: "
        "[playing.md](playing.md), [in-character.md](in-character.md), "
        "[secret-rolls.md](secret-rolls.md), [dice.md](dice.md).",
        "",
        "| command | who | what it does |",
        "|---|---|---|",
        *(
            f"| [`/{c.name}`](#{c.name.replace(' ', '-')}) | {_WHO_SHORT[c.who]} | {c.help} |"
            for c in ROLLING.values()
        ),
        "",
    ]
    for command in ROLLING.values():
        lines.extend(_section(command))
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page (or the path given) and say where."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else PAGE
    path.write_text(markdown(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
