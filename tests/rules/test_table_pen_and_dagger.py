"""The Success Table and the Ability Scores table, cell by cell, transcribed from the rule text
(shared/rules/pen-and-dagger.txt) independently of the implementation's representation.

Tests bot/rules/pen_and_dagger/table.py.
"""

from __future__ import annotations

import pytest

from bot.rules.errors import RulesError
from bot.rules.pen_and_dagger import (
    Rank,
    SuccessLevel,
    ability_modifier,
    ability_rank,
    table_level,
)

# "The Success Table", copied from the rule text (columns: Failure Limited Normal Major Critical).
SUCCESS_TABLE_TEXT = """
Godlike     -     1-4   5-10   11-14  15+
Legendary   1     2-5   6-11   12-15  16+
Epic        1-2   3-6   7-12   13-16  17+
Master      1-3   4-7   8-13   14-17  18+
Adept       1-4   5-8   9-14   15-18  19+
Trained     1-5   6-9   10-15  16-19  20
Novice      1-6   7-10  11-16  17-19  20
Untrained   1-7   8-11  12-17  18-19  20
Inept       1-8   9-12  13-18  19     20
Hopeless    1-9   10-13 14-19  20     -
Doomed      1-10  11-14 15-20  -      -
"""
COLUMNS = [
    SuccessLevel.FAILURE,
    SuccessLevel.LIMITED,
    SuccessLevel.NORMAL,
    SuccessLevel.MAJOR,
    SuccessLevel.CRITICAL_SUCCESS,
]
# "Critical failures occur on a roll of 1, unless your rank for the attempt was Legendary or
# Godlike" (ruling 1).
NATURAL_1_CRITICAL = {"Doomed", "Hopeless", "Inept", "Untrained", "Novice", "Trained", "Adept",
                      "Master", "Epic"}  # fmt: skip


def faces(cell: str) -> list[int]:
    """Expand one cell of the text: "-", "7", "6-9", "15+"."""
    if cell == "-":
        return []
    if cell.endswith("+"):
        return list(range(int(cell[:-1]), 21))
    if "-" in cell:
        low, high = cell.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(cell)]


def expand_success_table() -> dict[tuple[str, int], SuccessLevel]:
    cells: dict[tuple[str, int], SuccessLevel] = {}
    for line in SUCCESS_TABLE_TEXT.strip().splitlines():
        name, *row = line.split()
        assert len(row) == 5
        for column, cell in zip(COLUMNS, row, strict=True):
            for face in faces(cell):
                assert (name, face) not in cells, f"{name} {face} in two columns"
                level = column
                if face == 1 and name in NATURAL_1_CRITICAL:
                    assert column is SuccessLevel.FAILURE  # the text lists 1 under Failure
                    level = SuccessLevel.CRITICAL_FAILURE
                cells[name, face] = level
    return cells


EXPECTED_CELLS = expand_success_table()


def test_transcription_covers_every_cell_once() -> None:
    assert len(EXPECTED_CELLS) == 220
    for name in {name for name, _ in EXPECTED_CELLS}:
        assert sorted(face for n, face in EXPECTED_CELLS if n == name) == list(range(1, 21))


@pytest.mark.parametrize(
    ("rank_name", "face", "expected"),
    [(name, face, level) for (name, face), level in sorted(EXPECTED_CELLS.items())],
)
def test_success_table_cell(rank_name: str, face: int, expected: SuccessLevel) -> None:
    assert table_level(Rank.parse(rank_name), face) is expected


def test_natural_one_exceptions() -> None:
    """Ruling 1: natural 1 is Failure for Legendary and Limited for Godlike; else Critical."""
    assert table_level(Rank.LEGENDARY, 1) is SuccessLevel.FAILURE
    assert table_level(Rank.GODLIKE, 1) is SuccessLevel.LIMITED
    for rank in Rank:
        if rank <= Rank.EPIC:
            assert table_level(rank, 1) is SuccessLevel.CRITICAL_FAILURE


def test_critical_failure_only_on_natural_one() -> None:
    for rank in Rank:
        for face in range(2, 21):
            assert table_level(rank, face) is not SuccessLevel.CRITICAL_FAILURE


@pytest.mark.parametrize("face", [0, 21, -3])
def test_table_rejects_impossible_faces(face: int) -> None:
    with pytest.raises(ValueError):
        table_level(Rank.TRAINED, face)


def test_ranks_are_ordered_doomed_to_godlike_with_display_names() -> None:
    names = [line.split()[0] for line in SUCCESS_TABLE_TEXT.strip().splitlines()]
    assert [rank.display_name for rank in sorted(Rank)] == list(reversed(names))
    assert Rank.DOOMED < Rank.UNTRAINED < Rank.TRAINED < Rank.GODLIKE
    assert str(Rank.TRAINED) == "Trained"


def test_success_levels_ordered_with_display_names() -> None:
    assert [level.display_name for level in sorted(SuccessLevel)] == [
        "Critical Failure",
        "Failure",
        "Limited Success",
        "Normal Success",
        "Major Success",
        "Critical Success",
    ]
    assert str(SuccessLevel.LIMITED) == "Limited Success"


@pytest.mark.parametrize(
    ("text", "rank"),
    [("trained", Rank.TRAINED), ("GODLIKE", Rank.GODLIKE), (" Doomed ", Rank.DOOMED),
     ("uNtRaInEd", Rank.UNTRAINED)],
)  # fmt: skip
def test_rank_parse_is_case_insensitive(text: str, rank: Rank) -> None:
    assert Rank.parse(text) is rank


@pytest.mark.parametrize("text", ["", "expert", "train", "5"])
def test_rank_parse_lists_valid_names(text: str) -> None:
    with pytest.raises(RulesError) as caught:
        Rank.parse(text)
    message = str(caught.value)
    for rank in Rank:
        assert rank.display_name in message


# "Ability Scores" table, copied from the rule text. "-" in the modifier column means 0.
ABILITY_TABLE_TEXT = """
1      -5   Doomed
2-3    -4   Hopeless
4-5    -3   Inept
6-7    -2   Untrained
8-9    -1   Novice
10-11  -    Trained
12-13  +1   Trained
14-15  +2   Adept
16-17  +3   Adept
18-19  +4   Master
20-21  +5   Master
22-23  +6   Epic
24-25  +7   Epic
26-27  +8   Legendary
28-29  +9   Legendary
30-31  +10  Godlike
"""


def expand_ability_table() -> dict[int, tuple[int, str]]:
    rows: dict[int, tuple[int, str]] = {}
    for line in ABILITY_TABLE_TEXT.strip().splitlines():
        scores, modifier, rank = line.split()
        for score in faces(scores):
            rows[score] = (0 if modifier == "-" else int(modifier), rank)
    return rows


ABILITY_ROWS = expand_ability_table()


def test_ability_transcription_covers_1_to_31() -> None:
    assert sorted(ABILITY_ROWS) == list(range(1, 32))


@pytest.mark.parametrize(("score", "row"), sorted(ABILITY_ROWS.items()))
def test_ability_score_row(score: int, row: tuple[int, str]) -> None:
    modifier, rank_name = row
    assert ability_modifier(score) == modifier
    assert ability_rank(score).display_name == rank_name


@pytest.mark.parametrize("score", [32, 33, 34, 35, 40, 41, 99, 100])
def test_ability_scores_above_31_keep_the_pattern(score: int) -> None:
    """Ruling 7: floor((score − 10) / 2), rank stays Godlike."""
    assert ability_modifier(score) == (score - 10) // 2
    assert ability_rank(score) is Rank.GODLIKE
    assert ability_modifier(32) == 11 and ability_modifier(33) == 11 and ability_modifier(34) == 12


@pytest.mark.parametrize("score", [0, -1, -10])
def test_ability_scores_below_1_are_invalid(score: int) -> None:
    with pytest.raises(RulesError):
        ability_modifier(score)
    with pytest.raises(RulesError):
        ability_rank(score)
