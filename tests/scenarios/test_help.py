"""/help [topic]: how to play, only to the asker, within Discord's limits; every
command of the bot in some topic, every command help names a real one, links full URLs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.enums import AppCommandType

from bot.cogs.help import command_docs
from bot.render.help import DOCS_URL, TOPIC_NAMES, HelpTopic, help_pages, topic_commands
from bot.rules.systems import SYSTEMS
from tests.scenarios.conftest import Table, message_text, start_campaign

DOCS = Path(__file__).resolve().parents[2] / "docs"

# What a player looks for in each topic.
EXPECTED: dict[HelpTopic | None, tuple[str, ...]] = {
    None: tuple(f"/help topic:{t.value}" for t in HelpTopic),
    HelpTopic.PLAYERS: ("/character create", "/check ability:DEX", "click **Roll**"),
    HelpTopic.GMS: (
        "/campaign setup",
        "/character create",
        "/check ability:DEX dc:12",
        "/gm roll dice:",
        "/reveal roll:",
        "/gm request roll ability:DEX characters:Ann, Bo dc:12 deadline:24h",
    ),
    HelpTopic.CLOCK: ("deadline:", "default:roll", "remind:12h", "`skip`", "/gm request extend"),
    HelpTopic.IN_CHARACTER: ("/post text:", "[[check DEX Stealth adv]]", "/post-edit"),
    HelpTopic.SYSTEM: ("Pen & Dagger", "Roll-under", "Threshold", "d20 check"),
    HelpTopic.DICE: ("1d20+5", "Page 1 of"),
    HelpTopic.SECRET: (
        "`public`",
        "`gm`",
        "`blind`",
        "`self`",
        "/reveal roll:42",
        "/verify roll:42",
        "/verify log:True",
    ),
    HelpTopic.FORTUNE: ("Pen & Dagger", "Keep the critical", "/fortune spend"),
    HelpTopic.FAIR: (
        "/campaign seed rotate",
        "/campaign seed period",
        "/seed show",
        "/seed rotate",
        "Manage Channels",
        "cannot be linked",
        "/me seed set",
        "/me seed show",
        "/verify roll:42",
        "/verify seed:",
        f"{DOCS_URL}/fair-dice.md",
    ),
    HelpTopic.PRIVACY: ("/privacy show", "/privacy delete", "everywhere", "[erased]"),
}


def assert_within_discords_limits(embed: discord.Embed) -> None:
    assert len(embed) <= 6000
    assert len(embed.title or "") <= 256
    assert 0 < len(embed.description or "") <= 4096
    assert len(embed.fields) <= 25
    for field in embed.fields:
        assert len(field.name or "") <= 256 and len(field.value or "") <= 1024
    assert len(embed.footer.text or "") <= 2048


def button_states(message: Any) -> dict[str, bool]:
    """Label → disabled, for every button of a message."""
    return {
        button["label"]: bool(button.get("disabled"))
        for row in message.components
        for button in row.get("components", [])
    }


@pytest.mark.parametrize("topic", [None, *HelpTopic], ids=lambda t: str(t or "overview"))
async def test_every_topic_answers_only_the_asker_within_discords_limits(
    table: Table, topic: HelpTopic | None
) -> None:
    options = {"topic": topic.value} if topic else {}
    result = await table.alice.slash(table.table, "help", **options)
    assert result.ephemeral and result.response is not None
    (embed,) = result.response.embeds
    assert_within_discords_limits(embed)
    shown = message_text(result.response)
    for wanted in EXPECTED[topic]:
        assert wanted in shown


async def test_the_dice_topic_pages_with_previous_and_next(table: Table) -> None:
    result = await table.bob.slash(table.table, "help", topic="dice")
    page = result.response
    assert page is not None and result.ephemeral
    assert button_states(page) == {"Previous": True, "Next": False}
    footers = [page.embeds[0].footer.text]
    assert footers[0] is not None and footers[0].startswith("Page 1 of ")
    pages = int(footers[0].rsplit(" ", 1)[1])
    assert pages > 1
    seen = {page.embeds[0].title}
    for _ in range(pages - 1):
        clicked = await table.bob.click(page, label="Next")
        page = clicked.response
        assert page is not None
        assert_within_discords_limits(page.embeds[0])
        footers.append(page.embeds[0].footer.text)
        seen.add(page.embeds[0].title)
    assert footers == [f"Page {n} of {pages}" for n in range(1, pages + 1)]
    assert len(seen) == pages  # every page is a different part of the notation
    assert button_states(page) == {"Previous": False, "Next": True}
    assert "exploded" in message_text(page)  # the last page explains the result
    back = await table.bob.click(page, label="Previous")
    assert back.response is not None
    assert back.response.embeds[0].footer.text == f"Page {pages - 1} of {pages}"
    assert button_states(back.response) == {"Previous": False, "Next": False}


@pytest.mark.parametrize(
    ("system", "name", "what"),
    [
        ("pen-and-dagger", "Pen & Dagger", "Success Table"),
        ("roll-under", "Roll-under", "your score or lower passes"),
        ("threshold", "Threshold", "meets the threshold"),
        ("d20-check", "d20 check", "proficiency bonus"),
    ],
)
async def test_help_in_a_campaign_channel_names_its_system(
    table: Table, system: str, name: str, what: str
) -> None:
    await start_campaign(table, system)
    result = await table.carol.slash(table.table, "help", topic="system")
    assert result.ephemeral and result.response is not None
    (embed,) = result.response.embeds
    assert embed.title == f"This campaign plays {name}"
    assert what in (embed.description or "")
    # It links the system's player reference (tests/docs checks the page exists).
    assert f"{DOCS_URL}/rules/{system}.md" in (embed.description or "")
    # The other systems are only named, not explained.
    assert len(embed.description or "") < 700


async def test_help_without_a_campaign_explains_every_system(table: Table) -> None:
    await start_campaign(table, "threshold")
    result = await table.carol.slash(table.table, "help", topic="system")
    assert result.response is not None
    assert result.response.embeds[0].title == "This campaign plays Threshold"
    elsewhere = await table.carol.slash(table.gm_channel, "help", topic="system")
    assert elsewhere.response is not None
    (embed,) = elsewhere.response.embeds
    assert "no campaign" in (embed.description or "")
    assert [f.name for f in embed.fields] == [
        "Pen & Dagger",
        "Roll-under",
        "Threshold",
        "d20 check",
    ]


async def test_the_roll_dice_option_points_to_help_dice(table: Table) -> None:
    tree = table.bot.tree
    roll = tree.get_command("roll")
    assert roll is not None
    payload = roll.to_dict(tree)
    (dice,) = [o for o in payload["options"] if o["name"] == "dice"]
    assert "/help topic:dice" in dice["description"]
    (help_,) = [c.to_dict(tree) for c in tree.get_commands() if c.name == "help"]
    (topic,) = help_["options"]
    assert "dice" in [choice["value"] for choice in topic["choices"]]


async def test_every_dice_option_points_to_help_dice(table: Table) -> None:
    tree = table.bot.tree
    for path in (("gm", "roll"), ("odds", "roll")):
        group = tree.get_command(path[0])
        assert group is not None
        (command,) = [c for c in group.to_dict(tree)["options"] if c["name"] == path[1]]
        (dice,) = [o for o in command["options"] if o["name"] == "dice"]
        assert "/help topic:dice" in dice["description"], path
        assert len(dice["description"]) <= 100


# --- Every command in /help, and nothing in /help that is not a command ---------------------

#: A command as help names it, in code: `/gm request roll ability:DEX dc:12`.
_CODE_MENTION = re.compile(r"`/([^`]+)`")
_URL = re.compile(r"https?://[^\s)>`]+")


def _all_pages(table: Table) -> list[discord.Embed]:
    """Every page of every topic as /help shows it, from the bot's own command tree; the
    system topic both outside a campaign and in one of each system."""
    docs = command_docs(table.bot.tree)
    pages = help_pages(None, None, docs)
    for topic in HelpTopic:
        systems = [None, *SYSTEMS] if topic is HelpTopic.SYSTEM else [None]
        for system in systems:
            pages.extend(help_pages(topic, system, docs))
    return pages


def _text(embed: discord.Embed) -> str:
    return "\n".join(
        [embed.title or "", embed.description or "", *(f.value or "" for f in embed.fields)]
    )


def _leaves(table: Table) -> dict[str, app_commands.Command[Any, ..., Any]]:
    return {
        command.qualified_name: command
        for command in table.bot.tree.walk_commands(type=AppCommandType.chat_input)
        if isinstance(command, app_commands.Command)
    }


def _menus(table: Table) -> list[str]:
    return [
        menu.name
        for kind in (AppCommandType.message, AppCommandType.user)
        for menu in table.bot.tree.get_commands(type=kind)
    ]


def _groups(table: Table) -> set[str]:
    return {
        command.qualified_name
        for command in table.bot.tree.walk_commands(type=AppCommandType.chat_input)
        if isinstance(command, app_commands.Group)
    }


def _mentions(text: str, leaves: set[str], groups: set[str]) -> list[tuple[str, list[str], str]]:
    """Each command named in code: (the longest command or group name it starts with, empty
    if none; the option names written after it; the mention as written)."""
    known = leaves | groups
    found = []
    for match in _CODE_MENTION.finditer(text):
        words = match.group(1).split()
        taken = max(
            (n for n in range(1, len(words) + 1) if " ".join(words[:n]) in known), default=0
        )
        rest = words[taken:]
        options = [w.split(":", 1)[0] for w in rest if ":" in w]
        name = " ".join(words[:taken])
        if rest and re.fullmatch(r"[a-z][a-z0-9-]*", rest[0]) and name not in leaves:
            name = ""  # a group's subcommand that does not exist
        found.append((name, options, match.group(0)))
    return found


async def test_every_command_of_the_bot_is_in_help(table: Table) -> None:
    """A new command without a line in a /help topic fails here, by name."""
    leaves = _leaves(table)
    text = "\n".join(_text(page) for page in _all_pages(table))
    named = {name for name, _, _ in _mentions(text, set(leaves), _groups(table))}
    assert sorted(set(leaves) - named) == []
    menus = _menus(table)
    assert menus  # the Apps menus exist, so this checks something
    assert [m for m in menus if f"Apps → {m}" not in text] == []


async def test_each_topic_lists_its_commands_as_the_bot_describes_them(table: Table) -> None:
    leaves = _leaves(table)
    menus = set(_menus(table))
    for topic in HelpTopic:
        stale = [n for n in topic_commands(topic) if n not in leaves and n not in menus]
        assert stale == [], f"/help topic:{topic} lists commands the bot no longer has"
    docs = command_docs(table.bot.tree)
    clock = "\n".join(_text(page) for page in help_pages(HelpTopic.CLOCK, None, docs))
    for name in topic_commands(HelpTopic.CLOCK):
        assert f"`/{name}`: {leaves[name].description}" in clock


async def test_every_command_help_names_exists_with_the_options_written(table: Table) -> None:
    leaves = _leaves(table)
    wrong = []
    for page in _all_pages(table):
        for name, options, written in _mentions(_text(page), set(leaves), _groups(table)):
            if not name:
                wrong.append(f"{page.title}: {written} is not a command")
                continue
            command = leaves.get(name)
            have = {p.name for p in command.parameters} if command else set()
            wrong.extend(
                f"{page.title}: {written}: /{name} has no option {o}"
                for o in options
                if o not in have
            )
    assert wrong == []


async def test_help_links_are_full_urls_to_pages_that_exist(table: Table) -> None:
    pages = _all_pages(table)
    links = {url.rstrip(".,;") for page in pages for url in _URL.findall(_text(page))}
    assert any(url.startswith(f"{DOCS_URL}/") for url in links)
    for url in links:
        assert url.startswith("https://"), url
        if url.startswith(f"{DOCS_URL}/"):
            assert (DOCS / url.removeprefix(f"{DOCS_URL}/")).is_file(), url
    # The address is the one the package declares (pyproject.toml's project URLs).
    declared = tomllib.loads((DOCS.parent / "pyproject.toml").read_text())["project"]["urls"]
    assert declared["Documentation"] == DOCS_URL
    # No repository path shown instead of a link.
    for page in pages:
        bare = _URL.sub("", _text(page))
        paths = re.findall(r"\b(?:docs|tools|bot|tests|examples)/\S+|\b\w+\.(?:py|md)\b", bare)
        assert paths == [], page.title


async def test_every_page_of_every_topic_fits_discords_limits(table: Table) -> None:
    pages = _all_pages(table)
    for page in pages:
        assert_within_discords_limits(page)
        assert [f for f in page.fields if f.name == "…"] == []  # nothing was left out
    # The topic picker: at most 25 choices, each name at most 100 characters.
    assert len(TOPIC_NAMES) <= 25
    assert all(len(name) <= 100 and name.startswith(t.value) for t, name in TOPIC_NAMES.items())
    (help_,) = [
        c.to_dict(table.bot.tree) for c in table.bot.tree.get_commands() if c.name == "help"
    ]
    (topic,) = help_["options"]
    assert [c["value"] for c in topic["choices"]] == [t.value for t in HelpTopic]


async def test_a_new_topic_pages_through_to_its_commands(table: Table) -> None:
    result = await table.carol.slash(table.table, "help", topic="clock")
    page = result.response
    assert page is not None and result.ephemeral
    assert "/gm request roll ability:DEX" in message_text(page)
    clicked = await table.carol.click(page, label="Next")
    assert clicked.response is not None
    shown = message_text(clicked.response)
    assert "/turns start order:initiative" in shown
    assert "`/turns hold`: Skip me this round; I keep my place" in shown
    assert button_states(clicked.response) == {"Previous": False, "Next": True}
