"""A feature that schedules a job wakes the game clock after its commit, so the job runs on
time without the loop polling often; nothing happens without a clock or a time.

Tests bot/cogs/_clock_hooks.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from bot.cogs._clock_hooks import wake

WHEN = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


class _Clock:
    def __init__(self) -> None:
        self.woken: list[datetime] = []

    def wake(self, when: datetime) -> None:
        self.woken.append(when)


def _bot(cog: Any) -> Any:
    return SimpleNamespace(get_cog=lambda name: cog if name == "ClockCog" else None)


def test_a_scheduled_job_wakes_the_clock_for_its_time() -> None:
    clock = _Clock()
    wake(_bot(clock), WHEN)
    assert clock.woken == [WHEN]


def test_no_time_or_no_clock_wakes_nothing() -> None:
    clock = _Clock()
    wake(_bot(clock), None)  # the command scheduled nothing
    assert clock.woken == []
    wake(_bot(None), WHEN)  # a bot without the clock (the offline table's tests)
    wake(_bot(object()), WHEN)  # something that cannot be woken
