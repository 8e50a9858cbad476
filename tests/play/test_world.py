"""The offline table's simulated server is built from the names a person chose: each checked
first, in their words, before anything starts.

Tests bot/play/_world.py.
"""

from __future__ import annotations

from bot.play._world import DEFAULT_GM, DEFAULT_PLAYERS, check_names


def test_the_default_table_and_plain_names_are_fine() -> None:
    assert check_names(DEFAULT_GM, list(DEFAULT_PLAYERS)) == []
    assert check_names("the_gm", ["ann-1", "b.o"]) == []


def test_each_problem_with_the_names_is_said_once() -> None:
    assert check_names("GM", ["alice"]) == [
        "'GM': use 1-32 lowercase letters, digits, '_', '.' or '-' for a name"
    ]
    assert check_names("gm", ["click"]) == [
        "'click' is a word of the table itself; pick another name"
    ]
    assert check_names("gm", ["alice", "alice"]) == ["every person needs a different name"]
    assert check_names("gm", []) == ["the table needs at least one player"]
    assert len(check_names("a" * 33, ["alice"])) == 1
