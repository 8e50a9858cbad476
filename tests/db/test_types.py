"""Column types that check data on the way in and out: times always timezone-aware UTC (naive
ones refused), id lists sorted and unique, ability names unique whatever their case.

Tests bot/db/types.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError
from sqlalchemy.dialects import postgresql, sqlite

from bot.db.types import (
    ID_LIST,
    MAX_SNOWFLAKE,
    NAME_LIST,
    IdList,
    UTCDateTime,
    stamped_by,
    utcnow,
)

SQLITE, POSTGRESQL = sqlite.dialect(), postgresql.dialect()
PARIS = timezone(timedelta(hours=1))


def test_times_are_stored_as_utc_and_come_back_aware() -> None:
    column = UTCDateTime()
    at_nine_in_paris = datetime(2026, 12, 1, 9, 0, tzinfo=PARIS)
    stored = column.process_bind_param(at_nine_in_paris, SQLITE)
    assert stored == datetime(2026, 12, 1, 8, 0)  # SQLite keeps naive UTC text
    assert column.process_result_value(stored, SQLITE) == datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    assert column.process_bind_param(at_nine_in_paris, POSTGRESQL) == at_nine_in_paris
    assert column.process_bind_param(None, SQLITE) is None


def test_a_naive_time_is_refused() -> None:
    with pytest.raises(ValueError, match="naive datetime refused"):
        UTCDateTime().process_bind_param(datetime(2026, 12, 1, 9, 0), POSTGRESQL)


def test_rows_are_stamped_by_the_clock_in_force() -> None:
    fixed = datetime(2030, 1, 1, tzinfo=UTC)
    with stamped_by(lambda: fixed):
        assert utcnow() == fixed
    assert utcnow() != fixed and utcnow().tzinfo is UTC


def test_id_lists_are_sorted_unique_snowflakes() -> None:
    assert ID_LIST.validate_python([30, 10, 30]) == [10, 30]
    for bad in ([0], [MAX_SNOWFLAKE + 1], list(range(1, 27))):
        with pytest.raises(ValidationError):
            ID_LIST.validate_python(bad)
    assert IdList().process_bind_param((5, 3), SQLITE) == [3, 5]


def test_ability_names_are_unique_whatever_their_case() -> None:
    assert NAME_LIST.validate_python(["STR", "Animal Handling"]) == ["STR", "Animal Handling"]
    with pytest.raises(ValidationError, match="appears twice"):
        NAME_LIST.validate_python(["Dex", "DEX"])
    for bad in ([], ["two  spaces"], ["@everyone"], ["a:b"]):
        with pytest.raises(ValidationError):
            NAME_LIST.validate_python(bad)


def test_a_stored_value_that_no_longer_validates_fails_loudly() -> None:
    with pytest.raises(ValueError, match="stored value failed validation"):
        IdList().process_result_value([-1], SQLITE)
