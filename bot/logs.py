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
