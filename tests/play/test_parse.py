"""Lines typed at the table, and slash commands checked against the bot's own tree."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.app import PbpBot
from bot.play._parse import (
    Click,
    Meta,
    PlayError,
    Slash,
    command_paths,
    complete,
    mentions_in,
    parse_line,
    resolve,
)
from tests.fixtures.play import FakeDirectory


def test_a_named_line_runs_a_slash_command_as_that_person() -> None:
    assert parse_line("alice> /check ability:DEX advantage:true") == Slash(
        "alice", None, "check ability:DEX advantage:true"
    )
    assert parse_line("gm #gm> /roll dice:1d20") == Slash("gm", "gm", "roll dice:1d20")
    assert parse_line("/luck") == Slash(None, None, "luck")


def test_click_by_number_or_by_label() -> None:
    assert parse_line("click 2") == Click(None, index=2)
    assert parse_line('bob> click "Take a Normal success + a fortune die"') == Click(
        "bob", label="Take a Normal success + a fortune die"
    )
    assert parse_line("click Cancel") == Click(None, label="Cancel")
    with pytest.raises(PlayError, match="numbered from 1"):
        parse_line("click 0")


def test_comments_blank_lines_and_table_commands() -> None:
    assert parse_line("# a comment") is None
    assert parse_line("   ") is None
    assert parse_line("switch Bob") == Meta("switch", "Bob")
    assert parse_line("exit") == Meta("quit")
    with pytest.raises(PlayError, match="Switch to whom"):
        parse_line("switch")
    with pytest.raises(PlayError, match="Not understood"):
        parse_line("roll 1d20")


async def test_options_are_converted_with_the_commands_own_types(tree_bot: PbpBot) -> None:
    found = resolve(tree_bot.tree, "check ability:DEX advantage:true dc:15", FakeDirectory())
    assert found.path == "check"
    assert found.options == {"ability": "DEX", "advantage": True, "dc": 15}
    tier = resolve(tree_bot.tree, "campaign set tier difficulty:Hard threshold:16", FakeDirectory())
    assert tier.path == "campaign set tier"
    assert tier.options == {"difficulty": "hard", "threshold": 16}


async def test_values_with_spaces_quotes_and_the_first_option_typed_bare(
    tree_bot: PbpBot,
) -> None:
    labelled = resolve(tree_bot.tree, 'roll 2d6+3 label:"Damage: sword"', FakeDirectory())
    assert labelled.options == {"dice": "2d6+3", "label": "Damage: sword"}
    spaced = resolve(tree_bot.tree, "roll dice:1d20 label:Sneak attack", FakeDirectory())
    assert spaced.options == {"dice": "1d20", "label": "Sneak attack"}


async def test_user_role_and_channel_options_name_people_and_places(tree_bot: PbpBot) -> None:
    setup = resolve(
        tree_bot.tree,
        "campaign setup system:roll-under gm_role:@GM gm_channel:#gm",
        FakeDirectory(),
    )
    assert setup.options == {"system": "roll-under", "gm_role": "GM-ROLE", "gm_channel": "G"}
    shown = resolve(tree_bot.tree, "character show player:@alice", FakeDirectory())
    assert shown.options == {"player": "ALICE"}
    with pytest.raises(PlayError, match="no member 'zed'"):
        resolve(tree_bot.tree, "character show player:@zed", FakeDirectory())


def _with_ids() -> FakeDirectory:
    """Alice is user 11, the GM user 12, the GM role 21, #table 31 and #gm 32."""
    return FakeDirectory(
        members={"alice": SimpleNamespace(id=11), "gm": SimpleNamespace(id=12)},
        roles={"gm": SimpleNamespace(id=21)},
        channels={"table": SimpleNamespace(id=31), "gm": SimpleNamespace(id=32)},
    )


async def test_mentions_typed_in_text_options_are_sent_as_discord_sends_them(
    tree_bot: PbpBot,
) -> None:
    asked = resolve(
        tree_bot.tree, "gm request roll ability:DEX characters:Ann, @alice", _with_ids()
    )
    assert asked.options["characters"] == "Ann, <@11>"
    labelled = resolve(tree_bot.tree, "roll dice:1d20 label:@GM sees #gm, not @gm.", _with_ids())
    # The role only when spelled as the role is; "@gm" is the GM player; the "." stays.
    assert labelled.options["label"] == "<@&21> sees <#32>, not <@12>."


@pytest.mark.parametrize(
    "text",
    ["@zed and #nowhere", "mail me@home or a#gm", "<@11> <@&21> <#32>", "Attack #2 @ dawn"],
)
def test_text_that_names_nobody_here_stays_as_typed(text: str) -> None:
    assert mentions_in(text, _with_ids()) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("chek ability:DEX", "/chek is not a command of this bot. Did you mean check?"),
        ("check abilty:DEX", "/check has no option `abilty`. Did you mean ability?"),
        ("check advantage:true", "/check needs `ability`"),
        ("check ability:DEX dc:0", "`dc` must be a whole number from 1 to 100."),
        ("check ability:DEX dc:ten", "`dc` must be a whole number from 1 to 100."),
        ("check ability:DEX advantage:maybe", "`advantage` must be true or false."),
        ("campaign setup system:gurps", "`system` must be one of: pen-and-dagger"),
        ("campaign", "/campaign needs a subcommand"),
        ("campaign sett", "/campaign has no subcommand sett. Did you mean set?"),
        ("check ability:DEX ability:STR", "`ability` is given twice"),
        ('roll dice:"1d20', "never closes it"),
    ],
)
async def test_bad_commands_get_a_clear_message(tree_bot: PbpBot, text: str, message: str) -> None:
    with pytest.raises(PlayError) as raised:
        resolve(tree_bot.tree, text, FakeDirectory())
    assert message in str(raised.value)


async def test_text_after_a_command_without_options_is_refused(tree_bot: PbpBot) -> None:
    bare = next(path for path, command in command_paths(tree_bot.tree) if not command.parameters)
    with pytest.raises(PlayError, match=f"/{bare} takes no options"):
        resolve(tree_bot.tree, f"{bare} now", FakeDirectory())


async def test_a_question_mark_asks_for_suggestions_instead_of_running(
    tree_bot: PbpBot,
) -> None:
    asked = resolve(tree_bot.tree, "character set ability:?de value:3", FakeDirectory())
    assert asked.focus == ("ability", "de")
    assert asked.options == {"value": 3}
    # Required options may still be missing while asking.
    assert resolve(tree_bot.tree, "character use name:?a", FakeDirectory()).focus == ("name", "a")


async def test_tab_completes_people_commands_options_and_choices(tree_bot: PbpBot) -> None:
    people = ["gm", "alice", "bob"]
    tree, names = tree_bot.tree, FakeDirectory()
    assert complete(tree, people, names, "al") == ["alice>"]
    assert "/check" in complete(tree, people, names, "alice> /ch")
    assert "/character" in complete(tree, people, names, "alice> /ch")
    assert complete(tree, people, names, "gm> /campaign se") == ["seed", "set", "setup"]
    assert complete(tree, people, names, "alice> /seed ") == ["rotate", "show"]
    assert complete(tree, people, names, "/check ability:DEX adv") == ["advantage:"]
    assert complete(tree, people, names, "/check ability:DEX advantage:t") == ["advantage:true"]
    assert complete(tree, people, names, "/campaign setup system:pen") == ["system:pen-and-dagger"]
    assert complete(tree, people, names, "/campaign setup system:roll-under gm_channel:#") == [
        "gm_channel:#table",
        "gm_channel:#gm",
    ]
    # An option already given is not offered again.
    assert "ability:" not in complete(tree, people, names, "/check ability:DEX ")
    assert complete(tree, people, names, "switch b") == ["bob"]
