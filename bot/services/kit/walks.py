"""Whole-log work that never holds up the table: one walk per campaign, a page per short
transaction, a turn for the event loop between pages, and its progress told as it goes.

A walk (``/verify log``, ``/campaign export``, ``/stats``) reads a long game a page at a time,
each page in its own transaction, so no transaction and no stretch of the event loop grows with
the size of the game; between pages the other players' commands run. A campaign lives in one
guild, served by one process (shard), so the process's own registry is enough to keep a second
walk of the same campaign from starting while one runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from bot.errors import UserError

#: Rows read per transaction: well under the 50 ms a command may hold the loop (bench/walks.py).
PAGE = 250
#: A walk longer than this shows its progress (one message edited as it goes).
SHOWN_FROM = 2_000
#: Members of a group roll handled between two turns of the loop in each pure-Python phase of
#: one transaction (rolling, sealing the rows): a party of 100 holds the loop in pieces well
#: under the 50 ms a command may (bench/scale.py --only party).
MEMBERS_PER_TURN = 20

#: ``progress(done, total)``: how far a walk is, in rows. The caller decides how often to
#: show it (Discord limits message edits); a walk calls it after every page.
Progress = Callable[[int, int], Awaitable[None]]

_running: dict[int, str] = {}


class WalkRunning(UserError):
    """A walk of this campaign's log is already under way."""


@asynccontextmanager
async def one_walk(campaign_id: int, what: str, rows: int) -> AsyncIterator[None]:
    """Run one long walk of this campaign's log at a time; another is refused while one runs.

    ``what`` names the walk for the refusal ("a /verify log", "an export"); ``rows``: its
    length. A walk of at most :data:`SHOWN_FROM` rows is over in a moment and never refused.
    """
    if rows <= SHOWN_FROM:
        yield
        return
    running = _running.get(campaign_id)
    if running is not None:
        raise WalkRunning(
            f"{running[0].upper()}{running[1:]} of this campaign's log is already running: "
            "its message will show the result. Try again when it is done."
        )
    _running[campaign_id] = what
    try:
        yield
    finally:
        del _running[campaign_id]


async def turn() -> None:
    """Give the event loop a turn between pages: the other players' commands run here."""
    await asyncio.sleep(0)


async def turn_every(done: int, size: int = MEMBERS_PER_TURN) -> None:
    """A turn of the loop before every ``size``-th item of a batch after the first (``done``:
    how many are handled already), so a long pure-Python loop holds the loop in pieces."""
    if done and done % size == 0:
        await turn()


async def tell(progress: Progress | None, done: int, total: int) -> None:
    """Report progress when the walk is long enough to be worth showing."""
    if progress is not None and total > SHOWN_FROM:
        await progress(done, total)
