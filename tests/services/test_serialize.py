"""Stored outcomes name their rule system, and are rebuilt by that system's decoder."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from bot.rules import d20_check, roll_under, threshold
from bot.rules import pen_and_dagger as pd
from bot.rules.systems import Reading, Tone, outcome_from_record
from bot.rules.systems.base import SYSTEM_FIELD, Defaults
from bot.services.kit.serialize import to_jsonable


def _outcomes() -> list[tuple[Any, str]]:
    rng = random.Random(11)
    return [
        (pd.attempt(pd.Rank.parse("Trained"), rng), "pen-and-dagger"),
        (pd.luck_roll(rng), "pen-and-dagger"),
        (roll_under.save(12, rng, ability=roll_under.Ability.parse("AGI")), "roll-under"),
        (threshold.roll_test(2, 12, rng, attribute="DEX"), "threshold"),
        (
            d20_check.roll_check(
                d20_check.CheckInput(score=14, ability="STR", level=3, advantage=True), rng, dc=12
            ),
            "d20-check",
        ),
    ]


@pytest.mark.parametrize(("outcome", "key"), _outcomes())
def test_a_stored_outcome_names_its_system_and_comes_back_whole(outcome: Any, key: str) -> None:
    stored = to_jsonable(outcome)
    assert stored[SYSTEM_FIELD] == key
    assert outcome_from_record(stored) == outcome


@pytest.mark.parametrize(("outcome", "key"), _outcomes())
def test_a_row_stored_before_the_key_still_comes_back_by_its_shape(outcome: Any, key: str) -> None:
    older = {k: v for k, v in to_jsonable(outcome).items() if k != SYSTEM_FIELD}
    assert outcome_from_record(older) == outcome


def test_a_key_no_system_has_decodes_to_nothing() -> None:
    stored = to_jsonable(_outcomes()[2][0])
    assert outcome_from_record({**stored, SYSTEM_FIELD: "gurps"}) is None


@dataclass(frozen=True, slots=True)
class Draw:
    """A card game's outcome whose fields are the ones roll-under's saves store."""

    score: int
    roll: int
    result: str


@dataclass(frozen=True)
class Cards(Defaults):
    key: str = "cards"
    name: str = "Cards"
    outcome_types: tuple[type, ...] = (Draw,)

    def read(self, outcome: Any) -> Reading:
        return Reading((outcome.roll,), outcome.result, None, Tone.NEUTRAL)

    def outcome_from_record(self, data: Mapping[str, Any]) -> Any | None:
        return Draw(int(data["score"]), int(data["roll"]), str(data["result"]))


@pytest.mark.rule_systems(Cards())
@pytest.mark.usefixtures("rule_systems")
def test_a_new_system_may_store_any_shape_its_key_decides() -> None:
    # Told apart by shape, roll-under (registered first) would claim this row.
    draw = Draw(score=5, roll=9, result="queen")
    stored = to_jsonable(draw)
    assert stored == {"score": 5, "roll": 9, "result": "queen", SYSTEM_FIELD: "cards"}
    assert outcome_from_record(stored) == draw
