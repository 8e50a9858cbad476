"""Fortune dice arithmetic (ruling 6) and the trade's gain (ruling 5)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.errors import RulesError
from bot.rules.pen_and_dagger import (
    FortuneChange,
    FortunePurpose,
    fortune_max,
    gain_fortune,
    spend_fortune,
)


def test_fortune_maximum_is_two_or_four_with_the_boon() -> None:
    assert fortune_max(False) == 2
    assert fortune_max(True) == 4


def test_four_purposes() -> None:
    assert {purpose.value for purpose in FortunePurpose} == {"hint", "escape", "item", "reroll"}


def test_gain_below_the_maximum() -> None:
    assert gain_fortune(0, 2) == FortuneChange(before=0, after=1, maximum=2)
    assert gain_fortune(1, 2).after == 2


def test_gain_at_the_maximum_is_clamped() -> None:
    change = gain_fortune(2, 2)
    assert change.after == 2 and change.delta == 0
    assert gain_fortune(3, 4, amount=5).after == 4


def test_spend_records_its_purpose() -> None:
    change = spend_fortune(2, 2, FortunePurpose.HINT)
    assert change == FortuneChange(before=2, after=1, maximum=2, purpose=FortunePurpose.HINT)
    assert change.delta == -1


def test_spend_refused_at_zero() -> None:
    with pytest.raises(RulesError, match="You have no fortune dice left"):
        spend_fortune(0, 2, FortunePurpose.REROLL)


@pytest.mark.parametrize(("current", "maximum"), [(-1, 2), (3, 2), (5, 4), (0, -1)])
def test_counts_outside_the_range_are_refused(current: int, maximum: int) -> None:
    with pytest.raises(RulesError):
        gain_fortune(current, maximum)
    with pytest.raises(RulesError):
        spend_fortune(current, maximum, FortunePurpose.ITEM)


operations = st.lists(st.one_of(st.none(), st.sampled_from(list(FortunePurpose))), max_size=40)


@given(st.booleans(), st.integers(min_value=0, max_value=4), operations)
def test_fortune_never_leaves_zero_to_maximum(
    boon: bool, start: int, ops: list[FortunePurpose | None]
) -> None:
    maximum = fortune_max(boon)
    current = min(start, maximum)
    for op in ops:
        try:
            change = (
                gain_fortune(current, maximum)
                if op is None
                else spend_fortune(current, maximum, op)
            )
        except RulesError:
            assert op is not None and current == 0  # only an empty spend is refused
            continue
        assert change.before == current
        current = change.after
        assert 0 <= current <= maximum
