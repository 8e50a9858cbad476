"""Erasure by identity, as a property, on SQLite and PostgreSQL.

Hypothesis builds a campaign (d20 check or Pen & Dagger) played by three players and a GM,
their characters and display names drawn from words everyone types ("Dex", "True", "Check",
"Pass") and from each other's names, and a random game: rolls labelled with other people's
names, checks helped by another's character, a GM's checks for a player's character, attacks
on another's character, group saves, roll requests and their answers, posts with inline rolls
(some helped), a turn order, sealed declarations, a score generation. Then it erases one of
them, in that server or everywhere, and compares every row of every table before and after:

- a row changes only if it is the person's or names them BY ID (the test's own oracle, below:
  an author or seat column holding their id, a ``ledger_names`` row naming them before the
  erasure, a row rolled for their character, the copies of such a roll in a post), and then
  only in the columns ``privacy.HOLDINGS`` declares for its table;
- in another person's ledger row only strings change, each to ``[erased]``, and only strings
  that held a name the row named them by; dice and numbers never change;
- everyone else's rows are byte for byte as they were, and so is every row of the other
  servers (earlier examples play in their own server with their own people);
- nothing holds the person's id afterwards, and the campaign's log still verifies.

The plays are generated first (``derandomize``: the same every run) and played afterwards in
one database, as tests/scenarios/test_fuzz.py does; a failure names the example's plays.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import JSON, Text, select

from bot.db.engine import Database
from bot.db.models import RuleSystem
from bot.db.schema import metadata
from bot.errors import UserError
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.rolling import attacks, checks, generation, groups, rolls
from bot.services.store.campaigns import CampaignView, setup_campaign
from bot.services.store.characters import (
    create_character,
    party_add,
    set_proficiency,
    set_score,
)
from bot.services.table import posts, requests, rounds, turns
from bot.services.trust import gamelog, privacy

EXAMPLES = 20
#: Names anyone could pick, many of them words of everyone's commands or results.
NAMES = [
    "Dex",
    "True",
    "Blind",
    "Stealth",
    "Check",
    "Pass",
    "Roll",
    "Bo",
    "Ayla",
    "Zephyrine",
    "Gemma",
    "Alice",
    "Old Tom",
    "Success",
]
SEATS = 4  # three players and the GM (seat 3)
GM = 3


@dataclass(frozen=True)
class World:
    system: str
    names: tuple[str, ...]  # a character per player (seats 0-2)
    shown: tuple[str, ...]  # display names, seats 0-3
    plays: tuple[tuple[Any, ...], ...]
    erased: int
    everywhere: bool


def worlds() -> st.SearchStrategy[World]:
    seat = st.integers(0, 2)
    anyone = st.integers(0, SEATS - 1)
    name = st.sampled_from(NAMES)
    play = st.one_of(
        st.tuples(st.just("roll"), anyone, name),
        st.tuples(st.just("check"), seat, st.one_of(st.none(), seat)),
        st.tuples(st.just("gm-check"), seat),
        st.tuples(st.just("attack"), seat, st.one_of(st.none(), seat)),
        st.tuples(st.just("group"), st.just(0)),
        st.tuples(st.just("request"), st.lists(seat, min_size=1, max_size=3, unique=True)),
        st.tuples(st.just("post"), seat, name, st.one_of(st.none(), seat)),
        st.tuples(st.just("turns"), st.just(0)),
        st.tuples(st.just("declare"), seat, name),
        st.tuples(st.just("generate"), st.just(0)),
    )
    return st.builds(
        World,
        st.sampled_from([RuleSystem.D20_CHECK, RuleSystem.PEN_AND_DAGGER]),
        st.lists(name, min_size=3, max_size=3, unique_by=str.casefold).map(tuple),
        st.lists(name, min_size=4, max_size=4).map(tuple),
        st.lists(play, min_size=4, max_size=12).map(tuple),
        anyone,
        st.booleans(),
    )


def generate() -> list[World]:
    found: list[World] = []

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(worlds())
    def collect(world: World) -> None:
        found.append(world)

    collect()
    return found


_interactions = itertools.count(8_100_000_000_000_000)
NOW = datetime(2026, 12, 2, 12, tzinfo=UTC)


class Table:
    """One example's server: its own guild, channel and people."""

    def __init__(self, index: int, world: World) -> None:
        base = 5_000_000_000_000_000 + index * 100
        self.world = world
        self.guild = base + 1
        self.channel = base + 2
        self.gm_role = base + 3
        self.users = [base + 10 + seat for seat in range(SEATS)]

    def caller(self, seat: int) -> Caller:
        roles = frozenset({self.gm_role}) if seat == GM else frozenset()
        return Caller(
            user_id=self.users[seat],
            channel_id=self.channel,
            guild_id=self.guild,
            role_ids=roles,
            interaction_id=next(_interactions),
            display_name=self.world.shown[seat],
        )


async def play(db: Database, table: Table) -> CampaignView:
    world = table.world
    campaign = await setup_campaign(
        db, table.guild, table.channel, world.system, gm_role_ids=[table.gm_role]
    )
    d20 = world.system == RuleSystem.D20_CHECK
    for seat, name in enumerate(world.names):
        hero = await create_character(db, campaign.id, table.users[seat], name)
        for ability in campaign.ability_names:
            await set_score(db, hero.id, ability, 12 if d20 else 3)
        if d20:
            await set_proficiency(db, hero.id, "Stealth", degree=1)
        await party_add(db, hero.id)
    rng = random.Random(7)
    ability = campaign.ability_names[1]
    for step in world.plays:
        kind = step[0]
        try:
            if kind == "roll":
                _, seat, word = step
                await rolls.roll_dice(
                    db,
                    rng,
                    table.caller(seat),
                    "1d20+1 # with " + word,
                    label=f"{word} and {world.names[(seat + 1) % 3]}",
                    request=f"/roll dice:1d20+1 label:{word}",
                )
            elif kind == "check":
                _, seat, helper = step
                options = checks.CheckOptions(
                    ability=ability,
                    helper=world.names[helper] if d20 and helper is not None else None,
                )
                typed = f"/check ability:{ability}" + (
                    f" helper:{options.helper}" if options.helper else ""
                )
                await checks.perform_check(db, rng, table.caller(seat), options, typed)
            elif kind == "gm-check":
                _, seat = step
                await checks.perform_gm_check(
                    db,
                    rng,
                    table.caller(GM),
                    world.names[seat],
                    checks.CheckOptions(ability=ability),
                    f"/gm check character:{world.names[seat]} ability:{ability}",
                )
            elif kind == "attack" and d20:
                _, seat, target = step
                name = world.names[target] if target is not None else None
                await attacks.perform_attack(
                    db,
                    rng,
                    table.caller(seat),
                    attacks.AttackOptions(ac=12, damage="1d6", target=name),
                    f"/attack ac:12 damage:1d6 target:{name}",
                    visibility="public",
                )
            elif kind == "group":
                await groups.group_save(
                    db, rng, table.caller(GM), ability, f"/groupsave ability:{ability}", dc=10
                )
            elif kind == "request":
                _, seats = step
                targets = ", ".join(world.names[s] for s in seats)
                made = await requests.create(
                    db,
                    table.caller(GM),
                    ability,
                    f"/request ability:{ability} characters:{targets}",
                    characters_text=targets,
                    dc=10,
                )
                for seat in seats[:-1]:  # the last one never answers
                    await requests.answer(db, rng, table.caller(seat), made.id, "Roll button")
            elif kind == "post":
                _, seat, word, helper = step
                inline = "[[1d6]]"
                if d20 and helper is not None:
                    inline = f"[[check {ability} helper:{world.names[helper]}]]"
                await posts.create_post(
                    db,
                    table.caller(seat),
                    f"{word} looks at {world.names[(seat + 2) % 3]}: {inline} <@{table.users[0]}>",
                    rng,
                )
            elif kind == "turns":
                await turns.start(db, rng, table.caller(GM), None, "initiative", None, NOW)
            elif kind == "declare":
                _, seat, word = step
                with contextlib.suppress(UserError):  # one is open already
                    await rounds.open_round(db, table.caller(GM), NOW)
                await rounds.declare(db, table.caller(seat), f"{word} hides", NOW)
            elif kind == "generate" and not d20:
                players = [(table.users[s], world.shown[s]) for s in range(3)]
                await generation.roll_scores(
                    db, rng, table.caller(GM), players, "/generate players:@a @b @c"
                )
        except UserError:
            pass  # refused (a character helping themselves, ...): changes nothing
    return campaign


async def snapshot(db: Database) -> dict[str, dict[str, dict[str, Any]]]:
    """Every row of every table, by table and primary key."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    async with db.sessionmaker() as session:
        for table in metadata.sorted_tables:
            keys = [c.name for c in table.primary_key.columns]
            rows = {}
            for row in await session.execute(select(table)):
                values = dict(row._mapping)
                rows[json.dumps([values[k] for k in keys], default=str)] = values
            out[table.name] = rows
    return out


def _strings_changed(before: Any, after: Any, names: set[str], at: str = "") -> list[str]:
    """Where ``after`` differs from ``before``; each difference must be a string that held
    one of ``names`` (any case) turned into the tombstone, else it is reported."""
    if isinstance(before, dict) and isinstance(after, dict) and before.keys() == after.keys():
        return [
            bad for k in before for bad in _strings_changed(before[k], after[k], names, f"{at}/{k}")
        ]
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            bad
            for i, (b, a) in enumerate(zip(before, after, strict=True))
            for bad in _strings_changed(b, a, names, f"{at}/{i}")
        ]
    if before == after:
        return []
    held = isinstance(before, str) and any(n.casefold() in before.casefold() for n in names)
    if held and after == cm.TOMBSTONE:
        return []
    return [f"{at}: {before!r} -> {after!r}"]


def oracle(
    before: dict[str, dict[str, dict[str, Any]]], user: int, guild: int | None
) -> tuple[dict[int, set[str]], set[int], set[int], set[int]]:
    """What names the person by id, from the data alone: the ledger rows naming them and by
    which names (``ledger_names``; rows rolled for their characters), their own rows, their
    characters, and the posts with a bound copy of a row naming them."""

    def here(row: dict[str, Any]) -> bool:
        return guild is None or row.get("guild_id") == guild

    campaigns_here = {r["id"] for r in before["campaigns"].values() if here(r)}
    mine = {
        r["id"]: r["name"]
        for r in before["characters"].values()
        if r["user_id"] == user and r["campaign_id"] in campaigns_here
    }
    ledger_rows = before["ledger"]
    by_id = {r["id"]: r for r in ledger_rows.values()}
    own = {r["id"] for r in ledger_rows.values() if r["user_id"] == user and here(r)}
    named: dict[int, set[str]] = {}
    for r in before["ledger_names"].values():
        if r["user_id"] == user and here(by_id[r["ledger_id"]]):
            named.setdefault(r["ledger_id"], set()).add(r["name"])
    for r in ledger_rows.values():
        if r["character_id"] in mine and r["user_id"] != user:
            named.setdefault(r["id"], set()).add(mine[r["character_id"]])
    post_owner = {r["id"]: r["user_id"] for r in before["posts"].values()}
    bound_posts = {
        r["post_id"]
        for r in before["post_rolls"].values()
        if r["ledger_id"] in named and post_owner[r["post_id"]] != user
    }
    return named, own, set(mine), bound_posts


#: Tables whose rows are a person's by their ``user_id`` column alone.
BY_USER_ID = frozenset(
    {
        "ledger_names",
        "characters",
        "posts",
        "notify_settings",
        "fortune_choices",
        "round_declarations",
        "roll_request_targets",
    }
)
#: Tables whose rows belong to a character (deleted with it).
BY_CHARACTER = frozenset(
    {
        "character_scores",
        "character_proficiencies",
        "character_saves",
        "macros",
        "prerolls",
        "pending_modifiers",
    }
)


def check_erasure(
    before: dict[str, dict[str, dict[str, Any]]],
    after: dict[str, dict[str, dict[str, Any]]],
    user: int,
    guild: int | None,
) -> list[str]:
    """Every change the erasure made that the declaration or the identity rule forbids."""
    declared = {h.table: h.changes for h in privacy.HOLDINGS}
    named, own, mine, bound_posts = oracle(before, user, guild)
    post_ledger = {
        r["ledger_id"] for r in before["post_versions"].values() if r["post_id"] in bound_posts
    }
    changed_ledger = {
        key for key, row in before["ledger"].items() if after["ledger"].get(key) != row
    }
    changed_ids = {before["ledger"][k]["id"] for k in changed_ledger}
    my_posts = {r["id"] for r in before["posts"].values() if r["user_id"] == user}
    problems: list[str] = []
    for table, rows in before.items():
        for key, row in rows.items():
            new = after[table].get(key)
            if new == row:
                continue
            where = f"{table} {key}"
            allowed = declared.get(table)
            if allowed is None:
                problems.append(f"{where}: changed, but the table is not declared")
                continue
            gone = new is None
            columns = set() if gone else {c for c in row if row[c] != new[c]}
            if gone and allowed != privacy.DELETED and "*" not in allowed:
                problems.append(f"{where}: deleted, not declared")
            if not gone and not columns <= allowed:
                problems.append(f"{where}: {sorted(columns - allowed)} not declared")
            # Whose is it? By id only.
            if table == "ledger":
                rid = row["id"]
                if rid in own:
                    continue
                names = named.get(rid)
                if rid in post_ledger and columns <= {"outcome"}:
                    names = (names or set()) | {row["outcome"].get("sha256", "")}
                if names is None:
                    problems.append(f"{where}: another's row naming nobody erased changed")
                    continue
                for column in columns - {"character_id"}:
                    for bad in _strings_changed(row[column], new[column], names):
                        problems.append(f"{where} {column}{bad}")
            elif table == "ledger_salts":
                if row["ledger_id"] not in changed_ids:
                    problems.append(f"{where}: salts of a row the erasure left changed")
            elif table in BY_USER_ID:
                if row["user_id"] != user:
                    problems.append(f"{where}: someone else's")
            elif table in BY_CHARACTER:
                if row["character_id"] not in mine:
                    problems.append(f"{where}: someone else's character")
            elif table == "post_rolls":
                if not gone and row["ledger_id"] not in named:
                    problems.append(f"{where}: a copy of a roll naming nobody erased changed")
                if gone and row["post_id"] not in my_posts:
                    problems.append(f"{where}: someone else's post")
            elif table == "post_versions":
                if gone and row["post_id"] not in my_posts:
                    problems.append(f"{where}: someone else's post")
                if not gone and row["post_id"] not in bound_posts:
                    mention = f"<@{user}>" in row["text"]
                    if not mention:
                        problems.append(f"{where}: a post naming nobody erased changed")
            elif table == "roll_requests":
                targets = {
                    t["request_id"]
                    for t in before["roll_request_targets"].values()
                    if t["user_id"] == user
                }
                if row["gm_user_id"] != user and row["id"] not in targets:
                    problems.append(f"{where}: names nobody erased")
            elif table == "ability_generations":
                if row["gm_user_id"] != user and user not in row["player_ids"]:
                    problems.append(f"{where}: names nobody erased")
            elif table == "campaigns":
                if user not in row["gm_user_ids"]:
                    problems.append(f"{where}: not their seat")
            elif table == "turn_orders":
                if not any(e.get("user_id") == user for e in row["entries"]):
                    problems.append(f"{where}: does not list them")
            elif table == "rounds" and row["opened_by"] != user:
                problems.append(f"{where}: not theirs")
    for table, rows in after.items():
        for key in rows.keys() - before[table].keys():
            # An erased row's salts are rewritten: one per field, kept or erased.
            if table != "ledger_salts" or rows[key]["ledger_id"] not in changed_ids:
                problems.append(f"{table} {key}: a row appeared")
    return problems


def traces(after: dict[str, dict[str, dict[str, Any]]], user: int) -> list[str]:
    """Their id anywhere after an erasure everywhere."""
    return [
        f"{table} {key}"
        for table, rows in after.items()
        for key, row in rows.items()
        if str(user) in json.dumps(row, default=str)
    ]


async def test_erasing_one_person_changes_only_what_is_theirs_or_names_them(db: Database) -> None:
    for index, world in enumerate(generate()):
        table = Table(index, world)
        campaign = await play(db, table)
        user = table.users[world.erased]
        guild = None if world.everywhere else table.guild
        before = await snapshot(db)
        await privacy.erase_user(db, user, guild, names=[world.shown[world.erased]])
        after = await snapshot(db)
        problems = check_erasure(before, after, user, guild)
        assert problems == [], (world, problems[:10])
        if world.everywhere:
            assert traces(after, user) == [], world
        assert (await gamelog.check_campaign_log(db, campaign)).intact, world


def test_every_table_that_holds_a_person_or_text_is_declared() -> None:
    """A table with a user id, a name or free text must say what an erasure does to it."""
    declared = {h.table for h in privacy.HOLDINGS} | set(privacy.NOTHING_PERSONAL)
    assert declared <= {t.name for t in metadata.sorted_tables}  # nothing stale
    for table in metadata.sorted_tables:
        person = [
            c.name
            for c in table.columns
            if c.name.endswith(("user_id", "user_ids", "player_ids", "opened_by"))
            or c.name in ("name", "character_name")
            or isinstance(c.type, Text | JSON)
            or isinstance(getattr(c.type, "impl", None), Text | JSON)
        ]
        if person:
            assert table.name in declared, (table.name, person)
