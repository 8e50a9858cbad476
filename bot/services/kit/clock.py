"""The game clock's time: one injected clock object, and the durations players type.

Everything that compares with "now" (deadlines, reminders, turns) asks a :class:`Clock`, never
the system time directly, so tests drive it with SimCord's virtual clock and never sleep. The
running bot's clock reads ``discord.utils.utcnow()`` (bot/app.py), which SimCord virtualizes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol

from bot.services.kit.errors import InvalidValue

#: The longest deadline, reminder or extension: a month of real time is already a long wait.
MAX_DURATION = timedelta(days=30)
MIN_DURATION = timedelta(minutes=1)

_DURATION = re.compile(r"(?:(?P<d>\d{1,3})d)?(?:(?P<h>\d{1,4})h)?(?:(?P<m>\d{1,5})m)?")


class Clock(Protocol):
    """Where the current time comes from."""

    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...


class SystemClock:
    """The operating system's clock (the offline table and scripts; the bot uses Discord's)."""

    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass
class ManualClock:
    """A clock that moves only when told: for service tests and the benchmark."""

    current: datetime = field(default_factory=lambda: datetime(2026, 1, 1, tzinfo=UTC))

    def now(self) -> datetime:
        return self.current

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.current += timedelta(seconds=seconds)


def parse_duration(text: str, *, what: str = "duration") -> timedelta:
    """``90m``, ``24h``, ``2d``, ``1d12h`` (days, hours, minutes, in that order) to a timedelta.

    Anything else, less than a minute or more than 30 days is refused in the player's words.
    """
    raw = "".join(text.split()).lower()
    match = _DURATION.fullmatch(raw)
    if not raw or match is None or not any(match.groupdict().values()):
        raise InvalidValue(
            f"{what.capitalize()} {text.strip()[:20]!r} is not a duration: write it like 90m, "
            "24h, 2d or 1d12h (days, hours, minutes)."
        )
    parts = {k: int(v) for k, v in match.groupdict().items() if v}
    span = timedelta(days=parts.get("d", 0), hours=parts.get("h", 0), minutes=parts.get("m", 0))
    if span < MIN_DURATION:
        raise InvalidValue(f"A {what} must be at least 1 minute.")
    if span > MAX_DURATION:
        raise InvalidValue(f"A {what} can be at most 30 days (30d).")
    return span


def format_duration(span: timedelta) -> str:
    """The inverse of :func:`parse_duration`: ``1d12h``, ``90m`` → ``1h30m``."""
    minutes = int(span.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    out = "".join(f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (mins, "m")) if n)
    return out or "0m"
