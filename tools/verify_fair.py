#!/usr/bin/env python3
"""Check a pbp-dice campaign export end to end: provably fair dice, without the bot.

Python 3.9+, standard library only; one file, so anyone can read it and run it:

    python3 verify_fair.py campaign-export.json[.gz]
    python3 verify_fair.py --roll SEED_HEX SCOPE DRAW PLAYER_KEY_HEX SIDES COUNT
    python3 verify_fair.py --mine SEED_HEX SCOPE DRAW "your seed text" SIDES COUNT

For every revealed server seed in the file it checks SHA-256(seed) against the hash that was
published before the seed was used. For every roll that records its dice seeds it recomputes
each die from (server seed, scope, draw number, player key, blinding) with HMAC-SHA256 and
rejection sampling, exactly as docs/fair-dice.md says, and compares with the faces the roll
showed, after checking that each roll's record is its own: the campaign's scope, one of the
campaign's seeds, a blinding value only on a hidden roll, its roller's player key (from the
logged seed changes the export carries), and within one seed and player key each draw number
used once, in the order of the log. Rolls whose seed is not revealed yet are counted as
"waiting"; run again after the GM rotates the seed (/seed rotate) and exports again.
Exit status 0: nothing wrong.
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
from datetime import datetime, timedelta
from typing import Any

DOMAIN = b"pbp-dice/fair/v1"
BLIND_DOMAIN = b"pbp-dice/blind/v1"
PLAYER_DOMAIN = b"pbp-dice/player-seed/v1"
NO_SEED_DOMAIN = b"pbp-dice/no-seed/v1"
SCOPE_DOMAIN = b"pbp-dice/player-scope/v1"
#: A seed change this recent before a roll may not have counted for it yet.
KEY_SLACK = timedelta(minutes=1)
#: The user id an erasure leaves in a roll.
ERASED = 0
TWO64 = 1 << 64
FATE = re.compile(r"d\s*F", re.IGNORECASE)


def fields(*parts: bytes) -> bytes:
    """Each field preceded by its length (4 bytes, big-endian)."""
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def player_key(text: str) -> bytes:
    """Your key: SHA-256 of the tag, "|" and your seed text."""
    return hashlib.sha256(PLAYER_DOMAIN + b"|" + text.encode("utf-8")).digest()


def no_seed_key(user_id: int) -> bytes:
    """The key of a player who set no seed: SHA-256 of its tag, "|" and their user id."""
    return hashlib.sha256(NO_SEED_DOMAIN + b"|" + str(user_id).encode("ascii")).digest()


def scoped_key(player: bytes, scope: str) -> bytes:
    """The key your rolls in one scope record: HMAC-SHA256(your key, tag | scope)."""
    return hmac.new(player, fields(SCOPE_DOMAIN, scope.encode("utf-8")), hashlib.sha256).digest()


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


def below(stream: Iterator[int], n: int) -> int:
    """A number from 0 to n - 1 as the rules draw it (Python's ``randrange``): the low
    ``n.bit_length()`` bits of a word, skipped when ``n`` or more."""
    mask = (1 << n.bit_length()) - 1
    r = next(stream) & mask
    while r >= n:
        r = next(stream) & mask
    return r


RULES_SIDES = {"d20": 20, "d6": 6}


def rules_draws(stream: Iterator[int], record: dict[str, Any], terms: list[Any]) -> bool | None:
    """Dice the rules draw (``"dice": "d20"`` or ``"d6"``, each ``below(sides) + 1``), with
    ``at`` (the row shows the at[i]-th die drawn as its i-th die: initiative, contests) or
    the d6s of ability generation in the order drawn. None: not this pattern."""
    how = record.get("dice")
    if how not in RULES_SIDES or ("at" not in record and how == "d20"):
        return None
    sides = RULES_SIDES[how]
    shown = [int(t) for t in terms]
    if "at" not in record:
        return [below(stream, sides) + 1 for _ in shown] == shown
    at = [int(a) for a in record["at"]]
    if len(at) != len(shown) or len(set(at)) != len(at) or any(a < 0 for a in at):
        return False
    drawn = [below(stream, sides) + 1 for _ in range(max(at, default=-1) + 1)]
    return all(drawn[a] == shown[i] for i, a in enumerate(at))


def shuffle_ok(
    stream: Iterator[int], record: dict[str, Any], terms: list[Any], outcome: Any
) -> bool:
    """A random turn order (``"dice": "shuffle"``): the names ``from`` shuffled as Python's
    ``random.shuffle`` does (from the last place down, swap with ``below(i + 1)``) give the
    row's ``order``."""
    names = list(record.get("from") or [])
    for i in reversed(range(1, len(names))):
        j = below(stream, i + 1)
        names[i], names[j] = names[j], names[i]
    order = outcome.get("order") if isinstance(outcome, dict) else None
    return not terms and names == order


def parts_state(
    seeds: dict[str, bytes], hidden_keys: dict[str, bytes], record: dict[str, Any], terms: list[Any]
) -> str:
    """A row whose i-th d20 is the first d20 of ``parts[i]``, each part an earlier draw with its
    own seed (a check applying sealed pre-rolls): "ok", "bad" or "waiting"."""
    parts = list(record.get("parts") or [])
    if len(parts) != len(terms):
        return "bad"
    if any(part.get("seed_hash") not in seeds for part in parts):
        return "waiting"
    for i, part in enumerate(parts):
        one = {k: v for k, v in part.items() if k != "at"}
        one["dice"] = record.get("dice", "d20")
        hidden = hidden_keys.get(part["seed_hash"])
        if not recompute(seeds[part["seed_hash"]], one, [terms[i]]):
            return "bad"
        if "blind" in part and hidden is not None and not blind_ok(hidden, part):
            return "bad"
    return "ok"


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
    luck roll, reroll: ``"dice": "d20"``) its d20s in the order drawn, an attack's parts, or
    the rules' own draws (initiative, contests, generation, a shuffled order)."""
    stream = words(
        seed,
        str(record["scope"]),
        int(record["draw"]),
        bytes.fromhex(record["player"]),
        bytes.fromhex(record.get("blind", "")),
    )
    if record.get("dice") == "attack":
        return attack_ok(stream, record.get("parts"), terms, outcome)
    if record.get("dice") == "shuffle":
        return shuffle_ok(stream, record, terms, outcome)
    more = rules_draws(stream, record, terms)
    if more is not None:
        return more
    if record.get("dice") == "d20":
        return [d20(stream) for _ in terms] == [int(t) for t in terms]
    return all(term_faces(stream, term) == [int(d["face"]) for d in term["dice"]] for term in terms)


def blind_ok(hidden_key: bytes, record: dict[str, Any]) -> bool:
    """A hidden roll's blinding value is HMAC-SHA256(hidden-roll key, its scope and draw)."""
    message = fields(
        BLIND_DOMAIN, str(record["scope"]).encode("utf-8"), int(record["draw"]).to_bytes(8, "big")
    )
    return hmac.new(hidden_key, message, hashlib.sha256).hexdigest() == record.get("blind")


def record_problem(record: dict[str, Any], scope: str, public: bool) -> str | None:
    """What in a roll's record contradicts the roll itself (as /verify roll checks it)."""
    try:
        int(record["draw"])
        bytes.fromhex(str(record["player"]))
        bytes.fromhex(str(record.get("blind", "")))
    except (KeyError, TypeError, ValueError):
        return "its record of dice seeds is damaged"
    if str(record.get("scope")) != scope:
        return "it records another place's scope"
    if public and "blind" in record:
        return "a public roll with a blinding value"
    if not public and not record.get("blind"):
        return "a hidden roll without a blinding value"
    return None


def when(text: str) -> datetime:
    """An export's timestamp (ISO 8601), without its time zone (all are UTC)."""
    return datetime.fromisoformat(str(text)).replace(tzinfo=None)


def keys_in_effect(
    changes: list[tuple[datetime, str]], at: datetime, scope: str, user: int
) -> set[str]:
    """The scope's keys a player's (``user``) logged seed changes (time, scoped key) allow at
    ``at``: the last change before ``at - KEY_SLACK`` (their no-seed key if none) and any
    after it."""
    keys: set[str] = set()
    for changed, key in sorted(changes, reverse=True):
        if changed > at:
            continue
        keys.add(key)
        if changed <= at - KEY_SLACK:
            return keys
    keys.add(scoped_key(no_seed_key(user), scope).hex())
    return keys


def shares_one_draw(ats: list[Any]) -> bool:
    """Rows using one draw number are one command's slices of it (a contest, initiative):
    each names its positions ("at"); apart from the widest, no two share one or go outside it."""
    if len(ats) < 2:
        return True
    if any(not isinstance(at, list) for at in ats):
        return False
    sets = sorted((set(at) for at in ats), key=len)
    widest, seen = sets.pop(), set()
    for part in sets:
        if part & seen or not part <= widest:
            return False
        seen |= part
    return True


def order_problems(groups: dict[tuple[str, str], list[tuple[int, int, Any]]]) -> dict[int, str]:
    """Within one seed and player key, each draw number used once and in the log's order (the
    rows of one command sharing a draw, one after another, count once): roll number -> what is
    wrong with it."""
    found: dict[int, str] = {}
    for rolls in groups.values():
        rolls.sort(key=lambda r: r[0])
        i = 0
        while i < len(rolls):
            j = i
            while j + 1 < len(rolls) and rolls[j + 1][1] == rolls[i][1]:
                j += 1
            if j > i and not shares_one_draw([r[2] for r in rolls[i : j + 1]]):
                for k in range(i + 1, j + 1):
                    found[rolls[k][0]] = (
                        f"its draw number {rolls[k][1]} was used by roll #{rolls[k - 1][0]} too"
                    )
            if i > 0:
                (before, a, _), (after, b, _) = rolls[i - 1], rolls[i]
                if b == a:
                    found[after] = f"its draw number {b} was used by roll #{before} too"
                elif b < a:
                    found[after] = f"its draw number {b} is out of the log's order (#{before}: {a})"
            i = j + 1
    return found


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
        # Every seed the campaign published (the current one's hash too, not its seed).
        hashes = set(item.get("fair_seed_hashes") or [])
        for s in item.get("fair_seeds") or []:
            hashes.add(s["seed_hash"])
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
        scope = f"campaign:{campaign['id']}"
        owners = {c["id"]: c.get("user_id") for c in item["tables"].get("characters", [])}
        changes: dict[int, list[tuple[datetime, str]]] = {}
        for c in item.get("player_seed_changes") or []:
            changes.setdefault(int(c["user_id"]), []).append((when(c["changed_at"]), c["key"]))
        unchecked = 0
        good: set[int] = set()
        waits: set[int] = set()
        wrong: dict[int, str] = {}
        groups: dict[tuple[str, str], list[tuple[int, int, Any]]] = {}
        for row in item["tables"]["ledger"]:
            outcome = row.get("outcome")
            record: dict[str, Any] | None = (
                outcome.get("fair") if isinstance(outcome, dict) else None
            )
            if not isinstance(record, dict):
                unchecked += 1
                continue
            number = int(row["number"])
            if "parts" in record and record.get("dice") != "attack":
                state = parts_state(seeds, hidden_keys, record, row["dice"])
                if state == "bad":
                    wrong[number] = "its dice are not its draws'"
                elif state == "ok":
                    good.add(number)
                else:
                    waits.add(number)
                continue
            problem = record_problem(record, scope, row.get("visibility") == "public")
            if problem is None and record.get("seed_hash") not in hashes:
                problem = "its seed is not one of the campaign's"
            if problem is None and int(row["user_id"]) != ERASED:
                rollers = {int(row["user_id"]), owners.get(row.get("character_id"))}
                at = when(row["created_at"])
                allowed = set().union(
                    *(keys_in_effect(changes.get(u, []), at, scope, u) for u in rollers if u)
                )
                if record["player"] not in allowed:
                    problem = "the player key it records is not its roller's"
            if problem is not None:
                wrong[number] = problem
                continue
            groups.setdefault((record["seed_hash"], record["player"]), []).append(
                (number, int(record["draw"]), record.get("at"))
            )
            seed = seeds.get(record["seed_hash"])
            if seed is None:
                waits.add(number)
                continue
            hidden = hidden_keys.get(record["seed_hash"])
            if not recompute(seed, record, row["dice"], outcome):
                wrong[number] = "its faces are not the ones its seeds give"
            elif "blind" in record and hidden is not None and not blind_ok(hidden, record):
                wrong[number] = "its blinding value is not its seed's"
            else:
                good.add(number)
        for number, problem in order_problems(groups).items():
            wrong.setdefault(number, problem)
        for number in sorted(wrong):
            print(f"BAD roll #{number}: {wrong[number]}", file=out)
        bad = len(wrong)
        ok, waiting = len(good - set(wrong)), len(waits - set(wrong))
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
    if len(argv) == 8 and argv[1] == "--mine":
        seed, scope, draw, text, sides, count = argv[2:]
        key = scoped_key(player_key(text), scope)
        print(f"your key: {player_key(text).hex()}")
        print(f"your key in {scope}: {key.hex()}")
        stream = words(bytes.fromhex(seed), scope, int(draw), key, b"")
        print(" ".join(str(face(stream, int(sides))) for _ in range(int(count))))
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if check(load(argv[1])) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
