"""Nobody can pass for someone else: names compared by what a reader sees, invisible marks
refused, the bot's name reserved, every post traceable to its player, declarations naming
the member."""

from __future__ import annotations

import pytest

from bot.services.kit.errors import InvalidValue
from bot.services.kit.names import check_name, hidden_characters, skeleton
from tests.fixtures.table import Table, embed_text, make_character, message_text, start_campaign

message_text_of = embed_text

LOOK_ALIKES = [
    "\u0410yla",  # Cyrillic А
    "Ayla\u200b",  # a zero-width space after it
    "Ay\u200dla",  # a zero-width joiner inside
    "\U0001d400\U0001d432\U0001d425\U0001d41a",  # mathematical bold 𝐀𝐲𝐥𝐚
    "\uff21\uff59\uff4c\uff41",  # fullwidth Ａｙｌａ
    "Ay1a",  # a digit one for the l
    "AYLA",
]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_names_that_read_as_ayla_share_her_skeleton(name: str) -> None:
    assert skeleton(name) == skeleton("Ayla")


@pytest.mark.parametrize("name", ["Ayla", "Ayle", "Ayl", "Aýla", "Bram"])
def test_names_that_read_differently_do_not(name: str) -> None:
    assert (skeleton(name) == skeleton("Ayla")) is (name == "Ayla")


def test_m_and_rn_are_one_skeleton_as_tr39_says() -> None:
    assert skeleton("Mira") == skeleton("rnira")


@pytest.mark.parametrize(
    "name",
    [
        "Ayla\u200b",
        "Ay\u200dla",
        "\u202eayla",
        "Ayla\u2066",
        "Ay\u00adla",
        "Ayla\u3164",
        "A\ufe0fyla",
    ],
)
def test_invisible_and_direction_marks_are_refused(name: str) -> None:
    assert hidden_characters(name)
    with pytest.raises(InvalidValue, match="invisible or direction-changing"):
        check_name(name, "character name")


def test_a_name_reading_as_the_bots_is_refused() -> None:
    with pytest.raises(InvalidValue, match="the bot's own name"):
        check_name("PBP-DlCE", "character name", reserved=("pbp-dice",))


async def test_a_look_alike_of_anothers_character_is_refused(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    for name in ("\u0410yla", "Ayla\u200b", "Ay1a"):
        result = await table.bob.slash(table.table, "character create", name=name)
        assert result.response is not None and result.ephemeral
        text = result.response.content
        assert "reads the same as" in text or "invisible" in text, text
    listed = await table.gm.slash(table.table, "character list")
    assert listed.response is not None
    assert "Ayla" in message_text(listed.response)
    assert "\u0410yla" not in message_text(listed.response)


async def test_a_character_cannot_take_the_bots_name(table: Table) -> None:
    await start_campaign(table, "d20-check")
    me = table.bot.user
    assert me is not None
    for name in (me.name, me.name.upper(), "pbp-dice"):
        result = await table.bob.slash(table.table, "character create", name=name)
        assert result.response is not None and result.ephemeral
        assert "the bot's own name" in result.response.content


# --------------------------------------------------------------------------- who posted this


# --------------------------------------------------------------------------- declarations


async def test_a_declaration_without_a_character_names_the_member_not_just_the_nickname(
    table: Table,
) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Sybilla", {"DEX": 14})
    # Dave's trick: no character, and a server nickname reading as her character's name.
    dave = table.guild.add_member(table.env.create_user("dave"), nick="Sybilla")
    await table.gm.slash(table.table, "gm round open")
    mine = await table.alice.slash(table.table, "declare", text="I fight.")
    theirs = await dave.slash(table.table, "declare", text="I flee.")
    assert mine.response is not None and theirs.response is not None
    assert f"<@{table.alice.id}>" in message_text(mine.response)
    assert "Sybilla has declared" in message_text(theirs.response)
    assert f"<@{dave.id}>" in message_text(theirs.response)
    status = await table.gm.slash(table.table, "gm round status")
    assert status.response is not None
    shown = message_text(status.response)
    assert f"(<@{table.alice.id}>)" in shown and f"(<@{dave.id}>)" in shown
    revealed = await table.gm.slash(table.table, "gm round reveal")
    embeds = [e for m in [revealed.response, *revealed.followups] for e in m.embeds]
    fled = next(e for e in embeds if e.description == "I flee.")
    assert f"<@{dave.id}>" in message_text_of(fled)
