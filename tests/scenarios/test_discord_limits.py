"""Within Discord's limits, always: hostile text never makes a reply too big.

Every slash command with a free-text option (found by walking the bot's command tree) gets
1,000 to 6,000 characters of backslashes, soft hyphens, private-use characters, markdown and
@everyone, up to the option's own declared length. Every request the bot sent must fit
Discord's limits, and every command must be answered without an incident. SimCord records each
attempted REST request (``env.http_requests``); the checks here are Discord's documented limits,
stated independently of SimCord's own validation.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands

from bot.tree import user_message
from tests.fixtures.table import Table, make_character, message_text, start_campaign

#: Discord's limits (https://discord.com/developers/docs/resources/message).
CONTENT, TITLE, DESCRIPTION, FIELD_NAME, FIELD_VALUE, FOOTER, AUTHOR = (
    2000,
    256,
    4096,
    256,
    1024,
    2048,
    256,
)
EMBED_TOTAL, FIELDS, BUTTON_LABEL, CUSTOM_ID = 6000, 25, 80, 100
INCIDENT = "Something went wrong on our side"

#: One repeated unit per kind of hostile text; each is grown to the option's length.
HOSTILE = {
    "backslashes": "\\",
    "soft hyphens": "\u00ad",
    "private use": "\ue000",
    "markdown": "**Bold** __u__ ~~s~~ ||x|| `c` > # - [l](http://x) ",
    "everyone": "@everyone @here <@&1> ",
    "long name": "Zedekiah the Unpronounceable ",
}
#: Values for the other required text options, so the hostile one gets past the first check.
PLAIN = {"dice": "1d20", "ability": "DEX", "character": "Ayla", "characters": "Ayla, Bran"}


def hostile(unit: str, high: int) -> str:
    """``unit`` repeated to 1,000-6,000 characters, but never past the option's own maximum."""
    size = min(high, 6000)
    return (unit * (size // len(unit) + 1))[:size].rstrip() or unit[:size]


def text_options(command: app_commands.Command[Any, ..., Any]) -> list[app_commands.Parameter]:
    return [
        p
        for p in command.parameters
        if p.type is discord.AppCommandOptionType.string and not p.choices
    ]


def free_text_commands(
    tree: app_commands.CommandTree[Any],
) -> list[app_commands.Command[Any, ..., Any]]:
    commands = (c for c in tree.walk_commands() if isinstance(c, app_commands.Command))
    return sorted((c for c in commands if text_options(c)), key=lambda c: c.qualified_name)


def _length(param: app_commands.Parameter) -> int:
    return int(param.max_value) if param.max_value is not None else 6000


def base_options(table: Table, command: app_commands.Command[Any, ..., Any]) -> dict[str, Any]:
    """A valid-looking value for every required option."""
    options: dict[str, Any] = {}
    for param in command.parameters:
        if not param.required:
            continue
        kind = param.type
        if param.choices:
            options[param.display_name] = param.choices[0].value
        elif kind is discord.AppCommandOptionType.string:
            options[param.display_name] = PLAIN.get(param.display_name, "Ayla")
        elif kind in (discord.AppCommandOptionType.integer, discord.AppCommandOptionType.number):
            low = int(param.min_value) if param.min_value is not None else 1
            high = int(param.max_value) if param.max_value is not None else 10
            options[param.display_name] = max(low, min(high, 10))
        elif kind is discord.AppCommandOptionType.boolean:
            options[param.display_name] = False
        elif kind in (discord.AppCommandOptionType.user, discord.AppCommandOptionType.mentionable):
            options[param.display_name] = table.alice
        elif kind is discord.AppCommandOptionType.role:
            options[param.display_name] = table.gm_role
        elif kind is discord.AppCommandOptionType.channel:
            options[param.display_name] = table.gm_channel
        else:  # a new option type: give it a value here
            raise AssertionError(f"no value for option type {kind}")
    return options


def _embed_problems(embeds: list[Any], where: str) -> list[str]:
    found: list[str] = []
    total = 0
    for embed in embeds:
        texts = [
            ("title", embed.get("title"), TITLE),
            ("description", embed.get("description"), DESCRIPTION),
            ("footer", (embed.get("footer") or {}).get("text"), FOOTER),
            ("author", (embed.get("author") or {}).get("name"), AUTHOR),
        ]
        fields = embed.get("fields") or []
        if len(fields) > FIELDS:
            found.append(f"{where}: {len(fields)} fields")
        for field in fields:
            texts += [("field name", field.get("name"), FIELD_NAME)]
            texts += [("field value", field.get("value"), FIELD_VALUE)]
        for what, text, limit in texts:
            if text is None:
                continue
            total += len(text)
            if len(text) > limit:
                found.append(f"{where}: embed {what} of {len(text)} characters")
    if total > EMBED_TOTAL:
        found.append(f"{where}: embeds of {total} characters in all")
    return found


def limit_problems(payload: Any, where: str) -> list[str]:
    """Every place in a request body that breaks one of Discord's limits."""
    found: list[str] = []
    if isinstance(payload, dict):
        content = payload.get("content")
        if isinstance(content, str) and len(content) > CONTENT:
            found.append(f"{where}: content of {len(content)} characters")
        if isinstance(payload.get("embeds"), list):
            found += _embed_problems(payload["embeds"], where)
        label = payload.get("label")
        if payload.get("type") == 2 and isinstance(label, str) and len(label) > BUTTON_LABEL:
            found.append(f"{where}: button label of {len(label)} characters")
        custom_id = payload.get("custom_id")
        if isinstance(custom_id, str) and len(custom_id) > CUSTOM_ID:
            found.append(f"{where}: custom_id of {len(custom_id)} characters")
        for key, value in payload.items():
            if key != "embeds":
                found += limit_problems(value, where)
    elif isinstance(payload, list):
        for item in payload:
            found += limit_problems(item, where)
    return found


async def _world(table: Table, system: str = "pen-and-dagger") -> None:
    await start_campaign(table, system)
    await make_character(table, table.alice, "Ayla", {"DEX": 12})
    await make_character(table, table.bob, "Bran", {"DEX": 12})


# Pen & Dagger has group generation and fortune; d20-check has contests and proficiencies.
@pytest.mark.parametrize("system", ["pen-and-dagger", "d20-check"])
async def test_every_free_text_option_stays_within_discords_limits(
    table: Table, system: str
) -> None:
    await _world(table, system)
    env = table.env
    commands = free_text_commands(table.bot.tree)
    # The whole tree, including the three commands whose errors once quoted with repr().
    names = {c.qualified_name for c in commands}
    assert {"abilities roll", "contest", "gm request roll"} <= names, names
    problems: list[str] = []
    played = 0
    for command in commands:
        for param in text_options(command):
            for kind, unit in HOSTILE.items():
                value = hostile(unit, _length(param))
                options = {**base_options(table, command), param.display_name: value}
                play = f"/{command.qualified_name} {param.display_name}:<{len(value)} {kind}>"
                sent, cursor = len(env.http_requests), env.error_cursor
                result = await table.gm.slash(table.table, command.qualified_name, **options)
                played += 1
                for request in env.http_requests[sent:]:
                    problems += limit_problems(request.json, f"{play} → {request.path}")
                errors = env.errors_since(cursor)
                if not result.acknowledged:
                    problems.append(f"{play}: not answered")
                if any(user_message(e) is None for e in errors):
                    problems.append(f"{play}: incident {errors!r:.300}")
                if result.response is not None and INCIDENT in message_text(result.response):
                    problems.append(f"{play}: answered with an incident")
    assert played >= 3 * len(HOSTILE)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("abilities roll", {"players": "\\" * 1000}),
        ("abilities roll", {"players": "\u00ad" * 1000}),
        ("abilities roll", {"players": "\ue000" * 1000}),
        ("contest", {"characters": "\u00ad" * 994 + ", Ayla"}),
        ("gm request roll", {"characters": "\ue000" * 1000, "ability": "DEX"}),
    ],
    ids=[
        "players-backslashes",
        "players-soft-hyphens",
        "players-private-use",
        "contest",
        "request",
    ],
)
async def test_quoted_input_in_an_error_is_short_and_no_repr(
    table: Table, command: str, options: dict[str, Any]
) -> None:
    # Contests are a d20-check and roll-under rule.
    await _world(table, "d20-check" if command == "contest" else "pen-and-dagger")
    cursor = table.env.error_cursor
    if command == "contest":
        options = {**options, "ability": "DEX"}
    result = await table.gm.slash(table.table, command, **options)
    errors = table.env.errors_since(cursor)
    assert result.response is not None and result.ephemeral
    shown = result.response.content
    assert errors and user_message(errors[0]) == shown
    assert len(shown) < 300, shown
    # repr() wrote '\\\\', '\xad' and '\ue000'; the quote shows the text itself, clipped.
    assert "'" not in shown and "\\x" not in shown and "\\u" not in shown, shown
    assert "…" in shown


async def test_markdown_in_a_name_shows_literally(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    created = await table.alice.slash(table.table, "character create", name="**Bold** @everyone")
    assert created.response is not None
    assert "\\*\\*Bold\\*\\*" in created.response.content
    shown = await table.alice.slash(table.table, "character show", name="**Bold** @everyone")
    assert shown.response is not None
    text = message_text(shown.response)
    assert "\\*\\*Bold\\*\\*" in text and "**Bold**" not in text.replace("\\*", ""), text
    assert "@everyone" not in text, text  # broken with a zero-width space


async def test_a_dice_label_in_an_embed_title_is_escaped(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    rolled = await table.alice.slash(table.table, "roll", dice="1d20", label="__under__ *it*")
    assert rolled.response is not None and rolled.response.embeds
    title = rolled.response.embeds[0].title or ""
    assert "\\_\\_under\\_\\_ \\*it\\*" in title, title
