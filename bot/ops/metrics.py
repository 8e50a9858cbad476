"""Prometheus metrics of one bot process, in a registry of its own.

A registry per :class:`Metrics` (not prometheus_client's global one) so several bots in one
process, as in the tests, never collide. Names follow Prometheus conventions: counters end in
``_total``, durations are seconds.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

#: Command latency buckets: an answer is due within Discord's 3 s, most take milliseconds.
COMMAND_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
DB_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)
#: Statement kinds labelled by name; anything else is ``other`` (bounded label values).
_OPERATIONS = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE", "BEGIN", "COMMIT", "ROLLBACK"})
_START_KEY = "pbp_query_started"

LatencySource = Callable[[], Sequence[tuple[int, float]]]


_FIRST_WORD = re.compile(r"\s*(\w+)")


def operation_of(statement: str) -> str:
    """``select``, ``insert``…: the first keyword of a statement, or ``other``."""
    found = _FIRST_WORD.match(statement)  # not split(): statements run to kilobytes
    word = found.group(1).upper() if found else ""
    return word.lower() if word in _OPERATIONS else "other"


class _GatewayCollector(Collector):
    """Reads each shard's heartbeat latency at scrape time (no stale values between)."""

    def __init__(self) -> None:
        self.source: LatencySource | None = None

    def collect(self) -> Iterable[Metric]:
        family = GaugeMetricFamily(
            "pbp_gateway_latency_seconds",
            "Heartbeat latency of each gateway shard this process runs",
            labels=["shard"],
        )
        for shard_id, latency in self.source() if self.source else ():
            if math.isfinite(latency):
                family.add_metric([str(shard_id)], latency)
        yield family

    def describe(self) -> Iterable[Metric]:
        return self.collect()


class Metrics:
    """Commands by name and outcome, latencies, errors by type, database and gateway latency."""

    def __init__(self) -> None:
        # Each counter and histogram would also export a ``<name>_created`` series, a second
        # one per child that only repeats when this process started; Prometheus has its own
        # ``process_start_time_seconds``. (prometheus_client's switch is process-wide, and set
        # before any metric is made.)
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = CollectorRegistry()
        r = self.registry
        # What every Prometheus exporter serves: CPU, memory, file descriptors, start time
        # (Linux), the garbage collector's work, and the Python version.
        ProcessCollector(registry=r)
        GCCollector(registry=r)
        PlatformCollector(registry=r)
        self.commands = Counter(
            "pbp_commands",
            "Slash commands and button clicks (by custom id kind, e.g. pbp:req) handled, by "
            "command and outcome (ok, user_error, error, rejected, unhandled)",
            ["command", "outcome"],
            registry=r,
        )
        self.command_seconds = Histogram(
            "pbp_command_duration_seconds",
            "Time from receiving a slash command or button click to finishing it",
            ["command"],
            buckets=COMMAND_BUCKETS,
            registry=r,
        )
        self.errors = Counter(
            "pbp_errors",
            "Failed interactions by error type (our user errors and unexpected ones alike)",
            ["type"],
            registry=r,
        )
        self.db_seconds = Histogram(
            "pbp_db_query_duration_seconds",
            "Database statement latency, by statement kind",
            ["operation"],
            buckets=DB_BUCKETS,
            registry=r,
        )
        self.in_flight = Gauge(
            "pbp_interactions_in_flight", "Interactions being handled now", registry=r
        )
        self.ready = Gauge(
            "pbp_ready", "1 when logged in, migrated and not shutting down", registry=r
        )
        self._gateway = _GatewayCollector()
        r.register(self._gateway)
        #: Children of the per-command metrics (bounded: command names and five outcomes).
        self._counted: dict[tuple[str, str], Any] = {}
        self._timed: dict[str, Any] = {}

    def watch_gateway(self, source: LatencySource) -> None:
        """Report ``source()`` (``bot.latencies``: shard id, seconds) at every scrape."""
        self._gateway.source = source

    def command_done(self, command: str, outcome: str, seconds: float) -> None:
        # labels() takes a lock and builds a key on every call: look each child up once.
        counted = self._counted.get((command, outcome))
        if counted is None:
            counted = self._counted[command, outcome] = self.commands.labels(
                command=command, outcome=outcome
            )
        timed = self._timed.get(command)
        if timed is None:
            timed = self._timed[command] = self.command_seconds.labels(command=command)
        counted.inc()
        timed.observe(seconds)

    def error(self, error_type: str) -> None:
        self.errors.labels(type=error_type).inc()

    def instrument_engine(self, engine: AsyncEngine) -> None:
        """Time every statement the engine runs (SQLAlchemy cursor events)."""
        sync_engine = engine.sync_engine
        children: dict[str, Any] = {}

        def stack(conn: Any) -> list[float]:
            started: list[float] = conn.info.setdefault(_START_KEY, [])
            return started

        @event.listens_for(sync_engine, "before_cursor_execute")
        def _before(conn: Any, _cursor: Any, _statement: str, *_args: Any) -> None:
            stack(conn).append(time.perf_counter())

        @event.listens_for(sync_engine, "after_cursor_execute")
        def _after(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            started = stack(conn)
            if started:
                elapsed = time.perf_counter() - started.pop()
                operation = operation_of(statement)
                child = children.get(operation)
                if child is None:  # labels() takes a lock and builds a key: once per kind
                    child = children[operation] = self.db_seconds.labels(operation=operation)
                child.observe(elapsed)

        @event.listens_for(sync_engine, "handle_error")
        def _failed(context: Any) -> None:
            conn = context.connection
            if conn is not None:
                started = stack(conn)
                if started:
                    started.pop()

    def render(self) -> bytes:
        """The text exposition format, as served on ``/metrics``."""
        return generate_latest(self.registry)

    def sample(self, name: str, labels: dict[str, str] | None = None) -> float | None:
        """One sample's value (tests and the health page)."""
        return self.registry.get_sample_value(name, labels or {})

    def names(self) -> Iterator[str]:
        """Every metric family name this registry exposes."""
        for family in self.registry.collect():
            yield family.name
