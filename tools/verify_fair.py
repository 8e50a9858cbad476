#!/usr/bin/env python3
"""Check a pbp-dice campaign export end to end: provably fair dice, without the bot.

Python 3.9+, standard library only; one file, so anyone can read it and run it:

    python3 verify_fair.py campaign-export.json[.gz]
    python3 verify_fair.py --roll SEED_HEX SCOPE DRAW PLAYER_KEY_HEX SIDES COUNT

For every revealed server seed in the file it checks SHA-256(seed) against the hash that was
published before the seed was used. For every roll that records its dice seeds it recomputes
each die from (server seed, scope, draw number, player key, blinding) with HMAC-SHA256 and
rejection sampling, exactly as docs/fair-dice.md says, and compares with the faces the roll
showed. Rolls whose seed is not revealed yet are counted as "waiting"; run again after the GM
rotates the seed (/campaign seed rotate) and exports again. Exit status 0: nothing wrong.
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import json
import re
import struct
import sys
from collections.abc import Iterator
from typing import Any

DOMAIN = b"pbp-dice/fair/v1"
BLIND_DOMAIN = b"pbp-dice/blind/v1"
TWO64 = 1 << 64
FATE = re.compile(r"d\s*F", re.IGNORECASE)


def fields(*parts: bytes) -> bytes:
    """Each field preceded by its length (4 bytes, big-endian)."""
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def words(seed: bytes, scope: str, draw: int, player: bytes, blind: bytes) -> Iterator[int]:
    """The roll's 64-bit words: block j = HMAC-SHA256(seed, message | j), 4 words a block,
    each 8 bytes little-endian."""
    message = fields(DOMAIN, scope.encode("utf-8"), draw.to_bytes(8, "big"), player, blind)
    j = 0
    while True:
        block = hmac.new(seed, message + j.to_bytes(8, "big"), hashlib.sha256).digest()
        yield from struct.unpack("<4Q", block)
        j += 1


def face(stream: Iterator[int], sides: int) -> int:
    """Skip words at or above the largest multiple of ``sides`` (no face favoured)."""
    limit = TWO64 - TWO64 % sides
    x = next(stream)
    while x >= limit:
        x = next(stream)
    return x % sides + 1


def term_faces(stream: Iterator[int], term: dict[str, Any]) -> list[int]:
    """One term's faces in recorded order. The term's first ``count`` dice take one word
    each (a skipped word is replaced after them, in place order); every die added later
    (reroll, explosion, added die: it names its ``source``) takes the next face in order."""
    sides = int(term["sides"])
    count = int(term["count"])
    limit = TWO64 - TWO64 % sides
    block = [next(stream) for _ in range(count)]
    first = [x % sides + 1 if x < limit else 0 for x in block]
    first = [f if f else face(stream, sides) for f in first]
    if sides == 3 and FATE.search(str(term.get("notation", ""))):
        first = [f - 2 for f in first]  # dF: -1, 0, +1
    initial = iter(first)
    out = []
    for die in term["dice"]:
        later = die.get("source", -1) >= 0 or "added" in die.get("flags", ())
        out.append(face(stream, sides) if later else next(initial))
    return out


def d20(stream: Iterator[int]) -> int:
    """A rules d20 (check, save, luck): ``x mod 32``, skipped when 20 or more, plus 1."""
    r = next(stream) & 31
    while r >= 20:
        r = next(stream) & 31
    return r + 1


#: The parts an attack (or a rerolled attack) may draw, in this order; its record lists those
#: it drew: its d20s (the row's dice), the weapon's and the armour's quality saves (rules
#: d20s), the damage's terms and a critical's second roll of every damage die.
ATTACK_PARTS = ("d20", "weapon_save", "armor_save", "damage", "again")


def attack_ok(stream: Iterator[int], parts: Any, terms: list[Any], outcome: Any) -> bool:
    """An attack's draw (``"dice": "attack"``), part by part, against what the roll shows."""
    if not isinstance(parts, list) or not isinstance(outcome, dict):
        return False
    if any(p not in ATTACK_PARTS for p in parts) or parts != sorted(parts, key=ATTACK_PARTS.index):
        return False
    attack = outcome.get("attack") or {}
    damage = outcome.get("damage") or {}
    shown = ["d20", *(p for p in ("weapon_save", "armor_save") if attack.get(p))]
    shown += [p for p, key in (("damage", "roll"), ("again", "again")) if damage.get(key)]
    for part in set(shown) - set(parts):
        # Only what a reroll kept from the roll it replaced may be shown and not drawn.
        kept = "kept_from" in damage if part in ("damage", "again") else part != "d20"
        if not (kept and "original_number" in outcome):
            return False
    try:
        for part in parts:
            if part == "d20":
                if [d20(stream) for _ in terms] != [int(t) for t in terms]:
                    return False
            elif part in ("weapon_save", "armor_save"):
                if d20(stream) != int(attack[part]["roll"]):
                    return False
            else:
                rolled = damage["roll"] if part == "damage" else damage["again"]
                for term in rolled["terms"]:
                    if term_faces(stream, term) != [int(d["face"]) for d in term["dice"]]:
                        return False
    except (KeyError, TypeError, ValueError):
        return False
    return True


def recompute(seed: bytes, record: dict[str, Any], terms: list[Any], outcome: Any = None) -> bool:
    """Whether the row's dice are the ones its inputs give: notation terms, (a check, save,
    luck roll, reroll: ``"dice": "d20"``) its d20s in the order drawn, or an attack's parts."""
    stream = words(
        seed,
        str(record["scope"]),
        int(record["draw"]),
        bytes.fromhex(record["player"]),
        bytes.fromhex(record.get("blind", "")),
    )
    if record.get("dice") == "attack":
        return attack_ok(stream, record.get("parts"), terms, outcome)
    if record.get("dice") == "d20":
        return [d20(stream) for _ in terms] == [int(t) for t in terms]
    return all(term_faces(stream, term) == [int(d["face"]) for d in term["dice"]] for term in terms)


def blind_ok(hidden_key: bytes, record: dict[str, Any]) -> bool:
    """A hidden roll's blinding value is HMAC-SHA256(hidden-roll key, its scope and draw)."""
    message = fields(
        BLIND_DOMAIN, str(record["scope"]).encode("utf-8"), int(record["draw"]).to_bytes(8, "big")
    )
    return hmac.new(hidden_key, message, hashlib.sha256).hexdigest() == record.get("blind")


def load(path: str) -> dict[str, Any]:
    with open(path, "rb") as handle:
        raw = handle.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    data = json.loads(raw.decode("utf-8"))
    if not isinstance(data, dict) or data.get("format") != "pbp-dice-export":
        raise SystemExit(f"{path}: not a pbp-dice export")
    return data


def check(data: dict[str, Any], out: Any = sys.stdout) -> int:
    """Print what was checked; return how many problems were found."""
    problems = 0
    for item in data["campaigns"]:
        seeds: dict[str, bytes] = {}
        hidden_keys: dict[str, bytes] = {}
        for s in item.get("fair_seeds") or []:
            seed = bytes.fromhex(s["seed"])
            if hashlib.sha256(seed).hexdigest() != s["seed_hash"]:
                print(
                    f"BAD seed {s['generation']}: its SHA-256 is not the published hash", file=out
                )
                problems += 1
                continue
            seeds[s["seed_hash"]] = seed
            if s.get("hidden_key"):
                key = bytes.fromhex(s["hidden_key"])
                if hashlib.sha256(key).hexdigest() != s.get("hidden_hash"):
                    print(
                        f"BAD seed {s['generation']}: its hidden-roll key is not its hash", file=out
                    )
                    problems += 1
                    continue
                hidden_keys[s["seed_hash"]] = key
        campaign = item["tables"]["campaigns"][0]
        ok = bad = waiting = unchecked = 0
        for row in item["tables"]["ledger"]:
            outcome = row.get("outcome")
            record: dict[str, Any] | None = (
                outcome.get("fair") if isinstance(outcome, dict) else None
            )
            if not isinstance(record, dict):
                unchecked += 1
                continue
            seed = seeds.get(record["seed_hash"])
            if seed is None:
                waiting += 1
                continue
            hidden = hidden_keys.get(record["seed_hash"])
            if recompute(seed, record, row["dice"], outcome) and (
                "blind" not in record or hidden is None or blind_ok(hidden, record)
            ):
                ok += 1
            else:
                print(
                    f"BAD roll #{row['number']}: its faces are not the ones its seeds give",
                    file=out,
                )
                bad += 1
        print(
            f"campaign {campaign['id']}: {len(seeds)} revealed seeds match their hashes; "
            f"{ok} rolls recomputed and matching, {bad} wrong, {waiting} waiting for their "
            f"seed to be revealed, {unchecked} without dice seeds",
            file=out,
        )
        problems += bad
    return problems


def main(argv: list[str]) -> int:
    if len(argv) == 8 and argv[1] == "--roll":
        seed, scope, draw, player, sides, count = argv[2:]
        stream = words(bytes.fromhex(seed), scope, int(draw), bytes.fromhex(player), b"")
        print(" ".join(str(face(stream, int(sides))) for _ in range(int(count))))
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if check(load(argv[1])) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
