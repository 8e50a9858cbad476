"""Log context of the command being handled: every log line about it carries its ids.

A :class:`CommandContext` lives in a context variable for the duration of one interaction (the
task that handles it, from its ``interaction_check`` on); :class:`LogContextFilter` copies its
guild, campaign, command and incident onto each log record that does not already carry them,
so JSON lines have them as fields.
Nothing here ever holds a token, an option value or a roll's result: only ids and names.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from dataclasses import dataclass

from bot.logs import CONTEXT_FIELDS


@dataclass(slots=True)
class CommandContext:
    """What is known about the interaction being handled; filled as it goes."""

    command: str | None = None
    guild: int | None = None
    campaign: int | None = None
    incident: str | None = None
    #: ``ok``, ``user_error`` (answered with our message), ``error`` (an incident) or
    #: ``rejected`` (refused while shutting down).
    outcome: str = "ok"
    error_type: str | None = None


#: Loggers that would write SQL parameters at DEBUG.
QUIET_DRIVERS = ("aiosqlite", "asyncpg", "sqlalchemy.engine")

CURRENT: ContextVar[CommandContext | None] = ContextVar("pbp_command_context", default=None)


def current() -> CommandContext | None:
    """The context of the interaction this task is handling, if any."""
    return CURRENT.get()


def note_campaign(campaign_id: int) -> None:
    """Name the campaign on the current interaction's log lines; the first one loaded wins.

    The services call this as they load a campaign for the command, so knowing it costs no
    query of its own. Outside an interaction (the CLI, service tests) it does nothing.
    """
    ctx = CURRENT.get()
    if ctx is not None and ctx.campaign is None:
        ctx.campaign = campaign_id


class LogContextFilter(logging.Filter):
    """Add the current command's ids to records that do not set them through ``extra``."""

    def filter(self, record: logging.LogRecord) -> bool:
        ctx = CURRENT.get()
        if ctx is not None:
            for name in CONTEXT_FIELDS:
                if getattr(record, name, None) is None:
                    value = getattr(ctx, name)
                    if value is not None:
                        setattr(record, name, value)
        return True


def install_log_context(logger: logging.Logger | None = None) -> None:
    """Put :class:`LogContextFilter` on every handler of ``logger`` (the root by default).

    A handler filter, not a record factory: ``extra={"command": ...}`` must still be allowed,
    and the logging module refuses extras that overwrite an attribute set by the factory.
    """
    target = logger or logging.getLogger()
    for handler in target.handlers:
        if not any(isinstance(f, LogContextFilter) for f in handler.filters):
            handler.addFilter(LogContextFilter())
    # Database drivers log each statement with its parameters at DEBUG: option values and
    # roll results (hidden ones too) would land in the logs. Never below INFO for them.
    for name in QUIET_DRIVERS:
        driver = logging.getLogger(name)
        driver.setLevel(max(driver.getEffectiveLevel(), logging.INFO))
