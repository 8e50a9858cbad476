"""Settings as an operator writes them: a database URL the bot can open, or one line naming
what is wrong and what to write instead, never a password.

Tests bot/config.py (the whole process's start is tests/ops/test_settings.py).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.config import DEFAULT_DATABASE_URL, Settings, check_database_url, explain


@pytest.mark.parametrize(
    "url",
    [
        DEFAULT_DATABASE_URL,
        "sqlite+aiosqlite:////var/lib/pbp.sqlite3",
        "postgresql+asyncpg://u@h/db",
    ],
)
def test_urls_with_the_async_drivers_are_taken_as_written(url: str) -> None:
    assert check_database_url(url) == url


@pytest.mark.parametrize(
    ("url", "said"),
    [
        (
            "postgresql://u@h/db",
            "no driver, and the bot needs the async one; write postgresql+asyncpg://u@h/db",
        ),
        ("mysql+aiomysql://u@h/db", "pbp-dice runs on SQLite or PostgreSQL, not mysql; write "),
        ("nonsense url", "not a database URL; write sqlite+aiosqlite:///./data/pbp-dice.sqlite3"),
        ("postgresql+asyncpg://u@h", "no database name; write postgresql+asyncpg://USER:"),
        ("sqlite+aiosqlite://", "no file name; write sqlite+aiosqlite:///./data/pbp-dice.sqlite3"),
    ],
)
def test_a_url_it_cannot_open_says_what_to_write_instead(url: str, said: str) -> None:
    with pytest.raises(ValueError) as refused:
        check_database_url(url)
    assert str(refused.value).startswith(said)


def test_every_bad_setting_is_one_line_and_a_password_is_never_shown() -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(  # type: ignore[call-arg]
            _env_file=None, database_url="postgresql://u:hunter2@h/db", shard_count=0
        )
    lines = explain(refused.value)
    assert lines == [
        "DATABASE_URL=postgresql://u:***@h/db: no driver, and the bot needs the async one; "
        "write postgresql+asyncpg://u:***@h/db.",
        "SHARD_COUNT=0: too small; write the bot's total number of shards (1 or more), or leave "
        "it empty.",
    ]
    assert "hunter2" not in "\n".join(lines)
