"""A ``discord.ext.tasks`` loop over bot/services/scheduler.py, and the delivery of notices.

The loop starts when the bot is ready (its first pass runs at once: a job that fell due while
the bot was down runs then, once) and polls every ``SCHEDULER_POLL_SECONDS``. Jobs run in the
services, which commit their effects before anything is posted here; a post that fails is
logged, never retried (the effect, such as a completed request, stands and shows in
/gm request status).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

import discord
from discord.ext import commands, tasks

from bot.cogs._delivery import send_to_gm
from bot.render.requests import closed_text, reminder_text, request_embed
from bot.services import requests, scheduler
from bot.services.errors import StorageUnavailable
from bot.services.secrecy import GmTargets
from bot.words import NotifyMode

if TYPE_CHECKING:
    from bot.app import PbpBot

log = logging.getLogger(__name__)

#: How other cogs' notices are posted (the turns cog adds its own), by notice type.
DELIVERERS: dict[type, Callable[[PbpBot, Any], Awaitable[None]]] = {}

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

    async def cog_unload(self) -> None:
        self.poll.cancel()

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        # Also after a reconnect or a restarted client, whose old loop task was cancelled.
        if not self.poll.is_running():
            self.poll.start()

    @tasks.loop(seconds=30)
    async def poll(self) -> None:
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

    def _since_last_iteration(self) -> float:
        """The loop counts its interval from when this pass was scheduled, not from now."""
        last = self.poll._last_iteration
        if not isinstance(last, datetime):
            return 0.0
        return max(0.0, (self.bot.clock.now() - last).total_seconds())

    def wake(self, when: datetime) -> None:
        """A job of ours was just scheduled for ``when``: pass then, if that is sooner."""
        if self._wake_at is None or when < self._wake_at:
            self._wake_at = when
        planned = self.poll.next_iteration
        last = self.poll._last_iteration
        if planned is not None and isinstance(last, datetime) and when < planned:
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
                await self.deliver(done.notice)
            except Exception as exc:
                log.warning(
                    "game clock: job %s ran, but its notice was not posted (%s)",
                    done.job.id,
                    type(exc).__name__,
                )
        return len(ran)

    async def deliver(self, notice: object) -> None:
        """Post what a job produced."""
        if isinstance(notice, requests.Closed):
            await self._closed(notice)
        elif isinstance(notice, requests.Reminders):
            await self._remind(notice)
        elif notice is not None:
            deliver = DELIVERERS.get(type(notice))
            if deliver is None:
                log.warning("game clock: no delivery for %s", type(notice).__name__)
                return
            await deliver(self.bot, notice)

    async def _channel(self, channel_id: int) -> discord.abc.Messageable | None:
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except discord.HTTPException:
                return None
        return channel if isinstance(channel, discord.abc.Messageable) else None

    async def _closed(self, closed: requests.Closed) -> None:
        """The request's message loses its button and shows the result; the verdict posts."""
        from bot.cogs.requests._cog import view_for

        request = closed.request
        channel = await self._channel(request.channel_id)
        if channel is None:
            log.warning("request #%s closed, but its channel is gone", request.id)
            return
        # The channel kinds a campaign (or its thread) can be: each can edit a message by id.
        if request.message_id is not None and isinstance(
            channel, discord.TextChannel | discord.Thread | discord.VoiceChannel
        ):
            try:
                await channel.get_partial_message(request.message_id).edit(
                    embed=request_embed(request), view=view_for(request)
                )
            except discord.HTTPException:
                log.warning("could not update request #%s in place", request.id)
        await channel.send(
            closed_text(request, closed.how),
            embed=request_embed(request),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if request.hidden:
            await send_to_gm(
                self.bot,
                GmTargets.of(closed.campaign),
                f"Roll request #{request.id} closed {closed.how}; reveal with "
                f"/gm request reveal request:{request.id}.",
                request_embed(request, gm_view=True),
            )

    async def _remind(self, notice: requests.Reminders) -> None:
        request = notice.request
        channel = await self._channel(request.channel_id)
        guild_id = request.guild_id
        link = (
            f"https://discord.com/channels/{guild_id}/{request.channel_id}/{request.message_id}"
            if request.message_id is not None and guild_id is not None
            else None
        )
        for reminder in notice.reminders:
            text = reminder_text(request, reminder, link)
            mentions = discord.AllowedMentions(users=True, everyone=False, roles=False)
            if reminder.mode == NotifyMode.DM:
                try:
                    user = self.bot.get_user(reminder.user_id) or await self.bot.fetch_user(
                        reminder.user_id
                    )
                    await user.send(text, allowed_mentions=mentions)
                    continue
                except discord.HTTPException:  # DMs closed: the channel, as by default
                    log.info("request #%s: DM reminder refused; pinging in the channel", request.id)
            if channel is None:
                continue
            try:
                await channel.send(text, allowed_mentions=mentions)
            except discord.HTTPException:
                log.warning(
                    "request #%s: reminder to %s not delivered", request.id, reminder.user_id
                )


def wake(bot: PbpBot, when: datetime | None) -> None:
    """Tell the clock a job of this process was scheduled for ``when`` (commands call this
    after their commit, so the loop need not poll often to be on time)."""
    cog = bot.get_cog("ClockCog")
    if when is not None and isinstance(cog, ClockCog):
        cog.wake(when)
