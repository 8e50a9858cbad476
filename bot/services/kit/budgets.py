"""Budgets against abuse: token buckets of engine work, per user and per server.

Pure logic: no Discord, no database, no I/O; the clocks are injected. A command that does
expensive work (a large roll, exact odds, a page of history, an export, a walk of the whole
log) takes its *work* from two buckets before doing it: the caller's and the server's. Work is
counted in **units of about 10 µs of the event loop**, roughly one die rolled, recorded and
shown (measured: 6-10 ms for the largest roll), so ``/roll 1d20`` costs 1,
``/roll 1000d20kh500`` 1,000 and the costliest exact odds 1,500. Ordinary play never empties
a bucket; a macro looping the largest legal commands does within seconds, and is then told
when to try again. A refused command has done
nothing: the charge comes before any die is rolled or any row is read or written.

The buckets live in the memory of one process (one per shard group). Shards are assigned by
server, so a server's bucket is complete; a user active in servers run by several processes
gets one user bucket per process. Idle buckets are full, so they are dropped (``_sweep``):
memory stays proportional to the users active in the last refill period.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.dice import Expression
from bot.dice.batch import Batch
from bot.dice.limits import MAX_ODDS_COST
from bot.errors import UserError
from bot.services.kit.context import Caller

#: Exact-odds steps (``bot.dice.odds.OddsMeter``) in one unit of work: measured 30-90 ns a
#: step (10-26 ms for the 300,000 the engine allows), so about 15 ms at most.
ODDS_STEPS_PER_UNIT = 200
#: A page of ``/history``: per row read, checked for visibility and rendered (measured
#: ~30 µs a row, service and embed).
HISTORY_ROW = 4
#: Walking, exporting or counting the whole ledger of a campaign: per row.
LEDGER_ROW = 2
#: ``/odds check``, ``/save``, ``/luck``: the rules engine's odds of one d20 test (a few
#: hundred exact steps at most).
RULES_ODDS = 5
#: A rules roll recorded (a check, save, luck roll, attack, sealed pre-roll, or any inline
#: roll): its rules, its ledger row (number, hash chain, commitment) and its line shown.
#: Measured: twenty inline checks in one post took 1.3-2.6 times the costliest /roll (6-10 ms),
#: so 0.4-1.3 ms each. /roll pays for its dice alone: one row per command, as Discord sends it;
#: a post, a message or a macro can hold twenty.
ROLL_ROW = 60
#: One member of a group roll (/groupsave, /groupcheck) besides the group's own row
#: (``ROLL_ROW``): a die, a ledger row written in the group's one batch, a line shown. Less
#: than a lone roll's row, whose statements and message are its own; a party of 100 costs
#: 2,060 units, under half a user's default burst.
GROUP_MEMBER = 20
#: The costliest exact odds the engine computes, in units.
MAX_ODDS_WORK = -(-MAX_ODDS_COST // ODDS_STEPS_PER_UNIT)

Clock = Callable[[], float]


def _monotonic() -> float:
    # Looked up at each call, not bound at import: SimCord swaps ``time.monotonic`` for its
    # virtual clock while a simulation runs.
    return time.monotonic()


def _wall() -> float:
    return time.time()


def dice_work(expression: Expression | Batch) -> int:
    """A roll's work: its worst-case dice, every explosion, reroll and repeat counted (the
    parser's static bound, ``max_dice``), at least 1."""
    return max(1, expression.max_dice)


def group_work(members: int) -> int:
    """A group roll's work: the group's row and each member's."""
    return ROLL_ROW + GROUP_MEMBER * members


def odds_work(steps: int) -> int:
    """Exact odds' work from their steps (estimated or metered), at least 1."""
    return max(1, -(-steps // ODDS_STEPS_PER_UNIT))


@dataclass(frozen=True, slots=True)
class Rate:
    """A bucket's size (``burst`` units) and how fast it refills (units a second)."""

    burst: float
    per_second: float

    def __post_init__(self) -> None:
        if self.burst <= 0 or self.per_second <= 0:
            raise ValueError("a budget needs a positive burst and refill rate")

    @property
    def idle_seconds(self) -> float:
        """From empty to full: a bucket untouched this long is full, so it can be dropped."""
        return self.burst / self.per_second


class OverBudget(UserError):
    """Refused for now: too much expensive work lately. Says when to try again (a Discord
    relative timestamp) and which budget ran out; nothing was done."""

    def __init__(self, retry_at: float, *, server: bool) -> None:
        self.retry_at = retry_at
        self.server = server
        when = f"<t:{math.ceil(retry_at)}:R>"
        if server:
            text = (
                "This server has asked the dice engine for a lot of work in a short time "
                f"(large rolls, odds, history). Nothing was rolled or recorded; try again {when}."
            )
        else:
            text = (
                "You have asked the dice engine for a lot of work in a short time (large "
                f"rolls, odds, history). Nothing was rolled or recorded; try again {when}. "
                "Small rolls are back sooner."
            )
        super().__init__(text)


class Budgets:
    """Every user's and every server's bucket in this process.

    :meth:`take` is on the hot path of /roll: two dict look-ups and some arithmetic.
    """

    __slots__ = ("_last_sweep", "_levels", "clock", "guild", "user", "wall")

    def __init__(
        self, user: Rate, guild: Rate, *, clock: Clock = _monotonic, wall: Clock = _wall
    ) -> None:
        self.user = user
        self.guild = guild
        self.clock = clock
        self.wall = wall
        #: (kind, id) → [level, as of]: kind 0 a user, 1 a server. A missing key is full.
        self._levels: dict[tuple[int, int], list[float]] = {}
        self._last_sweep = clock()

    def _level(self, key: tuple[int, int], rate: Rate, now: float) -> list[float]:
        found = self._levels.get(key)
        if found is None:
            found = self._levels[key] = [rate.burst, now]
        elif now > found[1]:
            found[0] = min(rate.burst, found[0] + (now - found[1]) * rate.per_second)
            found[1] = now
        return found

    def take(self, user_id: int, guild_id: int | None, units: float) -> None:
        """Take ``units`` of work from the user's and the server's buckets, or take nothing
        and raise :class:`OverBudget`. A request larger than the user's bucket costs the whole
        bucket, so the largest legal command is always possible after a full refill; the
        server is charged the same, never more: one person's command draws at most one
        person's share of the server's budget, so no single player can empty it for all."""
        now = self.clock()
        if now - self._last_sweep > self.user.idle_seconds:
            self._sweep(now)
        user = self._level((0, user_id), self.user, now)
        need = min(units, self.user.burst)
        if user[0] < need:
            raise OverBudget(self._retry_at(need - user[0], self.user), server=False)
        server: list[float] | None = None
        if guild_id is not None:
            server = self._level((1, guild_id), self.guild, now)
            server_need = min(need, self.guild.burst)
            if server[0] < server_need:
                raise OverBudget(self._retry_at(server_need - server[0], self.guild), server=True)
            server[0] -= server_need
        user[0] -= need

    def spend(self, user_id: int, guild_id: int | None, units: float) -> None:
        """Charge work already done (the part an estimate missed): the buckets may go below
        empty, down to minus one burst, and refuse until they have refilled."""
        if units <= 0:
            return
        now = self.clock()
        user = self._level((0, user_id), self.user, now)
        before = user[0]
        user[0] = max(-self.user.burst, user[0] - units)
        if guild_id is not None:
            # The server pays what the user paid, no more (see :meth:`take`).
            server = self._level((1, guild_id), self.guild, now)
            server[0] = max(-self.guild.burst, server[0] - (before - user[0]))

    def refund(self, user_id: int, guild_id: int | None, units: float) -> None:
        """Give back what an estimate took beyond the work done (never above full)."""
        if units <= 0:
            return
        now = self.clock()
        user = self._level((0, user_id), self.user, now)
        user[0] = min(self.user.burst, user[0] + units)
        if guild_id is not None:
            server = self._level((1, guild_id), self.guild, now)
            server[0] = min(self.guild.burst, server[0] + min(units, self.user.burst))

    def level(self, user_id: int, guild_id: int | None = None) -> tuple[float, float | None]:
        """The user's (and server's) units available now: for tests and operators."""
        now = self.clock()
        user = self._level((0, user_id), self.user, now)[0]
        server = None if guild_id is None else self._level((1, guild_id), self.guild, now)[0]
        return user, server

    def _retry_at(self, missing: float, rate: Rate) -> float:
        return self.wall() + missing / rate.per_second

    def _sweep(self, now: float) -> None:
        """Drop the buckets that have refilled to full (a missing key reads as full): from
        one burst below empty (:meth:`spend`) that takes two refill periods."""
        self._last_sweep = now
        full_since = {0: now - 2 * self.user.idle_seconds, 1: now - 2 * self.guild.idle_seconds}
        stale = [key for key, (_, stamp) in self._levels.items() if stamp <= full_since[key[0]]]
        for key in stale:
            del self._levels[key]

    def __len__(self) -> int:
        return len(self._levels)


def charge(caller: Caller, units: float) -> None:
    """Take ``units`` of work from the caller's budgets, if the caller carries them (the bot
    does; the services' own tests and tools need not)."""
    if caller.budget is not None:
        caller.budget.take(caller.user_id, caller.guild_id, units)
