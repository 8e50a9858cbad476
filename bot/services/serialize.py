"""Turn rules-engine outcomes into JSON for the ledger.

Outcomes are frozen dataclasses with enums, tuples and Fractions; the ledger stores plain
JSON. The encoding is deterministic (same outcome → same JSON), which the commitment of
hidden rolls relies on.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from fractions import Fraction
from typing import Any


def to_jsonable(value: Any) -> Any:
    """Recursively convert dataclasses, enums, tuples, sets and Fractions to JSON types."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value) if not isinstance(value.value, enum.Enum) else value.name
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_jsonable(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if not f.name.startswith("_")
        }
    if isinstance(value, Mapping):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_jsonable(v) for v in value), key=repr)
    to_record = getattr(value, "to_record", None)
    if callable(to_record):
        return to_jsonable(to_record())
    return str(value)
