"""d20 check ruling 7: item quality saves, their DCs and odds.

Tests bot/rules/d20_check/items.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.rules import d20_check as d20
from bot.rules.d20_check import (
    ItemQuality,
)
from bot.rules.errors import RulesError
from tests.scripted import ScriptedRandom


@pytest.mark.parametrize(
    ("quality", "magic", "terms"),
    [
        (None, 0, None),
        (ItemQuality.NOVICE, 0, None),
        (ItemQuality.YEOMAN, 0, None),
        (ItemQuality.ADEPT, 0, (10, 1)),
        (ItemQuality.MASTER, 0, (10, 2)),
        (ItemQuality.GRAND_MASTER, 0, (10, 3)),
        (None, 1, (9, 3)),  # magic: DC 10 − bonus, always +3
        (ItemQuality.NOVICE, 2, (8, 3)),
        (ItemQuality.ADEPT, 3, (7, 3)),
    ],
)
def test_quality_save_dcs(
    quality: ItemQuality | None, magic: int, terms: tuple[int, int] | None
) -> None:
    got = d20.quality_save_terms(quality, magic)
    assert (None if got is None else (got.dc, got.bonus)) == terms


def test_item_quality_save_roll() -> None:
    held = d20.item_quality_save(ScriptedRandom(8), ItemQuality.MASTER)
    assert (held.total, held.dc, held.saved, held.result.display) == (10, 10, True, "Saved")
    broke = d20.item_quality_save(ScriptedRandom(7), ItemQuality.MASTER)
    assert not broke.saved and broke.result is d20.ItemSaveResult.FAILED
    magic = d20.item_quality_save(ScriptedRandom(6), None, magic_bonus=1)
    assert magic.saved and magic.modifiers == (("magic +1 (Grand Master)", 3),)
    with pytest.raises(RulesError):
        d20.item_quality_save(ScriptedRandom(20), ItemQuality.YEOMAN)


@pytest.mark.parametrize("text", ["grand master", "Grand_Master", "GRANDMASTER"])
def test_item_quality_parse(text: str) -> None:
    assert ItemQuality.parse(text) is ItemQuality.GRAND_MASTER


def test_item_save_odds() -> None:
    assert d20.item_save_odds(ItemQuality.NOVICE) == 0
    assert d20.item_save_odds(ItemQuality.ADEPT) == Fraction(12, 20)  # d20 + 1 ≥ 10: 9..20
    assert d20.item_save_odds(None, 2) == Fraction(16, 20)  # d20 + 3 ≥ 8: 5..20
