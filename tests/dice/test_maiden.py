"""Dice Maiden's game-system shortcuts, expanded into this bot's dice as Dice Maiden reads them,
each answer naming what Dice Maiden would also show; the ones it cannot read say what to write.

Tests bot/dice/maiden.py (the readings against Dice Maiden's own are
tests/dice/test_peer_readings.py).
"""

from __future__ import annotations

from bot.dice import parse
from bot.dice.maiden import expand, unreadable


def test_a_shortcut_expands_to_dice_this_bot_parses() -> None:
    found = expand("4cod")
    assert found is not None and (found.text, found.repeat) == ("4d10 t8 ie10", 1)
    assert (
        found.note == "Dice Maiden dialect: read `4cod` (Chronicles of Darkness) as `4d10 t8 ie10`"
    )
    parse(found.text, "dice-maiden")  # within every limit, as if the player typed it


def test_what_dice_maiden_shows_besides_the_number_is_named_in_the_note() -> None:
    found = expand("alien4s2")
    assert found is not None and found.text == "4d6=6 + 2d6=6"
    assert found.note.endswith(
        "Dice Maiden also shows a panic roll (1d6 + stress) when a stress "
        "die shows 1, left out here"
    )


def test_math_after_a_shortcut_follows_its_dice() -> None:
    found = expand("ex5 + 2")
    assert found is not None and found.text == "5d10 t7 t10 + 2"


def test_anything_else_is_not_a_shortcut_and_the_unreadable_say_what_to_write() -> None:
    assert expand("nope") is None and expand("1d20") is None
    assert unreadable("1d20") is None
    said = unreadable("cd4 + 2")
    assert said is not None and said.startswith("`cd4 + 2`: Dice Maiden's Conan shows the ")
