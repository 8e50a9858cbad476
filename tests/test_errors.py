"""Errors a player or GM can fix: every layer's is a UserError, answered with its own message
(the command tree's user_message), in words that are safe to show; anything else is an
incident with no message for the user.

Tests bot/errors.py, bot/dice/errors.py, bot/rules/errors.py and bot/services/kit/errors.py.
"""

from __future__ import annotations

import pytest

from bot.dice import parse
from bot.dice.errors import DiceError
from bot.errors import UserError
from bot.rules.errors import RulesError
from bot.services.kit import errors
from bot.tree import user_message


@pytest.mark.parametrize(
    "error",
    [
        DiceError("1d0: a die needs at least one side"),
        RulesError("Scores are 1 to 19."),
        errors.NotFound("No roll #12 in this campaign."),
        errors.InvalidValue("Choose channel, dm or off."),
        errors.NotAllowed("Only the campaign's GM can do that."),
    ],
)
def test_each_layers_error_is_answered_with_its_own_message(error: UserError) -> None:
    assert isinstance(error, UserError)
    assert user_message(error) == str(error) == error.message


def test_the_services_fixed_messages_say_what_to_do() -> None:
    assert str(errors.NoCampaign()) == "No campaign in this channel: a GM can run /campaign setup."
    assert str(errors.AlreadyRevealed()) == "That roll has already been revealed."
    assert "nothing was recorded; please try again" in str(errors.StorageUnavailable())


def test_fortune_errors_name_the_character_with_its_markdown_escaped() -> None:
    assert str(errors.NoFortuneLeft()) == "You have no fortune dice left."
    assert str(errors.NoFortuneLeft("*Jade*")) == "\\*Jade\\* has no fortune dice left."
    assert str(errors.FortuneAtMaximum(3, "Jade")) == (
        "Jade already has the maximum of 3 fortune dice."
    )


def test_a_dice_error_from_the_engine_reaches_the_player_and_an_unexpected_error_does_not() -> None:
    with pytest.raises(DiceError) as refused:
        parse("1d6+")
    assert user_message(refused.value) == str(refused.value)
    assert user_message(KeyError("secret internals")) is None
