"""/help [topic]: how to play, only to the asker, within Discord's limits (issue 19)."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.render.help import HelpTopic
from tests.bot.conftest import Table, message_text, start_campaign

# What a player looks for in each topic.
EXPECTED: dict[HelpTopic | None, tuple[str, ...]] = {
    None: tuple(f"/help topic:{t.value}" for t in HelpTopic),
    HelpTopic.PLAYERS: ("/character create", "/check ability:DEX", "click **Roll**"),
    HelpTopic.GMS: ("/campaign setup", "/gm request roll", "/gm reveal roll:42"),
    HelpTopic.SYSTEM: ("Pen & Dagger", "Roll-under", "Threshold", "d20 check"),
    HelpTopic.DICE: ("1d20+5", "Page 1 of"),
    HelpTopic.SECRET: (
        "`public`",
        "`gm`",
        "`blind`",
        "`self`",
        "/gm reveal roll:42",
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
        "tools/verify_fair.py --mine",
        "cannot be linked",
        "/me seed set",
        "/me seed show",
        "/verify roll:42",
        "/verify seed:",
        "tools/verify_fair.py",
    ),
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
    # It points to the system's player reference (tests/docs checks the page exists).
    assert f"`docs/rules/{system}.md`" in (embed.description or "")
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
