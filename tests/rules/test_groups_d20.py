"""d20 check rulings 8 and 9: working together gives the leader advantage, a group check
succeeds when at least half succeed.

Tests bot/rules/d20_check/groups.py.
"""

from __future__ import annotations

import pytest

from bot.rules import d20_check as d20
from bot.rules.common import Advantage
from bot.rules.d20_check import (
    CheckResult,
)
from bot.rules.errors import RulesError
from tests.rules.test_d20_check import _check
from tests.scripted import ScriptedRandom


def test_working_together_gives_the_leader_advantage() -> None:
    rng = ScriptedRandom(4, 16)
    outcome = d20.working_together(_check(12), {"Bo": True, "Cy": False}, rng, dc=15)
    assert outcome.leader.advantage is Advantage.ADVANTAGE and outcome.leader.kept == 16
    assert outcome.helpers == ("Bo",) and outcome.turned_away == ("Cy",)
    assert outcome.leader.result is CheckResult.SUCCESS


def test_helpers_who_could_not_attempt_it_alone_do_not_count() -> None:
    rng = ScriptedRandom(4)  # a single die
    outcome = d20.working_together(_check(12), {"Cy": False}, rng)
    assert outcome.leader.advantage is Advantage.NONE and outcome.helpers == ()


def test_help_cancels_against_disadvantage() -> None:
    rng = ScriptedRandom(4)
    outcome = d20.working_together(_check(12, disadvantage=True), {"Bo": True}, rng)
    assert outcome.leader.advantage is Advantage.NONE


@pytest.mark.parametrize(
    ("rolls", "successes", "result"),
    [
        ([15, 15, 1, 1], 2, d20.GroupResult.SUCCESS),  # exactly half counts
        ([15, 1, 1, 1], 1, d20.GroupResult.FAILURE),
        ([15, 15, 15, 15], 4, d20.GroupResult.SUCCESS),
    ],
)
def test_group_check_at_least_half(
    rolls: list[int], successes: int, result: d20.GroupResult
) -> None:
    members = {name: _check(10) for name in ("A", "B", "C", "D")}
    outcome = d20.group_check(members, ScriptedRandom(*rolls), dc=10)
    assert outcome.successes == successes and outcome.result is result
    assert [name for name, _ in outcome.members] == ["A", "B", "C", "D"]
    assert outcome.needed == 2


def test_group_check_odd_sizes_round_up() -> None:
    members = {name: _check(10) for name in ("A", "B", "C")}
    assert not d20.group_check(members, ScriptedRandom(15, 1, 1), dc=10).succeeded
    assert d20.group_check(members, ScriptedRandom(15, 15, 1), dc=10).succeeded
    with pytest.raises(RulesError):
        d20.group_check({}, ScriptedRandom(), dc=10)


def test_group_check_members_carry_their_names() -> None:
    outcome = d20.group_check({"Ana": _check(10)}, ScriptedRandom(12), dc=10)
    assert outcome.members[0][1].name == "Ana"
