"""Turn rules-engine outcomes into JSON for the ledger.

Outcomes are frozen dataclasses with enums, tuples and Fractions; the ledger stores plain
JSON. The encoding is deterministic (same outcome → same JSON), which the commitment of
hidden rolls relies on. A rule system's outcome also stores its system's key
(``SYSTEM_FIELD``), by which :func:`bot.rules.systems.outcome_from_record` decodes it.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from bot.rules.systems.base import SYSTEM_FIELD, system_of


def to_jsonable(value: Any) -> Any:
    """Recursively convert dataclasses, enums, tuples, sets and Fractions to JSON types."""
    kind = type(value)
    convert = _CONVERTERS.get(kind)
    if convert is None:
        convert = _CONVERTERS[kind] = _converter_for(kind)
    return convert(value)


# The branch depends on the type alone, so it is chosen once per type: a group save converts
# six outcomes of a few dozen values each, and the isinstance chain was most of its cost.
_Converter = Callable[[Any], Any]
_CONVERTERS: dict[type, _Converter] = {}


def _same(value: Any) -> Any:
    return value


def _enum(value: enum.Enum) -> Any:
    return to_jsonable(value.value) if not isinstance(value.value, enum.Enum) else value.name


def _fraction(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _dataclass(kind: type) -> _Converter:
    names = tuple(f.name for f in dataclasses.fields(kind) if not f.name.startswith("_"))

    def convert(value: Any) -> dict[str, Any]:
        record = {name: to_jsonable(getattr(value, name)) for name in names}
        system = system_of(value)  # looked up per value: a test's toy system comes and goes
        if system is not None:
            # A rule system's outcome names its system, whose decoder rebuilds it.
            record[SYSTEM_FIELD] = system.key
        return record

    return convert


def _mapping(value: Mapping[Any, Any]) -> dict[str, Any]:
    return {str(to_jsonable(k)): to_jsonable(v) for k, v in value.items()}


def _sequence(value: list[Any] | tuple[Any, ...]) -> list[Any]:
    return [to_jsonable(v) for v in value]


def _set(value: set[Any] | frozenset[Any]) -> list[Any]:
    return sorted((to_jsonable(v) for v in value), key=repr)


def _other(value: Any) -> Any:
    to_record = getattr(value, "to_record", None)
    if callable(to_record):
        return to_jsonable(to_record())
    return str(value)


def _converter_for(kind: type) -> _Converter:
    """The conversion of values of ``kind``, tested in this order (an IntEnum stays as is)."""
    if kind is type(None) or issubclass(kind, (bool, int, float, str)):
        return _same
    if issubclass(kind, enum.Enum):
        return _enum
    if issubclass(kind, Fraction):
        return _fraction
    if dataclasses.is_dataclass(kind):
        return _dataclass(kind)
    if issubclass(kind, Mapping):
        return _mapping
    if issubclass(kind, (list, tuple)):
        return _sequence
    if issubclass(kind, (set, frozenset)):
        return _set
    return _other
