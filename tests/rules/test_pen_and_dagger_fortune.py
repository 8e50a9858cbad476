"""Fortune dice (ruling 6): the maximum, the four purposes, and the counts a roll refuses.

The count itself changes atomically in SQL (bot/services/store/fortune.py, tested in
tests/services/test_svc_fortune.py); the rules only read it.
"""

from __future__ import annotations

import pytest

from bot.rules.errors import RulesError
from bot.rules.pen_and_dagger import check_fortune
from bot.words import FortunePurpose, fortune_maximum


def test_fortune_maximum_is_two_or_four_with_the_boon() -> None:
    assert fortune_maximum(False) == 2
    assert fortune_maximum(True) == 4


def test_four_purposes() -> None:
    assert {purpose.value for purpose in FortunePurpose} == {"hint", "escape", "item", "reroll"}


@pytest.mark.parametrize(("current", "maximum"), [(0, 2), (2, 2), (4, 4), (0, 0)])
def test_counts_in_the_range_are_accepted(current: int, maximum: int) -> None:
    check_fortune(current, maximum)


@pytest.mark.parametrize(("current", "maximum"), [(-1, 2), (3, 2), (5, 4), (0, -1)])
def test_counts_outside_the_range_are_refused(current: int, maximum: int) -> None:
    with pytest.raises(RulesError):
        check_fortune(current, maximum)
