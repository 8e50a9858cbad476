"""The game clock's loop: runs due scheduled jobs and posts what they produced.

A ``discord.ext.tasks`` loop over bot/services/table/scheduler.py; each feature posts its notices.

The loop starts when the bot is ready (its first pass runs at once: a job that fell due while
the bot was down runs then, once) and polls every ``SCHEDULER_POLL_SECONDS``. Jobs run in the
services, which commit their effects before anything is posted here. Each notice is posted
where its game is (a channel, a thread, a forum post, an archived thread; bot/cogs/_notices.py):
a transient failure is retried with backoff; a refusal is kept (it shows in /catchup and
/gm log) and told to the GM once. The job is then marked ``delivered`` or ``undelivered``; the
effect (a completed request, a passed turn) stands either way.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, cast

from discord.ext import commands, tasks

from bot.cogs._clock_hooks import DELIVERERS
from bot.cogs._notices import load_known_gaps
from bot.services.kit.errors import StorageUnavailable
from bot.services.table import delivery, scheduler

if TYPE_CHECKING:
    from bot.app import PbpBot

log = logging.getLogger(__name__)

#: Jobs one pass runs at most; the rest wait for the next pass (keeps a pass short).
BATCH = 500


def shards_of(bot: PbpBot) -> scheduler.Shards:
    """The shards this process serves, as configured (SHARD_COUNT / SHARD_IDS)."""
    count = bot.settings.shard_count or bot.shard_count or 1
    ids = bot.settings.shard_ids
    return scheduler.Shards(count, None if ids is None else tuple(ids))


class ClockCog(commands.Cog):
    """Polls the scheduler; one pass at start-up, then every poll interval."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = cast("PbpBot", bot)
        self.poll.change_interval(seconds=self.bot.settings.scheduler_poll_seconds)
        self._wake_at: datetime | None = None
        #: The loop has begun a pass (before that it has no pass to count from).
        self._passed = False

    async def cog_unload(self) -> None:
        self.poll.cancel()

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        # Also after a reconnect or a restarted client, whose old loop task was cancelled.
        if not self.poll.is_running():
            await load_known_gaps(self.bot)
            self.poll.start()

    @tasks.loop(seconds=30)
    async def poll(self) -> None:
        self._passed = True
        self._wake_at = None  # this pass sees every job committed before it
        ran = await self.run_once()
        # Sleep until the next job of ours is due, at most the poll interval (a job another
        # process made for our guilds), at least a second (unless this pass hit its batch
        # limit: then go on at once).
        cap = self.bot.settings.scheduler_poll_seconds
        wait = cap
        if ran >= BATCH:
            wait = 0.0
        else:
            try:
                due = await scheduler.next_due(self.bot.db, shards_of(self.bot))
            except Exception:
                due = None
            if self._wake_at is not None and (due is None or self._wake_at < due):
                due = self._wake_at
            if due is not None:
                wait = min(cap, max(1.0, (due - self.bot.clock.now()).total_seconds()))
        self.poll.change_interval(seconds=self._since_last_iteration() + wait)

    def _last_pass(self) -> datetime | None:
        """When the current (or last) pass was scheduled, from the loop's public API.

        discord.py plans each pass at ``previous pass + interval`` (``change_interval``
        re-plans from the previous pass too), so that pass is the next one less the interval.
        """
        planned = self.poll.next_iteration
        if planned is None or not self._passed:
            return None
        interval = timedelta(
            hours=self.poll.hours or 0,
            minutes=self.poll.minutes or 0,
            seconds=self.poll.seconds or 0,
        )
        return planned - interval

    def _since_last_iteration(self) -> float:
        """The loop counts its interval from when this pass was scheduled, not from now."""
        last = self._last_pass()
        if last is None:
            return 0.0
        return max(0.0, (self.bot.clock.now() - last).total_seconds())

    def wake(self, when: datetime) -> None:
        """A job of ours was just scheduled for ``when``: pass then, if that is sooner."""
        if self._wake_at is None or when < self._wake_at:
            self._wake_at = when
        planned = self.poll.next_iteration
        last = self._last_pass()
        if planned is not None and last is not None and when < planned:
            self.poll.change_interval(seconds=max(0.0, (when - last).total_seconds()))

    async def run_once(self) -> int:
        """One pass: run the due jobs of this process's shards, then post their notices."""
        try:
            ran = await scheduler.run_due(
                self.bot.db,
                self.bot.clock.now(),
                self.bot.rng,
                shards=shards_of(self.bot),
                limit=BATCH,
            )
        except StorageUnavailable:
            log.warning("game clock: the database is unavailable; retrying at the next pass")
            return 0
        except Exception as exc:  # the loop must outlive any one bad pass
            # The error's name only: a database error's text can quote a hidden roll.
            log.warning("game clock: a pass failed (%s)", type(exc).__name__)
            return 0
        for done in ran:
            try:
                delivered = await self.deliver(done.notice, done.job.id)
            except Exception as exc:
                delivered = False
                log.warning(
                    "game clock: job %s ran, but its notice was not posted (%s)",
                    done.job.id,
                    type(exc).__name__,
                )
            if delivered is None:
                continue
            try:
                await delivery.mark_job(self.bot.db, done.job.id, delivered)
            except StorageUnavailable:
                log.warning("game clock: job %s's delivery not recorded (storage)", done.job.id)
        return len(ran)

    async def deliver(self, notice: object, job_id: int | None = None) -> bool | None:
        """Post what a job produced, as the feature that scheduled it registered; whether it
        got through (None: the job posts nothing)."""
        if notice is None:
            return None
        deliver = DELIVERERS.get(type(notice))
        if deliver is None:
            log.warning("game clock: no delivery for %s", type(notice).__name__)
            return False
        return await deliver(self.bot, notice, job_id)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ClockCog(bot))
