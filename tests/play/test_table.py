"""The table end to end: the real bot in SimCord, driven line by line as a script is.

Tests bot/play/_table.py.
"""

from __future__ import annotations

import re

from bot.play import PlayOptions, play

SETUP = "gm> /campaign setup system:pen-and-dagger gm_role:@GM gm_channel:#gm"


async def _run(*lines: str, **options: object) -> tuple[int, list[str]]:
    out: list[str] = []
    status = await play(PlayOptions(seed=5, **options), list(lines), out.append)  # type: ignore[arg-type]
    return status, out


def _after(out: list[str], line: str) -> list[str]:
    """What was printed for `line`, up to the next echoed line."""
    start = out.index(line) + 1
    end = next((i for i in range(start, len(out)) if not out[i].startswith("  ")), len(out))
    return out[start:end]


async def test_a_command_runs_as_the_named_person_and_is_shown_in_table() -> None:
    status, out = await _run(SETUP, "alice> /character create name:Angus")
    assert status == 0
    shown = _after(out, "alice> /character create name:Angus")
    assert shown[0] == "  ── #table · pbp-dice ──"
    assert "Angus" in shown[1] and "joins the campaign" in shown[1]


async def test_an_unknown_command_or_option_is_refused_without_calling_the_bot() -> None:
    status, out = await _run(SETUP, "alice> /chek ability:DEX", "alice> /luck luck:1")
    assert status == 1
    assert _after(out, "alice> /chek ability:DEX") == [
        "  ✗ /chek is not a command of this bot. Did you mean check?"
    ]
    refused = _after(out, "alice> /luck luck:1")
    assert len(refused) == 1 and refused[0].startswith("  ✗ /luck has no option `luck`")


async def test_ephemeral_replies_say_who_sees_them() -> None:
    _, out = await _run(SETUP, "gm> /campaign show", "bob> /luck")
    assert (
        _after(out, "gm> /campaign show")[0] == "  ── #table · only gm can see this · pbp-dice ──"
    )
    no_sheet = _after(out, "bob> /luck")
    assert no_sheet[0] == "  ── #table · only bob can see this · pbp-dice ──"


async def test_the_gm_channel_is_marked_and_closed_to_players() -> None:
    status, out = await _run("gm #gm> /roll dice:1d20", "alice #gm> /roll dice:1d20")
    assert _after(out, "gm #gm> /roll dice:1d20")[0] == (
        "  ── #gm · GM channel, only GMs see it · pbp-dice ──"
    )
    assert _after(out, "alice #gm> /roll dice:1d20") == [
        "  ✗ alice cannot see #gm: it is for GMs only."
    ]
    assert status == 1


async def test_click_by_number_and_by_label_updates_the_message_in_place() -> None:
    status, out = await _run(
        SETUP,
        "gm> /campaign delete",
        "gm> click 2",
        "gm> /campaign delete",
        'gm> click "Delete the campaign"',
        "gm> /campaign show",
    )
    assert status == 0
    assert "[1] Delete the campaign   [2] Cancel" in _after(out, "gm> /campaign delete")[-1]
    assert _after(out, "gm> click 2") == [
        "  ── #table · only gm can see this · pbp-dice · updated ──",
        "  Cancelled: nothing changed.",
    ]
    assert "Campaign deleted" in _after(out, 'gm> click "Delete the campaign"')[1]
    assert "No campaign in this channel" in _after(out, "gm> /campaign show")[1]


async def test_click_needs_a_button_the_person_can_see() -> None:
    status, out = await _run(SETUP, "gm> /campaign delete", "alice> click 1", "gm> click 3")
    assert status == 1
    # The confirmation is ephemeral: alice never saw its buttons.
    assert _after(out, "alice> click 1") == ["  ✗ alice sees no message with buttons."]
    assert "has 2: click 1 to 2" in _after(out, "gm> click 3")[0]


async def test_switch_who_and_help() -> None:
    status, out = await _run("who", "switch bob", "/luck", "help", "help /roll", gm="dm")
    assert status == 0
    assert _after(out, "who")[:2] == [
        "  → dm: GM (owns the server, has the GM role)",
        "    alice: player",
    ]
    assert _after(out, "switch bob") == ["  You are now bob."]
    assert "bob> /luck" in out  # lines without a name run as the current person
    listed = _after(out, "help")
    assert any(line.startswith("    /check:") for line in listed)
    assert any(line.startswith("    /campaign setup:") for line in listed)
    roll = _after(out, "help /roll")
    assert roll[1].strip().startswith("dice: string of 1 to 1000 characters, required")


async def test_help_gives_each_options_limits_in_words_never_none() -> None:
    _, out = await _run("help /check", "help /verify", "help /gm log")
    check = "\n".join(_after(out, "help /check"))
    assert "dc: integer from 1 to 100, optional" in check
    assert "bonus: integer from -100 to 100, optional" in check
    verify = "\n".join(_after(out, "help /verify"))
    assert "roll: integer at least 1, optional" in verify  # no upper limit
    assert "None" not in "\n".join(out) and ".." not in "\n".join(out)


async def test_escaped_names_and_timestamps_read_as_discord_shows_them() -> None:
    name = "*Sly*_`Fox`"
    status, out = await _run(
        SETUP,
        f"alice> /character create name:{name}",
        "alice> /roll dice:1d20 label:a *bold* claim",
        "alice> /history",
        "gm> /gm log",
    )
    assert status == 0
    created = _after(out, f"alice> /character create name:{name}")
    assert f"**{name}** joins the campaign" in created[1]
    assert "  ┃ 🟦 alice rolls a *bold* claim" in out
    history = _after(out, "alice> /history")
    assert "· a few seconds ago · @alice · roll ·" in history[2]
    assert "<t:" not in "\n".join(out) and "\\" not in "\n".join(out)
    # Inside a code span Discord shows the text as typed, so nothing is unescaped there.
    assert "  ┃   `/roll dice:1d20 label:a *bold* claim`" in _after(out, "gm> /gm log")


async def test_an_attachment_shows_its_name_and_size() -> None:
    _, out = await _run(SETUP, "gm> /campaign export")
    shown = _after(out, "gm> /campaign export")
    files = [line for line in shown if line.startswith("  📎 ")]
    assert len(files) == 1
    assert re.fullmatch(
        r"  📎 pbp-dice-campaign-1-\d{8}-\d{6}\.json\.gz, (\d+ bytes|\d\.\d\d KB)", files[0]
    )


async def test_autocomplete_asks_the_bot() -> None:
    status, out = await _run(
        SETUP,
        "alice> /character create name:Angus",
        "bob> /character create name:Anwen",
        "alice> /character show name:?an",
        "alice> /character show name:?zz",
    )
    assert status == 0
    suggested = _after(out, "alice> /character show name:?an")[0]
    assert suggested.startswith("  suggestions for name: ")
    assert {"Angus", "Anwen"} <= set(suggested.split(": ", 1)[1].split(", "))
    assert _after(out, "alice> /character show name:?zz") == [
        "  suggestions for name: (no suggestions)"
    ]


async def test_custom_names_and_an_unknown_person() -> None:
    status, out = await _run("zed> /luck", "ann> /roll dice:1d4", players=["ann"])
    assert status == 1
    assert _after(out, "zed> /luck") == ["  ✗ Nobody here is called zed. At the table: gm, ann."]
    assert _after(out, "ann> /roll dice:1d4")[0] == "  ── #table · pbp-dice ──"


async def test_at_names_in_text_options_reach_the_bot_as_mentions() -> None:
    request = "gm> /gm request roll ability:STR characters:Ann, @bob"
    contest = "gm> /contest ability:STR characters:@alice @bob"
    status, out = await _run(
        "gm> /campaign setup system:roll-under gm_role:@GM gm_channel:#gm",
        "alice> /character create name:Ann",
        "alice> /character set ability:STR value:12",
        "bob> /character create name:Bo",
        "bob> /character set ability:STR value:9",
        request,
        contest,
    )
    assert status == 0, "\n".join(out)
    asked = "\n".join(_after(out, request))
    assert "Ann: @alice · waiting for their roll" in asked
    assert "Bo: @bob · waiting for their roll" in asked
    ranked = "\n".join(_after(out, contest))
    assert "STR contest" in ranked and "Ranking" in ranked
    assert "Ann:" in ranked and "Bo:" in ranked


async def test_group_ability_scores_for_players_named_with_at() -> None:
    line = "gm> /abilities roll players:@alice @bob @carol"
    status, out = await _run(SETUP, line)
    assert status == 0, "\n".join(out)
    assert any("Turn order: alice, bob, carol" in shown for shown in _after(out, line))


async def test_help_topics_and_their_pages_work_at_the_offline_table() -> None:
    status, out = await _run(
        SETUP, "help", "help /help", "alice> /help topic:dice", 'alice> click "Next"'
    )
    assert status == 0
    assert any(line.startswith("    /help:") for line in _after(out, "help"))
    topics = "players, gms, clock, in-character, secret, dice, system, fortune, fair, privacy"
    assert f"one of {topics}," in _after(out, "help /help")[1]
    dice = _after(out, "alice> /help topic:dice")
    assert dice[0] == "  ── #table · only alice can see this · pbp-dice ──"
    assert dice[-2:] == ["  ┃ — Page 1 of 6", "  [1] Previous (disabled)   [2] Next"]
    turned = _after(out, 'alice> click "Next"')
    assert turned[0] == "  ── #table · only alice can see this · pbp-dice · updated ──"
    assert "  ┃ — Page 2 of 6" in turned


async def test_a_form_is_filled_line_by_line_and_cancel_closes_it() -> None:
    status, out = await _run(
        SETUP,
        "alice> /character create name:Angus",
        "alice> /post",
        "cancel",
        "alice> /post",
        "Angus waves.",
        "bob> /luck",  # inside the form: text, not a command
        ".",
        "carol> /luck",
    )
    assert status == 0
    first = _after(out, "alice> /post")
    assert first[0] == "  ▭ pbp-dice opens a form for alice: “Post as Angus”"
    assert first[-2:] == ["  ✎ cancel", "  ▭ form closed: nothing was sent."]
    second = out[out.index("alice> /post", out.index("alice> /post") + 1) + 1 :]
    assert second[3:6] == ["  ✎ Angus waves.", "  ✎ bob> /luck", "  ✎ ."]
    posted = second[second.index("  ── #table · Angus (via pbp-dice) ──") + 1 :]
    assert posted[:2] == ["  Angus waves.", "  bob> /luck"]
    # After the form the table reads commands again.
    assert _after(out, "carol> /luck")[0] == "  ── #table · only carol can see this · pbp-dice ──"
