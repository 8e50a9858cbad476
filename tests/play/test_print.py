"""What people see: embeds as text boxes with a colour marker, buttons as choices."""

from __future__ import annotations

import time

import discord
import pytest

from bot.play._print import (
    Names,
    Shown,
    buttons,
    colour_name,
    human_size,
    relative_time,
    render,
    render_embed,
    unescape_markdown,
)
from bot.quoting import escape
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


def test_discord_timestamps_read_as_times_in_every_style(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        names = Names(now=lambda: 1_700_000_000 + 7200)
        text = " | ".join(f"<t:1700000000:{style}>" for style in "tTdDfFR") + " | <t:1700000000>"
        assert names.show(text) == (
            "22:13 | 22:13:20 | 2023-11-14 | 14 November 2023 | 14 November 2023 22:13 | "
            "Tuesday, 14 November 2023 22:13 | 2 hours ago | 14 November 2023 22:13"
        )
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (-10, "a few seconds ago"),
        (-60, "a minute ago"),
        (-300, "5 minutes ago"),
        (-3600, "an hour ago"),
        (-5 * 3600, "5 hours ago"),
        (-86400, "a day ago"),
        (-3 * 86400, "3 days ago"),
        (-60 * 86400, "2 months ago"),
        (-3 * 365 * 86400, "3 years ago"),
        (600, "in 10 minutes"),
    ],
)
def test_relative_times_are_worded_as_the_client_words_them(seconds: int, words: str) -> None:
    assert relative_time(seconds) == words


def test_markdown_escapes_show_the_character_alone_except_in_code() -> None:
    escaped = escape("*Sly*_Fox [x](y) ~~z~~ a\\b")
    assert escaped != "*Sly*_Fox [x](y) ~~z~~ a\\b"  # escape() did add backslashes
    assert unescape_markdown(escaped) == "*Sly*_Fox [x](y) ~~z~~ a\\b"
    assert unescape_markdown("`\\*as typed\\*` and ```\n\\_block\\_\n```") == (
        "`\\*as typed\\*` and ```\n\\_block\\_\n```"
    )
    assert unescape_markdown("\\a stays, 1\\2 stays") == "\\a stays, 1\\2 stays"  # not punctuation


def test_attachments_show_their_name_and_a_human_size() -> None:
    files = [{"filename": "campaign.json", "size": 2837}, {"filename": "x.txt", "size": 1}]
    lines = render(Shown("#table", "pbp-dice", "Here:", attachments=files), NAMES)
    assert lines[1:] == ["Here:", "📎 campaign.json, 2.77 KB", "📎 x.txt, 1 byte"]
    assert [human_size(n) for n in (0, 1023, 1024, 5 * 1024**2, 3 * 1024**3)] == [
        "0 bytes",
        "1023 bytes",
        "1.00 KB",
        "5.00 MB",
        "3.00 GB",
    ]
