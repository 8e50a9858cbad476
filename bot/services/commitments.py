"""The bytes behind every promise the ledger makes: commitments, personal digests, the log chain.

Pure functions (no database, no Discord), so the bot, the importer, the migration and a player
checking by hand all compute the same bytes. Every encoding is compact JSON with sorted keys and
ASCII escapes (``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)``),
hashed with SHA-256. Issue 15 asks that they bind only what never changes: the roll's public
number and scope, the Discord snowflakes of the place and the roller, and the time; never a
database key, which deletion nulls and import renumbers.

- **who** (format 2): the digest of the personal fields of a row (roller id, character name,
  request text) with a random per-row salt. The commitment and the chain bind this digest, not
  the fields, so erasing a player later (tombstoning the fields and dropping the salt) leaves
  every digest checkable while the person is unrecoverable.
- **commitment** (hidden rolls): binds the dice, the outcome, the who digest and the row's
  identity, with a random salt shown only at the reveal.
- **chain**: each row's link is ``sha256(previous link || sha256(entry))``; the entry holds the
  public part of the row (a hidden row's commitment, never its dice), so changing, removing or
  reordering any past row changes every later link.

Format 1 is the commitment rows carried before issue 15: it bound the ledger id and the campaign
id directly. Such rows keep verifying through :func:`legacy_encoding`, with the number they were
shown under and the campaign id they were committed with, both kept on the row.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

#: Version tags inside the encodings, so the formats can change without ambiguity.
COMMITMENT_V1 = "pbp-dice-commitment-v1"
COMMITMENT_V2 = "pbp-dice-commitment-v2"
WHO_V1 = "pbp-dice-who-v1"
ENTRY_V1 = "pbp-dice-log-v1"
#: The link before a chain's first row.
GENESIS = "0" * 64
#: Salt lengths in bytes: 256 bits, 64 hex characters.
SALT_BYTES = 32
#: Row formats: 1 = legacy commitment (id and campaign bound directly), 2 = this module's.
LEGACY_FORMAT = 1
FORMAT = 2


def canonical(obj: Any) -> bytes:
    """Compact, key-sorted, ASCII-only JSON: the one byte form every digest here hashes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


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
    identity: Identity, *, kind: str, who: str, dice: Any, outcome: Any, salt: str
) -> bytes:
    """A hidden roll's commitment preimage (format 2): shown at the reveal, hashed by /verify.

    ``dice`` and ``outcome`` as the JSON column gives them back (:func:`normalised`): a dict
    with integer keys would sort differently before and after the round trip.
    """
    return canonical(
        identity.fields()
        | {
            "v": COMMITMENT_V2,
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
    """Format 1, as committed before issue 15: the id and campaign id bound directly."""
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
) -> bytes:
    """A row as the chain binds it: a hidden row by its commitment, a public one by its result
    (``dice`` and ``outcome`` as the JSON column gives them back, see above)."""
    body = identity.fields() | {"v": ENTRY_V1, "kind": kind, "visibility": visibility, "who": who}
    if commitment is not None:
        body["commitment"] = commitment
    else:
        body["dice"] = dice
        body["outcome"] = outcome
    return canonical(body)


def link(previous: str, entry: bytes) -> str:
    """The chain link of a row: ``sha256(previous link bytes || sha256(entry))``, hex."""
    return sha256_hex(bytes.fromhex(previous) + hashlib.sha256(entry).digest())


def short(link_hex: str) -> str:
    """The chain head as a footer shows it: enough to compare, short enough to read."""
    return link_hex[:12]
