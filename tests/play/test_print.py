"""What people see: embeds as text boxes with a colour marker, buttons as choices."""

from __future__ import annotations

import discord

from bot.play._print import Names, Shown, buttons, colour_name, render, render_embed
from bot.render import style

NAMES = Names(users={1: "alice"}, roles={2: "GM"}, channels={3: "gm"})


def _embed(colour: discord.Colour) -> dict[str, object]:
    embed = discord.Embed(
        title="Angus: DEX attempt", description="**Normal Success**", colour=colour
    )
    embed.add_field(name="d20", value="**11**, ~~5~~ (advantage)")
    embed.add_field(name="Sheet", value="DEX 14\nnot set: STR")
    embed.set_footer(text="Pen & Dagger · roll #1")
    return embed.to_dict()  # type: ignore[return-value]


def test_the_bots_colours_get_distinct_markers() -> None:
    assert colour_name(style.SUCCESS.value) == ("green", "🟩")
    assert colour_name(style.FAILURE.value) == ("red", "🟥")
    assert colour_name(style.PARTIAL.value)[0] == "orange"
    assert colour_name(style.CRITICAL_SUCCESS.value)[0] == "gold"
    assert colour_name(style.INFO.value)[0] == "grey"


def test_an_embed_reads_as_a_box_with_title_fields_and_footer() -> None:
    lines = render_embed(_embed(style.SUCCESS), NAMES)
    assert lines == [
        "┃ 🟩 Angus: DEX attempt",
        "┃ **Normal Success**",
        "┃ d20: **11**, ~~5~~ (advantage)",
        "┃ Sheet:",
        "┃   DEX 14",
        "┃   not set: STR",
        "┃ — Pen & Dagger · roll #1",
    ]
    assert all("\x1b[" not in line for line in lines)


def test_on_a_terminal_the_bar_takes_the_embeds_colour() -> None:
    first = render_embed(_embed(style.FAILURE), NAMES, ansi=True)[0]
    assert first.startswith("\x1b[38;2;231;76;60m┃\x1b[0m")


def test_mentions_show_names_as_the_client_does() -> None:
    shown = Shown("#table", "pbp-dice", content="<@1> rolls for <@&2>, see <#3>; <@99>")
    assert render(shown, NAMES)[1] == "@alice rolls for @GM, see #gm; @unknown-user"


def test_buttons_are_numbered_and_disabled_ones_marked() -> None:
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="Delete the campaign", custom_id="a"))
    view.add_item(discord.ui.Button(label="Cancel", custom_id="b", disabled=True))
    rows = view.to_components()
    assert [b["label"] for b in buttons(rows)] == ["Delete the campaign", "Cancel"]
    lines = render(Shown("#table · only gm can see this", "pbp-dice", "Sure?", [], rows), NAMES)
    assert lines == [
        "── #table · only gm can see this · pbp-dice ──",
        "Sure?",
        "[1] Delete the campaign   [2] Cancel (disabled)",
    ]


def test_an_edited_message_is_shown_as_updated() -> None:
    lines = render(Shown("#table", "pbp-dice", "Cancelled.", updated=True), NAMES)
    assert lines[0] == "── #table · pbp-dice · updated ──"
