"""The digests a verifier recomputes: the fast forms in bot/services/kit/commitments.py give the
bytes the documented formulas give, for any value a roll can hold."""

from __future__ import annotations

import hashlib
import hmac
import json

from hypothesis import given
from hypothesis import strategies as st

from bot.services.kit import commitments as cm

_SALT = st.binary(min_size=32, max_size=32).map(bytes.hex)
_SCALAR = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_JSON = st.recursive(
    _SCALAR,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def _documented(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


@given(path=st.text(), value=_JSON, salt=_SALT)
def test_a_field_digest_is_the_documented_one(path: str, value: object, salt: str) -> None:
    encoding = {"v": "pbp-dice-field-v1", "field": path, "value": value, "salt": salt}
    expected = hashlib.sha256(_documented(encoding)).hexdigest()
    assert cm.field_digest(path, value, salt) == expected


@given(row_salt=_SALT, path=st.text())
def test_a_field_salt_is_the_documented_hmac(row_salt: str, path: str) -> None:
    expected = hmac.new(bytes.fromhex(row_salt), path.encode(), hashlib.sha256).hexdigest()
    assert cm.field_salt(row_salt, path) == expected


@given(value=_JSON)
def test_canonical_is_the_documented_json(value: object) -> None:
    assert cm.canonical(value) == _documented(value)


@given(row_salt=_SALT, fields=st.lists(st.tuples(st.text(), _JSON), max_size=6))
def test_a_new_rows_digests_are_the_documented_ones(
    row_salt: str, fields: list[tuple[str, object]]
) -> None:
    """Sealing keys the row's HMAC once and copies it per field: each digest is still the
    documented field digest under the documented field salt, whatever came before it."""
    digest_of = cm.row_digests(row_salt)
    for path, value in fields:
        salt = hmac.new(bytes.fromhex(row_salt), path.encode(), hashlib.sha256).hexdigest()
        encoding = {"v": "pbp-dice-field-v1", "field": path, "value": value, "salt": salt}
        assert digest_of(path, value) == hashlib.sha256(_documented(encoding)).hexdigest()
