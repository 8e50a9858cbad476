"""Players' text is shown literally wherever it appears: character names, roll
labels and display names never render as markdown, in any message the bot sends.

Each test plays the commands that show such text, collects every message and embed the bot
sent (public, ephemeral, GM copies), and looks for the hostile text unescaped. Text inside a
code span is literal in Discord, so code spans are left out of the search.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from tests.fixtures.table import Table, final_answer, start_campaign

BOLD = "**Bold**"
NAME = f"{BOLD} ~~gone~~ Ayla"
LABEL = f"{BOLD} __attack__"
_CODE = re.compile(r"```.*?```|`[^`]*`", re.DOTALL)
_RAW = ("**Bold**", "~~gone~~", "__attack__")


def _pieces(message: Any) -> list[tuple[str, str]]:
    """(where, text) for the content and every part of every embed."""
    found = [("content", message.content or "")]
    for embed in message.embeds:
        assert isinstance(embed, discord.Embed)
        found += [("title", embed.title or ""), ("description", embed.description or "")]
        for field in embed.fields:
            found += [("field name", field.name or ""), ("field value", field.value or "")]
        found += [("footer", embed.footer.text or ""), ("author", embed.author.name or "")]
    return found


def _unescaped(messages: list[Any]) -> list[str]:
    bad = []
    for message in messages:
        for where, text in _pieces(message):
            visible = _CODE.sub("", text)
            for raw in _RAW:
                at = visible.find(raw)
                if at >= 0:
                    bad.append(f"{where}: …{visible[max(0, at - 60) : at + 60]!r}…")
    return bad


async def make_character(table: Table, player: Any, name: str, scores: dict[str, int]) -> None:
    created = await player.slash(table.table, "character create", name=name)
    assert created.response is not None and "joins the campaign" in created.response.content
    for ability, value in scores.items():
        done = await player.slash(
            table.table, "character set", ability=ability, value=value, character=name
        )
        assert done.response is not None and "Score saved" in done.response.content


class Recorder:
    """Runs commands and keeps every answer, followup and channel message for the check."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.messages: list[Any] = []

    async def run(self, actor: Any, command: str, where: Any = None, **options: Any) -> Any:
        result = await actor.slash(where or self.table.table, command, **options)
        if result.response is not None or result.followups:
            self.messages.append(final_answer(result))
        self.messages += result.followups
        return result

    def everything(self) -> list[Any]:
        table = self.table
        public = list(table.table.history(viewer=table.admin))
        gm = list(table.gm_channel.history(viewer=table.admin))
        return self.messages + public + gm


async def test_d20_check_paths_show_names_and_labels_literally(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, NAME, {"STR": 14, "DEX": 12})
    await make_character(table, table.bob, "Bo", {"STR": 10, "DEX": 16})
    play = Recorder(table)
    await play.run(table.alice, "character show")
    await play.run(table.alice, "character list")
    await play.run(table.gm, "party add", character=NAME)
    await play.run(table.gm, "party add", character="Bo")
    await play.run(table.alice, "party show")
    await play.run(table.alice, "check", ability="STR", dc=10)
    await play.run(table.alice, "check", ability="DEX", secret="gm")
    await play.run(table.gm, "gm check", character=NAME, ability="STR")
    await play.run(table.gm, "groupsave", ability="DEX", dc=12)
    await play.run(table.alice, "contest", ability="STR", characters=f"{NAME}, Bo")
    await play.run(table.alice, "roll", dice="1d20+2", label=LABEL)
    hidden = await play.run(table.alice, "roll", dice="1d20", label=LABEL, secret="blind")
    await play.run(table.gm, "gm roll", dice="2d6", label=LABEL)
    await play.run(table.alice, "odds check", ability="STR", dc=12)
    await play.run(table.alice, "history")
    await play.run(table.gm, "gm log")
    number = re.search(r"#(\d+)", play.messages[-1].embeds[0].description or "")
    assert number is not None and hidden is not None
    await play.run(table.gm, "reveal", roll=6)
    await play.run(table.gm, "gm request roll", ability="DEX", characters=NAME, dc=10)
    await play.run(table.gm, "gm request status")
    assert NAME.split()[-1] in "\n".join(t for m in play.everything() for _, t in _pieces(m))
    assert "\n".join(_unescaped(play.everything())) == ""


async def test_pen_and_dagger_paths_show_names_literally(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, NAME, {})
    play = Recorder(table)
    await play.run(table.alice, "fortune show")
    await play.run(table.alice, "luck")
    await play.run(table.alice, "check", ability="STR")
    await play.run(table.alice, "character show")
    await play.run(table.alice, "history")
    assert "\n".join(_unescaped(play.everything())) == ""


async def test_group_generation_shows_display_names_literally(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    marked = table.guild.add_member(table.env.create_user(f"{BOLD}_x_"))
    play = Recorder(table)
    await play.run(table.gm, "abilities roll", players=f"{table.alice.mention} {marked.mention}")
    assert any("Bold" in t for m in play.everything() for _, t in _pieces(m))
    assert "\n".join(_unescaped(play.everything())) == ""
