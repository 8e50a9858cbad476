"""Logging set-up: readable text by default, one JSON object per line with LOG_FORMAT=json."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

# Extra fields that command logs carry; copied into JSON lines when present.
CONTEXT_FIELDS = ("incident", "command", "guild", "campaign")


class JsonFormatter(logging.Formatter):
    """Format records as JSON lines for log shippers."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in CONTEXT_FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def setup_logging(level: str = "INFO", fmt: str = "text") -> None:
    """Configure the root logger once, for `python -m bot`."""
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-8s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # discord.py's gateway chatter is noisy at INFO.
    logging.getLogger("discord").setLevel(max(logging.getLevelName(level), logging.INFO))
    quiet_start_up()


#: Start-up lines that say nothing to an operator of this bot, by logger: Alembic's
#: set-up chatter before every migration run, and discord.py's notice that voice needs
#: extra packages (the bot has no voice).
_NOISE: dict[str, tuple[str, ...]] = {
    "alembic.runtime.plugins": ("setup plugin ",),
    "alembic.runtime.migration": ("Context impl ", "Will assume "),
    "discord.client": ("PyNaCl is not installed", "davey is not installed"),
}


class _DropNoise(logging.Filter):
    def __init__(self, prefixes: tuple[str, ...]) -> None:
        super().__init__()
        self.prefixes = prefixes

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.prefixes)


def quiet_start_up() -> None:
    """Drop the start-up noise above (idempotent); "Running upgrade ..." lines stay."""
    for name, prefixes in _NOISE.items():
        logger = logging.getLogger(name)
        logger.filters[:] = [f for f in logger.filters if not isinstance(f, _DropNoise)]
        logger.addFilter(_DropNoise(prefixes))
