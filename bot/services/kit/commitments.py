"""The bytes behind every promise the ledger makes: commitments, personal digests, the log chain.

Pure functions (no database, no Discord), so the bot, the importer, the migration and a player
checking by hand all compute the same bytes. Every encoding is compact JSON with sorted keys and
ASCII escapes (``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)``),
hashed with SHA-256. They bind only what never changes: the roll's public
number and scope, the Discord snowflakes of the place and the roller, and the time; never a
database key, which deletion nulls and import renumbers.

- **who** (format 2): the digest of the personal fields of a row (roller id, character name,
  request text) with a random per-row salt. The commitment and the chain bind this digest, not
  the fields; but they bind the dice and the outcome in clear, and those can hold personal text
  too (a label, a character's name), hence format 3.
- **commitment** (hidden rolls): binds the dice, the outcome, the who digest and the row's
  identity, with a random salt shown only at the reveal.
- **chain**: each row's link is ``sha256(previous link || sha256(entry))``; the entry holds the
  public part of the row (a hidden row's commitment, never its dice), so changing, removing or
  reordering any past row changes every later link.

Format 3 (migration 0008) salts each personal field on its own, so an erasure can blank one field
and keep every digest checkable: the roller, character name and request, and every string inside
the dice and the outcome (a label, a note, a character's name in a group verdict), each hashed
as a **field** digest with a salt derived from the row's one random salt (an HMAC, so the salt of
one field reveals nothing of another's). ``who`` (v2) binds the digests of the three personal
columns; the commitment (v3) and the log entry (v2) bind the dice and outcome with every string
replaced by its field digest, numbers in clear. The salts live in ``ledger_salts``, beside the
ledger: erasing a field replaces it with :data:`TOMBSTONE`, keeps its digest there, and deletes
its salt, so the row still verifies and the text is unrecoverable.

Format 1 is the commitment rows carried before migration 0007: it bound the ledger id and the
campaign id directly. Such rows keep verifying through :func:`legacy_encoding`, with the number
they were shown under and the campaign id they were committed with, both kept on the row.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

#: Version tags inside the encodings, so the formats can change without ambiguity.
COMMITMENT_V1 = "pbp-dice-commitment-v1"
COMMITMENT_V2 = "pbp-dice-commitment-v2"
COMMITMENT_V3 = "pbp-dice-commitment-v3"
WHO_V1 = "pbp-dice-who-v1"
WHO_V2 = "pbp-dice-who-v2"
FIELD_V1 = "pbp-dice-field-v1"
ENTRY_V1 = "pbp-dice-log-v1"
ENTRY_V2 = "pbp-dice-log-v2"
#: The link before a chain's first row.
GENESIS = "0" * 64
#: Salt lengths in bytes: 256 bits, 64 hex characters.
SALT_BYTES = 32
#: Row formats: 1 = legacy commitment (id and campaign bound directly), 2 = migration 0007
#: (one ``who`` salt; dice and outcome in clear), 3 = migration 0008 (each personal field salted).
LEGACY_FORMAT = 1
WHO_FORMAT = 2
FORMAT = 3
#: What an erased text field holds, and an erased roller id.
TOMBSTONE = "[erased]"
TOMBSTONE_ID = 0
#: Keys of ``ledger_salts.field`` besides a field's path: the row's own random salt (format 3:
#: every field salt derives from it; formats 1 and 2: the ``who`` salt), and (formats 1 and 2)
#: the digest of the log entry as it was before an erasure changed text it bound in clear.
ROW_SALT = "*"
ENTRY_BEFORE_ERASURE = "~entry"
#: Marks a row an erasure changed (its digest: the row's ``who``, which it leaves as it was).
ERASED = "~erased"
#: The three personal columns as fields.
ROLLER, CHARACTER, REQUEST = "roller", "character", "request"


#: json.dumps with options builds an encoder per call; every roll encodes several times.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


#: A string as canonical() writes it (quoted, ASCII escapes): the json module's own C function.
_quoted: Callable[[str], str] = json.encoder.encode_basestring_ascii


def canonical(obj: Any) -> bytes:
    """Compact, key-sorted, ASCII-only JSON: the one byte form every digest here hashes."""
    return _CANONICAL.encode(obj).encode("ascii")


def normalised(value: Any) -> Any:
    """What a JSON column gives back (tuples become lists...), so a digest computed before the
    insert equals the one recomputed from the stored row."""
    return json.loads(json.dumps(value))


def sha256_hex(data: bytes) -> str:
    """SHA-256, 64 lowercase hex characters."""
    return hashlib.sha256(data).hexdigest()


def timestamp(at: datetime) -> str:
    """A row's time as bound: UTC ISO 8601 with microseconds (both databases keep them)."""
    return at.astimezone(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True, slots=True)
class Identity:
    """What names a row forever: its public number within its scope, where and when."""

    number: int
    scope_id: int
    guild_id: int | None
    channel_id: int
    created_at: datetime

    def fields(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "scope": self.scope_id,
            "guild": self.guild_id,
            "channel": self.channel_id,
            "at": timestamp(self.created_at),
        }


def who_encoding(user_id: int, character_name: str | None, request: str, salt: str) -> bytes:
    """The personal fields of a row and their salt, as hashed into ``who``."""
    return canonical(
        {
            "v": WHO_V1,
            "roller": user_id,
            "character": character_name,
            "request": request,
            "salt": salt,
        }
    )


def who_digest(user_id: int, character_name: str | None, request: str, salt: str) -> str:
    """``who``: the salted digest of a row's personal fields."""
    return sha256_hex(who_encoding(user_id, character_name, request, salt))


def commitment_encoding(
    identity: Identity,
    *,
    kind: str,
    who: str,
    dice: Any,
    outcome: Any,
    salt: str,
    version: str = COMMITMENT_V2,
) -> bytes:
    """A hidden roll's commitment preimage (format 2): shown at the reveal, hashed by /verify.

    ``dice`` and ``outcome`` as the JSON column gives them back (:func:`normalised`): a dict
    with integer keys would sort differently before and after the round trip.
    """
    return canonical(
        identity.fields()
        | {
            "v": version,
            "kind": kind,
            "who": who,
            "dice": dice,
            "outcome": outcome,
            "salt": salt,
        }
    )


def legacy_encoding(
    *,
    roll_id: int,
    campaign_id: int | None,
    user_id: int,
    request: str,
    dice: Any,
    outcome: Any,
    salt: str,
) -> bytes:
    """Format 1, as committed before migration 0007: the id and campaign id bound directly."""
    return canonical(
        {
            "v": COMMITMENT_V1,
            "id": roll_id,
            "campaign": campaign_id,
            "roller": user_id,
            "request": request,
            "dice": normalised(dice),
            "outcome": normalised(outcome),
            "salt": salt,
        }
    )


def entry_encoding(
    identity: Identity,
    *,
    kind: str,
    visibility: str,
    who: str,
    commitment: str | None,
    dice: Any,
    outcome: Any,
    version: str = ENTRY_V1,
) -> bytes:
    """A row as the chain binds it: a hidden row by its commitment, a public one by its result
    (``dice`` and ``outcome`` as the JSON column gives them back, see above; format 3: masked,
    :func:`masked`)."""
    body = identity.fields() | {"v": version, "kind": kind, "visibility": visibility, "who": who}
    if commitment is not None:
        body["commitment"] = commitment
    else:
        body["dice"] = dice
        body["outcome"] = outcome
    return canonical(body)


def link(previous: str, entry: bytes) -> str:
    """The chain link of a row: ``sha256(previous link bytes || sha256(entry))``, hex."""
    return sha256_hex(bytes.fromhex(previous) + hashlib.sha256(entry).digest())


def link_digest(previous: str, entry_digest: str) -> str:
    """:func:`link` from the entry's digest (hex) rather than its bytes."""
    return sha256_hex(bytes.fromhex(previous) + bytes.fromhex(entry_digest))


def short(link_hex: str) -> str:
    """The chain head as a footer shows it: enough to compare, short enough to read."""
    return link_hex[:12]


# --- format 3: one salted digest per personal field (migration 0008) -------------------------


def _escape(key: str) -> str:
    # JSON Pointer's escapes (RFC 6901), so a path names one place whatever the keys hold.
    return key.replace("~", "~0").replace("/", "~1")


def string_fields(value: Any, prefix: str) -> Iterator[tuple[str, str]]:
    """Every string inside a JSON value, with its path (``outcome/members/0/name``)."""
    if isinstance(value, str):
        yield prefix, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from string_fields(item, f"{prefix}/{_escape(str(key))}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from string_fields(item, f"{prefix}/{index}")


def personal_fields(
    user_id: int, character_name: str | None, request: str, dice: Any, outcome: Any
) -> dict[str, Any]:
    """A format 3 row's fields, each salted and hashed on its own: the three personal columns
    and every string inside the dice and the outcome."""
    fields: dict[str, Any] = {ROLLER: user_id, REQUEST: request}
    if character_name is not None:
        fields[CHARACTER] = character_name
    fields.update(string_fields(dice, "dice"))
    fields.update(string_fields(outcome, "outcome"))
    return fields


def field_salt(row_salt: str, path: str) -> str:
    """A field's salt, derived from the row's: HMAC-SHA256 keyed by the row salt, so a field's
    salt kept after an erasure says nothing about the row salt or another field's."""
    # hmac.digest: OpenSSL's one-shot HMAC, the same bytes as hmac.new(...).digest().
    return hmac.digest(bytes.fromhex(row_salt), path.encode("utf-8"), "sha256").hex()


_V1_KEY = f'"v":{_quoted(FIELD_V1)},'


def field_digest(path: str, value: Any, salt: str) -> str:
    """The salted digest of one field: of
    ``canonical({"v": FIELD_V1, "field": path, "value": value, "salt": salt})``."""
    # Written out in its sorted key order (field, salt, v, value), as canonical() would: every
    # string of every roll is hashed this way, and building the dict to encode it cost more
    # than the hash. tests/services/test_commitments.py holds the two forms to the same bytes.
    text = _quoted(value) if isinstance(value, str) else _CANONICAL.encode(value)
    encoded = f'{{"field":{_quoted(path)},"salt":{_quoted(salt)},{_V1_KEY}"value":{text}}}'
    return sha256_hex(encoded.encode("ascii"))


#: A field's digest by its path and value; None when it cannot be computed (no salt kept).
DigestOf = Callable[[str, Any], str | None]


def row_digests(row_salt: str) -> DigestOf:
    """Every field's digest under one row salt (:func:`field_salt`, then :func:`field_digest`),
    for sealing a new row: the HMAC keyed once and copied per field, the same bytes as
    ``hmac.digest`` each time at two thirds of its cost."""
    keyed = hmac.new(bytes.fromhex(row_salt), digestmod="sha256")

    def digest_of(path: str, value: Any) -> str:
        field_hmac = keyed.copy()
        field_hmac.update(path.encode("utf-8"))
        return field_digest(path, value, field_hmac.hexdigest())

    return digest_of


class Unsalted(LookupError):
    """A field's digest cannot be computed: neither its salt nor its erased digest is kept."""


def masked(value: Any, prefix: str, digest_of: DigestOf) -> Any:
    """``value`` with every string replaced by its field digest: what format 3 binds."""
    if isinstance(value, str):
        digest = digest_of(prefix, value)
        if digest is None:
            raise Unsalted(prefix)
        return digest
    if isinstance(value, dict):
        return {
            key: masked(item, f"{prefix}/{_escape(str(key))}", digest_of)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [masked(item, f"{prefix}/{index}", digest_of) for index, item in enumerate(value)]
    return value


def who_v2(digests: Mapping[str, str | None]) -> str:
    """Format 3's ``who``: the digests of the roller, character name and request."""
    return sha256_hex(
        canonical(
            {
                "v": WHO_V2,
                ROLLER: digests[ROLLER],
                CHARACTER: digests.get(CHARACTER),
                REQUEST: digests[REQUEST],
            }
        )
    )


@dataclass(frozen=True, slots=True)
class Salts:
    """What ``ledger_salts`` keeps for one row: the row salt, and after an erasure the salt of
    each field kept and the digest of each field erased (whose value is the tombstone)."""

    row_salt: str | None = None
    field_salts: Mapping[str, str] = field(default_factory=dict)
    erased: Mapping[str, str] = field(default_factory=dict)
    #: Formats 1 and 2: the digest of the log entry as it was before an erasure, kept only
    #: when the erasure changed text the entry bound in clear (a public row's result).
    entry_before: str | None = None
    #: An erasure changed the row.
    marked: bool = False

    def digest_of(self, path: str, value: Any) -> str | None:
        if path in self.erased and value in (TOMBSTONE, TOMBSTONE_ID):
            return self.erased[path]
        salt = self.field_salts.get(path)
        if salt is None and self.row_salt is not None:
            salt = field_salt(self.row_salt, path)
        return None if salt is None else field_digest(path, value, salt)

    @property
    def touched(self) -> bool:
        """Whether an erasure changed the row."""
        return self.marked or bool(self.erased) or self.entry_before is not None
