"""Roll-under in the rule-system registry: a save reads as the rule text says it (pass on the
score or lower), in every view, and a group's verdict names who passed.

Tests bot/rules/systems/roll_under.py.
"""

from __future__ import annotations

from bot.rules import roll_under as ru
from bot.rules.systems import Tone, system_for
from bot.services.kit.serialize import to_jsonable
from tests.scripted import ScriptedRandom

ROLL_UNDER = system_for("roll-under")
AGI = ru.Ability.parse("AGI")


def test_a_save_on_the_score_passes_and_one_over_fails() -> None:
    on = ru.save(12, ScriptedRandom(12), ability=AGI)
    over = ru.save(12, ScriptedRandom(13), ability=AGI)
    assert (ROLL_UNDER.read(on).passed, ROLL_UNDER.read(on).tone) == (True, Tone.SUCCESS)
    assert (ROLL_UNDER.read(over).passed, ROLL_UNDER.read(over).tone) == (False, Tone.FAILURE)
    assert ROLL_UNDER.one_line(on) == "d20 **12** against AGI 12 → **Pass**"
    assert ROLL_UNDER.one_line(over) == "d20 **13** against AGI 12 → **Fail**"
    assert ROLL_UNDER.summarize(on, "AGI save") == (
        "Pass (12 vs 12)",
        "AGI save: d20 12 against AGI 12 (pass on ≤)",
    )


def test_a_stored_save_comes_back_whole() -> None:
    saved = ru.save(7, ScriptedRandom(3), ability=AGI)
    assert ROLL_UNDER.outcome_from_record(to_jsonable(saved)) == saved


def test_a_group_verdict_names_who_passed_and_who_failed() -> None:
    decided, text = ROLL_UNDER.group_verdict(["Ayla"], ["Bram", "Cole"], 3, None)
    assert decided is None  # roll-under has no group rule: the GM reads the names
    assert text == "Pass: Ayla · Fail: Bram, Cole"
