"""Noisy neighbour: one user floods the costliest legal commands while nine others play.

Run from the repo root: ``.venv/bin/python bench/noisy.py`` (``--seconds``, ``--postgres``).
The real bot (``create_bot``) answers in SimCord, as in bench/commands.py, whose timing
(emit → the interaction's first answer recorded) this reuses. Three runs on fresh databases:

* **quiet**: the nine players alone, the reference;
* **flood, budgets off**: ``BUDGETS_ENABLED=false``; a tenth user's macro sends the
  costliest legal commands, round robin, 20 a second (``--flood-rate``; "unpaced": as fast as
  answers come back), never more than four unanswered: ``/roll 1000d20kh500``,
  ``/odds roll`` of ``10d20kh5`` (the engine meters ~300,000 steps, the most it allows, then
  refuses), ``/odds roll 60d20`` (answered after ~180,000 steps), ``/history limit:25``, a
  ``/post`` holding twenty ``[[check DEX dc:12]]`` (twenty rows) and ``/odds roll 1d200/1d200``
  (a division by a large die, ~166,000 steps);
* **flood, budgets on**: the same with the default budgets (bot/services/kit/budgets.py).

Each of the nine players sends ``/roll 1d20+5``, ``/check ability:DEX dc:12`` or
``/roll 4d6kh3``, waits for the answer, thinks 100-300 ms (a far busier table than play by
post), and sends the next. Reported: the players' response times, p50 / p99, over the whole
run and from 5 s in (once a budget's burst is spent), and what the flood got.
Budgets refill on the real clock here (SimCord's virtual clock stands still in a benchmark).
Not a test: the numbers depend on the machine (a shared 2-core box: compare within one run).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import random
import re
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import simcord
from simcord._dpy_internals import real_monotonic

from bot.app import PbpBot, create_bot
from bot.config import Settings
from bot.services.store import characters as chars
from bot.services.store.campaigns import DEFAULT_ABILITIES, setup_campaign
from bot.tree import user_message

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("bench_commands", ROOT / "bench" / "commands.py")
assert _spec is not None and _spec.loader is not None
cmd = importlib.util.module_from_spec(_spec)
sys.modules["bench_commands"] = cmd  # its dataclasses look their module up
_spec.loader.exec_module(cmd)

PLAYERS = 9
STEADY = 5.0
THINK = 0.2
FLOOD_IN_FLIGHT = 4
NORMAL: list[tuple[str, dict[str, Any]]] = [
    ("roll", {"dice": "1d20+5"}),
    ("check", {"ability": "DEX", "dc": 12}),
    ("roll", {"dice": "4d6kh3"}),
]
FLOOD: list[tuple[str, dict[str, Any]]] = [
    ("roll", {"dice": "1000d20kh500"}),
    ("odds roll", {"dice": "10d20kh5"}),
    ("odds roll", {"dice": "60d20"}),
    ("history", {"limit": 25}),
    ("post", {"text": "I dance " + " ".join(["[[check DEX dc:12]]"] * 20)}),
    ("odds roll", {"dice": "1d200/1d200"}),
]


@dataclass
class Run:
    normal: list[float] = field(default_factory=list)
    #: The same, from STEADY seconds in on (a budget's burst is spent by then).
    steady: list[float] = field(default_factory=list)
    flood_sent: int = 0
    flood_refused: int = 0
    #: The nine players' commands refused by a budget: their own, or the server's (which one
    #: person's commands must never empty).
    players_refused: int = 0
    seconds: float = 0.0
    cpu: float = 0.0


async def world(env: Any, bot: PbpBot) -> tuple[Any, list[Any], Any]:
    """One server, one d20-check campaign in #table, ten members each with a character."""
    owner = env.create_user("owner")
    guild = env.create_guild("Noisy", owner=owner)
    guild.add_member(owner)
    gm_role = guild.create_role("GM", permissions=discord.Permissions.none())
    table = guild.create_text_channel("table")
    users = [guild.add_member(env.create_user(f"u{i}")) for i in range(PLAYERS + 1)]
    campaign = await setup_campaign(
        bot.db, guild.id, table.id, "d20-check", gm_role_ids=[gm_role.id]
    )
    for i, user in enumerate(users):
        character = await chars.create_character(bot.db, campaign.id, user.id, f"Hero {i}")
        for ability in DEFAULT_ABILITIES[campaign.system]:
            await chars.set_score(bot.db, character.id, ability, 12)
    # A history worth paging: the players' rolls of a session.
    for i in range(200):
        await users[i % PLAYERS].slash(table, "roll", dice="1d20+5")
    return table, users[:PLAYERS], users[PLAYERS]


async def measure(url: str, *, flood_rate: float | None, budgets: bool, seconds: float) -> Run:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_url=url, shard_count=1, budgets_enabled=budgets
    )
    bot = create_bot(settings, rng=random.Random(1), freeze_heap=True)
    run = Run()
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(bot.close_database)
        env = await stack.enter_async_context(simcord.run(bot))
        if bot.budgets is not None:
            bot.budgets.clock = real_monotonic  # see the module docstring
            bot.budgets.wall = time.time
        cmd.instrument(bot)
        cmd.fast_callbacks(env)
        table, players, noisy = await world(env, bot)
        payloads = {
            (p.id, i): cmd.command_data(p, table, name, options)
            for p in players
            for i, (name, options) in enumerate(NORMAL)
        }
        flood_payloads = [cmd.command_data(noisy, table, n, o) for n, o in FLOOD]
        await env.settle()
        _ = env.errors
        cpu, started = time.process_time(), time.perf_counter()
        stop = started + seconds
        REFUSALS[0] = PLAYER_REFUSALS[0] = 0

        async def player(actor: Any, turn: int) -> None:
            rng = random.Random(actor.id)
            while time.perf_counter() < stop:
                data = payloads[(actor.id, turn % len(NORMAL))]
                turn += 1
                sample = cmd.emit(env, actor, table, data)
                await sample.done
                if sample.response is not None:
                    run.normal.append(sample.response - sample.emitted)
                    if sample.emitted - started >= STEADY:
                        run.steady.append(sample.response - sample.emitted)
                await asyncio.sleep(THINK * rng.uniform(0.5, 1.5))

        async def macro() -> None:
            """The flooder: a new command every ``1 / flood_rate`` s (0: as fast as it can),
            never more than FLOOD_IN_FLIGHT unanswered."""
            in_flight: set[asyncio.Future[None]] = set()
            turn = 0
            next_at = time.perf_counter()
            while time.perf_counter() < stop:
                if len(in_flight) >= FLOOD_IN_FLIGHT:
                    _, pending = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                    in_flight = set(pending)
                    continue
                if flood_rate:
                    delay = next_at - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    next_at += 1 / flood_rate
                sample = cmd.emit(env, noisy, table, flood_payloads[turn % len(FLOOD)])
                FLOOD_SAMPLES.add(id(sample))
                turn += 1
                run.flood_sent += 1
                in_flight.add(sample.done)
            if in_flight:
                await asyncio.wait(in_flight)

        tasks = [player(p, i) for i, p in enumerate(players)]
        if flood_rate is not None:
            tasks.append(macro())
        await asyncio.gather(*tasks)
        run.seconds = time.perf_counter() - started
        run.cpu = time.process_time() - cpu
        await env.settle()
        unexpected = [e for e in env.errors if user_message(e) is None]
        if unexpected:
            raise RuntimeError(f"the bot raised during the benchmark: {unexpected[:3]!r}")
        run.flood_refused = REFUSALS[0]
        run.players_refused = PLAYER_REFUSALS[0]
    return run


#: Interactions answered with the budget's refusal in the current run: the flooder's, and the
#: nine players'.
REFUSALS = [0]
PLAYER_REFUSALS = [0]
#: The flooder's samples (by identity), to tell whose interaction a refusal answered.
FLOOD_SAMPLES: set[int] = set()
_INTERACTION = re.compile(r"^/interactions/(\d+)/")
_dispatch = cmd.sim_router.dispatch  # bench/commands.py's timed dispatch


def _counting_dispatch(backend: Any, method: str, path: str, **kwargs: Any) -> Any:
    if path.endswith("/callback"):
        body = kwargs.get("json")
        data = body.get("data") if isinstance(body, dict) else None
        if isinstance(data, dict) and "try again <t:" in str(data.get("content") or ""):
            found = _INTERACTION.match(path)
            sample = cmd._SAMPLES.get(int(found[1])) if found else None
            if sample is not None and id(sample) not in FLOOD_SAMPLES:
                PLAYER_REFUSALS[0] += 1
            else:
                REFUSALS[0] += 1
    return _dispatch(backend, method, path, **kwargs)


cmd.sim_router.dispatch = _counting_dispatch


async def main_async(args: argparse.Namespace) -> dict[str, Run]:
    kind = "PostgreSQL" if args.postgres else "SQLite"
    rate = args.flood_rate
    results: dict[str, Run] = {}
    for name, flood_rate, budgets in (
        ("quiet: the 9 players alone", None, True),
        (f"flood {rate:g}/s, budgets off", rate, False),
        (f"flood {rate:g}/s, budgets on", rate, True),
        ("flood unpaced, budgets off", 0.0, False),
        ("flood unpaced, budgets on", 0.0, True),
    ):
        print(f"{name}…", file=sys.stderr)
        results[name] = await cmd.with_database(
            kind,
            lambda url, f=flood_rate, b=budgets: measure(
                url, flood_rate=f, budgets=b, seconds=args.seconds
            ),
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each run")
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL instead of SQLite")
    parser.add_argument(
        "--flood-rate", type=float, default=20.0, help="the paced flood's commands a second"
    )
    args = parser.parse_args()
    command = " ".join(
        shlex.quote(a) for a in [".venv/bin/python", "bench/noisy.py", *sys.argv[1:]]
    )
    before = cmd.uptime()
    results = asyncio.run(main_async(args))
    print(f"`{command}` ({'PostgreSQL' if args.postgres else 'SQLite'})\n")
    print(
        f"| run | players' commands | players' response p50 / p99 | the same after {STEADY:g} s "
        "| flood commands sent | flood refused by budget | players refused | CPU / wall |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, run in results.items():
        print(
            f"| {name} | {len(run.normal):,} | {cmd.pct(run.normal, 0.5):.1f} / "
            f"{cmd.pct(run.normal, 0.99):.1f} ms | {cmd.pct(run.steady, 0.5):.1f} / "
            f"{cmd.pct(run.steady, 0.99):.1f} ms | {run.flood_sent:,} | {run.flood_refused:,} "
            f"| {run.players_refused:,} | {run.cpu / run.seconds:.0%} |"
        )
    print(f"\nmachine: {cmd.machine()}\nbefore: {before}\nafter:  {cmd.uptime()}")


if __name__ == "__main__":
    main()
