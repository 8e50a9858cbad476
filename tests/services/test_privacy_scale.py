"""``/privacy show`` and erasure cost that person's rows, not the server's, and never hold the
event loop (docs/privacy.md, "What it costs"), on SQLite and PostgreSQL.

- Every statement they run reads the person's rows through an index on their id: the query
  plans of the statements actually run name an index, never a scan of a table that grows with
  the server (checked with ``EXPLAIN QUERY PLAN`` on SQLite and ``EXPLAIN`` on PostgreSQL,
  sequential scans disabled so the planner shows whether an index can serve the query).
- A walk over many rows reads a page per transaction and gives the event loop a turn between
  pages: another task runs between any two pages (no timing involved).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from sqlalchemy import event

from bot.db.engine import Database
from bot.db.models import RuleSystem
from bot.services.kit.context import Caller
from bot.services.rolling import checks, rolls
from bot.services.store.campaigns import CampaignView, setup_campaign
from bot.services.store.characters import create_character, set_score
from bot.services.table import posts
from bot.services.trust import privacy
from tests.scripted import ScriptedRandom
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GM_USER, GUILD

_ids = itertools.count(7_200_000_000_000_000)
#: Tables that grow with the server: a statement of /privacy show or an erasure may read them
#: only through an index. (Turn orders, score generations and the campaigns' known GMs are
#: read in the server's campaigns, ``ix_campaigns_guild_id``; a mention ``<@id>`` in posts'
#: text has no index: docs/privacy.md says so.)
BIG = (
    "ledger",
    "ledger_names",
    "ledger_salts",
    "characters",
    "posts",
    "post_rolls",
    "roll_requests",
    "roll_request_targets",
    "fortune_choices",
    "rounds",
    "round_declarations",
    "macros",
    "character_scores",
)


#: The one search that is not by an index: a mention ``<@id>`` in the text of the posts of
#: the server (of every server, for an erasure everywhere). docs/privacy.md says so; its cost
#: is measured by bench/privacy.py.
MENTIONS = re.compile(r"FROM post_versions JOIN posts .* LIKE", re.DOTALL)


def caller(user_id: int, channel: int = CHANNEL) -> Caller:
    roles = frozenset({GM_ROLE}) if user_id == GM_USER else frozenset()
    return Caller(
        user_id=user_id,
        channel_id=channel,
        guild_id=GUILD,
        role_ids=roles,
        interaction_id=next(_ids),
        display_name="Someone",
    )


async def busy_server(db: Database) -> CampaignView:
    """Alice plays in one of several campaigns where others play too."""
    first: CampaignView | None = None
    for n in range(3):
        campaign = await setup_campaign(
            db, GUILD, CHANNEL + n, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE]
        )
        first = first or campaign
        for user, name in ((ALICE, f"Ayla{n}"), (BOB, f"Zeph{n}")):
            hero = await create_character(db, campaign.id, user, name)
            await set_score(db, hero.id, "DEX", 12)
        for user in (ALICE, BOB, BOB):
            await checks.perform_check(
                db,
                ScriptedRandom(then=9),
                caller(user, CHANNEL + n),
                checks.CheckOptions(ability="DEX", helper=f"Zeph{n}" if user == ALICE else None),
                "/check ability:DEX",
            )
        await posts.create_post(
            db, caller(ALICE, CHANNEL + n), "Ayla: [[1d20]]", ScriptedRandom(then=3)
        )
    assert first is not None
    return first


@contextlib.contextmanager
def statements(db: Database) -> Iterator[list[tuple[str, Any]]]:
    """The SQL statements (and their parameters) run on ``db`` meanwhile."""
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE", "WITH")):
            seen.append((statement, params))

    event.listen(db.engine.sync_engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", record)


async def scans(db: Database, seen: list[tuple[str, Any]]) -> list[str]:
    """The plans that read a big table without an index: ``table: statement``."""
    found: list[str] = []
    async with db.engine.connect() as connection:
        if db.dialect == "postgresql":
            await connection.exec_driver_sql("SET enable_seqscan = off")
        for statement, params in seen:
            if MENTIONS.search(statement):
                continue
            explain = "EXPLAIN QUERY PLAN " if db.dialect == "sqlite" else "EXPLAIN "
            if isinstance(params, list) and params and isinstance(params[0], tuple | dict):
                params = params[0]  # an executemany: one row's plan is every row's
            result = await connection.exec_driver_sql(explain + statement, params)
            plan = "\n".join(str(row[-1]) for row in result)
            for table in BIG:
                if db.dialect == "sqlite":
                    bad = re.search(rf"\bSCAN {table}\b", plan)
                else:
                    bad = re.search(rf"Seq Scan on {table}\b", plan)
                if bad:
                    found.append(f"{table}: {statement.split()[:12]} ->\n{plan}")
        await connection.rollback()
    return found


@pytest.mark.parametrize("everywhere", [False, True])
async def test_show_and_erasure_read_the_person_through_indexes(
    db: Database, everywhere: bool
) -> None:
    await busy_server(db)
    guild = None if everywhere else GUILD
    with statements(db) as seen:
        await privacy.stored_data(db, ALICE, guild)
    found = await scans(db, seen)
    assert found == [], "\n\n".join(found)
    with statements(db) as seen:
        await privacy.erase_user(db, BOB, guild)
    found = await scans(db, seen)
    assert found == [], "\n\n".join(found)


@contextlib.asynccontextmanager
async def ticking(events: list[str]) -> AsyncIterator[None]:
    """Another task that notes each turn the event loop gives it."""
    done = asyncio.Event()

    async def tick() -> None:
        while not done.is_set():
            events.append("tick")
            await asyncio.sleep(0)

    task = asyncio.create_task(tick())
    try:
        yield
    finally:
        done.set()
        await task


def pages_without_turns(events: list[str]) -> int:
    """How many times a page followed another with no turn of the loop between them."""
    pages = [i for i, e in enumerate(events) if e == "page"]
    return sum(1 for a, b in itertools.pairwise(pages) if "tick" not in events[a:b])


async def test_long_walks_give_the_loop_a_turn_between_pages(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = await setup_campaign(db, GUILD, CHANNEL, RuleSystem.D20_CHECK)
    hero = await create_character(db, campaign.id, ALICE, "Ayla")
    await set_score(db, hero.id, "DEX", 12)
    for n in range(12):
        await rolls.roll_dice(
            db, ScriptedRandom(then=4), caller(ALICE), "1d20", label=f"x{n}", request="/roll"
        )
    events: list[str] = []
    real = privacy.transaction

    @contextlib.asynccontextmanager
    async def noted(database: Database) -> AsyncIterator[Any]:
        events.append("page")
        async with real(database) as session:
            yield session

    monkeypatch.setattr(privacy, "transaction", noted)
    monkeypatch.setattr(privacy, "PAGE", 2)
    monkeypatch.setattr(privacy, "SHOW_PAGE", 2)
    async with ticking(events):
        shown = await privacy.stored_data(db, ALICE)
    assert shown.servers[0].rolls == 12
    assert events.count("page") >= 6 and pages_without_turns(events) == 0
    events.clear()
    async with ticking(events):
        done = await privacy.erase_user(db, ALICE, GUILD)
    assert done.rolls_erased == 12
    assert events.count("page") >= 6 and pages_without_turns(events) == 0
