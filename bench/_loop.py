"""What the whole-log benchmarks share: a fresh database, and one call timed with the event
loop's longest stall (a 1 ms heartbeat) and the process's peak memory growth.

Imported by ``bench/privacy.py``, ``bench/walks.py`` and ``bench/scale.py`` (run from the
repo root, so this folder is on ``sys.path``).
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sqlalchemy import text

from bot.db.engine import create_database
from bot.db.migrate import upgrade_to_head

_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    """The process's resident memory now, in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * _PAGE_BYTES


async def fresh_database(url: str | None, folder: str) -> str:
    """A migrated, empty database: ``url`` (a PostgreSQL URL, EMPTIED first), or a SQLite file
    in ``folder``; its URL."""
    target = url or f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}"
    if url is not None:
        reset = create_database(url)
        async with reset.engine.begin() as connection:
            await connection.execute(text("DROP SCHEMA public CASCADE"))
            await connection.execute(text("CREATE SCHEMA public"))
        await reset.dispose()
    await upgrade_to_head(target)
    return target


async def timed(
    work: Callable[[], Awaitable[Any]], every: float = 0.001
) -> tuple[float, float, int]:
    """(seconds, longest event-loop stall in seconds, peak RSS growth in bytes) of one call;
    the probe posts a callback every ``every`` seconds (the stall: how late it ran)."""
    took, stall, _, _, grew = await probed(work, every)
    return took, stall, grew


async def probed(
    work: Callable[[], Awaitable[Any]], every: float = 0.001
) -> tuple[float, float, float, float, int]:
    """:func:`timed`, with the longest single callback the loop ran meanwhile, in the loop
    thread's own CPU time: what one piece of code held the loop for, without the time the
    machine gave other processes (which the probe's lateness includes); and the longest
    garbage collection (inside some callback: a pause no code of ours asked for).

    (seconds, stall, longest callback, longest collection, peak RSS growth)."""
    stalls = [0.0]
    held = [0.0]
    collected = [0.0]
    began_gc = [0.0]

    def collecting(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            began_gc[0] = time.thread_time()
        else:
            collected[0] = max(collected[0], time.thread_time() - began_gc[0])

    base = rss()
    peak = [base]
    busy = True
    real_run = asyncio.events.Handle._run

    def run(handle: asyncio.events.Handle) -> None:
        began = time.thread_time()
        real_run(handle)
        held[0] = max(held[0], time.thread_time() - began)

    async def heartbeat() -> None:
        last = time.perf_counter()
        while busy:
            await asyncio.sleep(every)
            now = time.perf_counter()
            stalls.append(now - last - every)
            peak[0] = max(peak[0], rss())
            last = now

    beat = asyncio.create_task(heartbeat())
    await asyncio.sleep(0)
    asyncio.events.Handle._run = run  # type: ignore[method-assign]
    gc.callbacks.append(collecting)
    try:
        started = time.perf_counter()
        await work()
        took = time.perf_counter() - started
    finally:
        asyncio.events.Handle._run = real_run  # type: ignore[method-assign]
        gc.callbacks.remove(collecting)
    peak[0] = max(peak[0], rss())
    busy = False
    await beat
    return took, max(stalls), held[0], collected[0], peak[0] - base
