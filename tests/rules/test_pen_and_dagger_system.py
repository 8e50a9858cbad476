"""Pen & Dagger in the rule-system registry: attempts read by their success level and rank,
luck rolls by the 10 they need, and both come back whole from the ledger.

Tests bot/rules/systems/pen_and_dagger.py.
"""

from __future__ import annotations

from bot.rules import pen_and_dagger as pd
from bot.rules.systems import Tone, system_for
from bot.rules.systems.pen_and_dagger import is_luck
from bot.services.kit.serialize import to_jsonable
from tests.scripted import ScriptedRandom

PEN_AND_DAGGER = system_for("pen-and-dagger")
TRAINED = pd.Rank.parse("Trained")


def test_an_attempt_reads_as_its_success_level_and_rank() -> None:
    natural_20 = pd.attempt(TRAINED, ScriptedRandom(20))
    natural_1 = pd.attempt(TRAINED, ScriptedRandom(1))
    assert PEN_AND_DAGGER.read(natural_20).tone is Tone.CRITICAL_SUCCESS
    assert PEN_AND_DAGGER.one_line(natural_20) == "d20 **20** · Rank Trained → **Critical Success**"
    assert PEN_AND_DAGGER.read(natural_1).tone is Tone.CRITICAL_FAILURE
    assert not is_luck(natural_20)


def test_a_luck_roll_reads_by_the_ten_it_needs() -> None:
    unlucky = pd.luck_roll(ScriptedRandom(5))
    assert is_luck(unlucky)
    assert (PEN_AND_DAGGER.read(unlucky).passed, PEN_AND_DAGGER.read(unlucky).result) == (
        False,
        "Not lucky",
    )
    assert PEN_AND_DAGGER.one_line(unlucky) == "d20 **5** (lucky on 10 or higher) → **Not lucky**"


def test_attempts_and_luck_rolls_come_back_whole_from_the_ledger() -> None:
    for outcome in (pd.attempt(TRAINED, ScriptedRandom(14)), pd.luck_roll(ScriptedRandom(12))):
        assert PEN_AND_DAGGER.outcome_from_record(to_jsonable(outcome)) == outcome
