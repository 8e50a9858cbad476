"""Messages in the player's words, as Discord shows them to the player.

No validation library's text, one minus sign (U+2212) for every negative number and
subtraction the bot writes, nouns that agree with their number, no option a command does not
have, refusals that name the campaign's system, and the threshold system's own word.
"""

from __future__ import annotations

import re
from typing import Any

from tests.fixtures.table import (
    Table,
    answered_ephemeral,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)

#: Words of pydantic's messages ("List should have at least 1 item after validation, not 0").
LIBRARY = ("validation", "List should", "String should", "Input should", "[type=", "pydantic")
#: An ASCII hyphen used as a minus: before a digit, not inside a word or an id.
ASCII_MINUS = re.compile(r"(?<![\w\-<@#:])-\s?\d")


def _shown(result: Any) -> str:
    return message_text(final_answer(result))


async def test_bad_ability_names_are_refused_in_the_gms_words(table: Table) -> None:
    await start_campaign(table, "threshold")
    before = _shown(await table.gm.slash(table.table, "campaign show"))
    for names, says in [
        (",,,", "Name at least one ability"),
        ("Might, might", "“might” appears twice in the ability names"),
        ("Mana:max", "“Mana:max” is not one"),
        (", ".join(f"A{n}" for n in range(17)), "at most 16 abilities"),
    ]:
        refused = await table.gm.slash(table.table, "campaign set abilities", names=names)
        assert answered_ephemeral(refused)
        text = _shown(refused)
        assert says in text, text
        assert not any(word in text for word in LIBRARY), text
    assert _shown(await table.gm.slash(table.table, "campaign show")) == before


async def test_every_negative_number_has_the_same_minus_sign(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"STR": 1})  # modifier −5
    rolled = await table.alice.slash(table.table, "roll", dice="1d4-10-(2-1)")
    text = _shown(rolled)
    assert "Total: −" in text and " − 10 − (2 − 1) = −" in text, text
    table.dice(2)
    checked = await table.alice.slash(table.table, "check", ability="STR", dc=5)
    text = _shown(checked)
    assert "−5" in text and "= **−3**" in text, text
    odds = _shown(await table.alice.slash(table.table, "odds roll", dice="1d6-4"))
    assert "−3" in odds
    history = _shown(await table.alice.slash(table.table, "history"))
    sheet = _shown(await table.alice.slash(table.table, "character show"))
    for shown in (_shown(rolled), _shown(checked), history, sheet):
        assert ASCII_MINUS.search(shown) is None, shown


async def test_one_d20_is_not_one_d20s(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"STR": 12})
    await table.alice.slash(table.table, "check", ability="STR")
    text = _shown(await table.gm.slash(table.table, "stats"))
    assert f"<@{table.alice.id}>: 1 d20," in text and "1 d20s" not in text
    await table.alice.slash(table.table, "check", ability="STR")
    assert f"<@{table.alice.id}>: 2 d20s" in _shown(await table.gm.slash(table.table, "stats"))


async def test_groupsave_on_an_empty_party_suggests_only_what_it_has(table: Table) -> None:
    await start_campaign(table, "d20-check")
    refused = await table.gm.slash(table.table, "groupsave", ability="DEX", dc=10)
    text = _shown(refused)
    assert answered_ephemeral(refused) and "/party add" in text
    assert "characters" not in text.replace("add characters", ""), text
    # A roll request has the option: there it is suggested.
    asked = await table.gm.slash(table.table, "gm request roll", ability="DEX")
    assert "name them with characters:" in _shown(asked)


async def test_pen_and_dagger_refusals_name_the_campaigns_system(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"STR": 12})
    for command, options in [
        ("fortune show", {}),
        ("luck", {}),
        ("abilities roll", {"players": table.bob.mention}),
    ]:
        actor = table.gm if command == "abilities roll" else table.alice
        refused = await actor.slash(table.table, command, **options)
        assert answered_ephemeral(refused)
        shown = _shown(refused)
        assert shown.startswith("This campaign plays d20 check; "), command
        assert "is for Pen & Dagger" in shown and shown.endswith("Nothing changed."), command


async def test_a_threshold_request_is_revealed_as_a_threshold(table: Table) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Ann", {"STR": 1})
    await table.gm.slash(table.table, "gm request roll", ability="STR", characters="Ann")
    nothing = await table.gm.slash(table.table, "gm request reveal")
    assert "hidden threshold" in _shown(nothing) and "DC" not in _shown(nothing)
    await table.gm.slash(
        table.table, "gm request roll", ability="STR", characters="Ann", hidden_dc=12
    )
    revealed = await table.gm.slash(table.table, "gm request reveal")
    text = _shown(revealed)
    assert "threshold 12" in text and "DC" not in text, text
