"""The text of a roll as a player types it in `[[…]]` or a saved roll: the options of the
matching slash command, or a refusal in the player's words that says what to type instead.

Tests bot/services/rolling/roll_text.py.
"""

from __future__ import annotations

import pytest

from bot.errors import UserError
from bot.services.rolling.roll_text import Command, RollTextError, parse_roll_text


@pytest.mark.parametrize("text", ["1d20+5", "4d6kh3 [fire]", "adv", "-1+d6"])
def test_plain_dice_notation_is_a_roll_of_itself(text: str) -> None:
    parsed = parse_roll_text(text)
    assert (parsed.command, parsed.dice) == (Command.ROLL, text)


def test_a_check_takes_its_ability_proficiency_flags_and_options_as_the_command_does() -> None:
    parsed = parse_roll_text("check DEX Thieves' Tools adv dc:15")
    assert parsed.command is Command.CHECK and parsed.check is not None
    assert (parsed.check.ability, parsed.check.proficiency) == ("DEX", "Thieves' Tools")
    assert (parsed.check.advantage, parsed.check.disadvantage, parsed.check.dc) == (True, False, 15)


def test_a_quoted_value_keeps_its_spaces_and_the_text_keeps_what_was_typed() -> None:
    parsed = parse_roll_text('check   WIT   helper:"Old Tom"')
    assert parsed.check is not None and parsed.check.helper == "Old Tom"
    assert parsed.text == 'check WIT helper:"Old Tom"'  # what the ledger's request shows


def test_a_save_an_attack_and_luck() -> None:
    save = parse_roll_text("save WIT")
    assert save.command is Command.SAVE and save.check is not None and save.check.ability == "WIT"
    attack = parse_roll_text("attack longsword ac:14 bonus:5")
    assert attack.command is Command.ATTACK and attack.attack is not None
    assert (attack.label, attack.attack.ac, attack.attack.bonus) == ("longsword", 14, 5)
    assert parse_roll_text("luck").command is Command.LUCK


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "Empty roll: type what you would after a slash, e.g. check DEX."),
        ("chekc DEX", "/chekc is not a command an inline roll or a saved roll can run. Did you "),
        ("check DEX dcc:12", "/check has no option `dcc`. Did you mean dc? Its options: ability,"),
        ("check DEX dc:500", "`dc` must be a whole number from 1 to 100."),
        ("attack ac:x", "`ac` must be a whole number from -1000 to 1000."),
        ("roll", "/roll needs `dice` (dice notation, e.g. 2d6+3 [fire])."),
        ("check DEX secret:blind", "An inline or saved roll is public: roll a secret one with "),
        ("1d20 " * 300, "A roll is at most 1000 characters."),
    ],
)
def test_a_bad_text_is_refused_in_the_players_words(text: str, words: str) -> None:
    with pytest.raises(RollTextError) as refused:
        parse_roll_text(text)
    assert str(refused.value).startswith(words)
    assert isinstance(refused.value, UserError)  # answered to the player, not an incident
