"""Several rolls in one command: repeats (``6#4d6kh3``, Dice Maiden's ``6 4d6 k3``) and rolls
separated by ``;``, each with its own total, within the command's limits before any die.

Tests bot/dice/batch.py.
"""

from __future__ import annotations

import random

import pytest

from bot.dice import DiceError
from bot.dice.batch import parse_many, roll_many
from bot.dice.limits import MAX_ROLLS


def test_a_repeat_is_one_expression_rolled_that_many_times() -> None:
    batch = parse_many("6#4d6kh3")
    assert (batch.count, batch.text, batch.max_dice) == (6, "6#4d6kh3", 24)
    rolled = roll_many(batch, random.Random(5))
    assert len(rolled) == 6 and all(3 <= r.total <= 18 for r in rolled)


def test_rolls_separated_by_semicolons_keep_their_own_totals_and_labels() -> None:
    batch = parse_many("1d20+5 [attack]; 2d6+3 [damage]")
    assert (batch.count, batch.text) == (2, "1d20+5 [attack]; 2d6+3 [damage]")
    attack, damage = roll_many(batch, random.Random(1))
    assert 6 <= attack.total <= 25 and 5 <= damage.total <= 15


def test_dice_maidens_spelling_of_a_repeat_is_read_in_its_dialect_only() -> None:
    assert parse_many("6 4d6 k3", "dice-maiden").text == "6#4d6kh3"
    shortcut = parse_many("4cod", "dice-maiden")
    assert shortcut.notes == (
        "Dice Maiden dialect: read `4cod` (Chronicles of Darkness) as `4d10 t8 ie10`",
    )
    with pytest.raises(DiceError, match="pick the dice-maiden dialect"):
        parse_many("4cod")


@pytest.mark.parametrize("text", [f"{MAX_ROLLS + 1}#1d6", "1000#2d6"])
def test_more_rolls_than_a_command_shows_are_refused_before_any_die(text: str) -> None:
    with pytest.raises(DiceError, match=f"you can roll 1 to {MAX_ROLLS} at once"):
        parse_many(text)
