"""Column types that validate on the way in and out, so the code never guesses at stored data."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, Field, TypeAdapter, ValidationError
from sqlalchemy import JSON, BigInteger, DateTime, Dialect, Integer
from sqlalchemy.types import TypeDecorator

#: Discord snowflakes are unsigned 64-bit, but never above the signed range in practice.
MAX_SNOWFLAKE = 2**63 - 1

#: An autoincrement 64-bit key: SQLite only autoincrements a column declared INTEGER.
BigId = BigInteger().with_variant(Integer(), "sqlite")


def _system_now() -> datetime:
    return datetime.now(UTC)


_now: Callable[[], datetime] = _system_now


def utcnow() -> datetime:
    """The current time, timezone-aware UTC (a callable default, never computed at import)."""
    return _now()


@contextmanager
def stamped_by(now: Callable[[], datetime]) -> Iterator[None]:
    """Rows stamped with ``now``'s time meanwhile: the offline table's simulated clock, which
    its `wait` moves, so a roll's time and a deadline's are read on the same clock."""
    global _now
    previous, _now = _now, now
    try:
        yield
    finally:
        _now = previous


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always timezone-aware UTC in Python, and refuses naive datetimes.

    SQLite has no time zone type, so values are stored there as naive UTC text and made aware
    again on load; PostgreSQL stores ``timestamptz``.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("naive datetime refused: pass a timezone-aware datetime (UTC)")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


Snowflake = Annotated[int, Field(gt=0, le=MAX_SNOWFLAKE)]


def _unique_ids(ids: list[int]) -> list[int]:
    return sorted(set(ids))


def _unique_names(names: list[str]) -> list[str]:
    seen: set[str] = set()
    for name in names:
        key = name.casefold()
        if key in seen:
            raise ValueError(f"the name {name!r} appears twice")
        seen.add(key)
    return names


AbilityName = Annotated[
    str, Field(min_length=1, max_length=32, pattern=r"^[^\s@#:`]+( [^\s@#:`]+)*$")
]
IdListModel = Annotated[list[Snowflake], Field(max_length=25), AfterValidator(_unique_ids)]
NameListModel = Annotated[
    list[AbilityName], Field(min_length=1, max_length=16), AfterValidator(_unique_names)
]

ID_LIST: TypeAdapter[list[int]] = TypeAdapter(IdListModel)
NAME_LIST: TypeAdapter[list[str]] = TypeAdapter(NameListModel)


class _ValidatedJSON(TypeDecorator[Any]):
    """A JSON column whose value passes a pydantic adapter when written and when read."""

    impl = JSON
    cache_ok = True
    adapter: TypeAdapter[Any]

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        return self.adapter.validate_python(list(value))

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        try:
            return self.adapter.validate_python(value)
        except ValidationError as exc:  # stored data that no longer validates is a bug, loudly
            raise ValueError(f"stored value failed validation: {exc}") from exc


class IdList(_ValidatedJSON):
    """A sorted list of unique Discord ids (GM roles, GM users), stored as JSON."""

    adapter = ID_LIST
    cache_ok = True


class NameList(_ValidatedJSON):
    """An ordered list of unique (case-insensitively) ability names, stored as JSON."""

    adapter = NAME_LIST
    cache_ok = True
