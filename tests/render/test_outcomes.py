"""A stored roll's result in its system's words, as every later view shows it (/gm reveal,
/verify, /history, /gm log): from the ledger row alone, and never an error for a shape it does
not know.

Tests bot/render/outcomes.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.render.outcomes import outcome_words
from bot.rules import d20_check
from bot.rules import roll_under as ru
from bot.services.kit.serialize import to_jsonable
from bot.services.store.ledger import RollView
from bot.words import Visibility
from tests.scripted import ScriptedRandom


def _row(kind: str, dice: Any, outcome: Any) -> RollView:
    return RollView(
        id=1,
        campaign_id=1,
        character_id=None,
        character_name=None,
        guild_id=10,
        channel_id=20,
        user_id=30,
        interaction_id=None,
        kind=kind,
        request="/roll",
        dice=dice,
        outcome=outcome,
        visibility=Visibility.PUBLIC,
        created_at=datetime(2026, 1, 2, tzinfo=UTC),
        commitment=None,
        salt=None,
        revealed_at=None,
        scope_id=20,
        number=1,
        who="",
        chain="",
        format=2,
        legacy_campaign_id=None,
    )


def _dice(*faces: int) -> list[dict[str, Any]]:
    return [{"dice": [{"face": face} for face in faces]}]


def test_a_stored_save_reads_as_its_system_wrote_the_live_result() -> None:
    save = ru.save(12, ScriptedRandom(12), ability=ru.Ability.parse("AGI"))
    assert outcome_words(_row("save", [12], to_jsonable(save))) == (
        "d20 **12** against AGI 12 → **Pass**"
    )


def test_a_dice_roll_shows_its_faces_and_total() -> None:
    assert outcome_words(_row("roll", _dice(3, 5), {"total": 8})) == "dice 3, 5 · **Total: 8**"
    negative = outcome_words(_row("roll", _dice(1), {"total": -2}))
    assert negative.endswith("**Total: −2**")  # the one minus sign of every message


def test_a_big_roll_stays_one_line() -> None:
    words = outcome_words(_row("roll", _dice(*[6] * 25), {"total": 150}))
    assert words.count("6") == 20 and "… (25 dice)" in words


def test_several_rolls_show_each_total() -> None:
    assert outcome_words(_row("roll", [], {"totals": [3, 12]})) == "**Totals: 3, 12**"


def test_a_shape_it_does_not_know_shows_what_the_row_has_never_an_error() -> None:
    assert outcome_words(_row("check", [7], {"from": "an older version"})) == "dice 7"
    assert outcome_words(_row("luck", [15], {"die": 15, "lucky": True})) == "dice 15 · Lucky"
    assert outcome_words(_row("check", None, "not even a mapping")) == "recorded"


def test_a_stored_d20_contest_reads_both_totals_and_the_winner() -> None:
    a = d20_check.CheckInput(score=16, ability="STR", level=1, name="Ann")
    b = d20_check.CheckInput(score=10, ability="STR", level=1, name="Bo")
    decided = d20_check.contest(a, b, ScriptedRandom(15, 4))  # 15+3 against 4+0
    row = _row("contest", [], {"contest": to_jsonable(decided)})
    assert outcome_words(row) == "Ann 18 against Bo 4 → **Ann wins**"


def test_a_stored_roll_under_contest_reads_its_ranking_and_rounds() -> None:
    # Ruling 3: score − d20; the tie between Bo and Cy is re-rolled in a second round.
    decided = ru.contest({"Ann": 15, "Bo": 12, "Cy": 12}, ScriptedRandom(1, 5, 5, 3, 9))
    row = _row("contest", [], {"contest": to_jsonable(decided)})
    assert outcome_words(row) == "**Ann wins** · ranking 1. Ann, 2. Bo, 3. Cy · 2 rounds"


def test_a_stored_attack_reads_its_result_damage_and_the_armour_it_cost() -> None:
    hit = d20_check.attack_roll(ScriptedRandom(20), ac=15, attack_bonus=5, crit_rules=True)
    data = {"attack": to_jsonable(hit), "damage": {"total": 9}, "ac_lost": 1}
    assert outcome_words(_row("attack", [], data)) == (
        "d20 20 +5 attack bonus = **25** · AC 15 → **Critical Hit** · 9 damage · AC −1"
    )
    missed = d20_check.attack_roll(ScriptedRandom(1), ac=15, attack_bonus=5, crit_rules=True)
    assert outcome_words(_row("attack", [], {"attack": to_jsonable(missed)})).endswith(
        "→ **Miss** · fumble"
    )
