"""d20 check ruling 6: weapon and spell save DCs.

Tests bot/rules/d20_check/dcs.py.
"""

from __future__ import annotations

import pytest

from bot.rules import d20_check as d20
from bot.rules.errors import RulesError


def test_weapon_and_spell_dcs() -> None:
    assert d20.weapon_dc(d20.WeaponKind.MELEE, 3, 2) == 13
    assert d20.weapon_dc("ranged", 4, 3) == 15
    assert d20.weapon_dc(" Melee ", -1, 2) == 9
    assert d20.WeaponKind.MELEE.ability == "STR" and d20.WeaponKind.RANGED.ability == "DEX"
    assert d20.spell_save_dc(4, 3) == 15
    with pytest.raises(RulesError):
        d20.weapon_dc("thrown", 1, 2)
