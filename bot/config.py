"""Settings: one typed class, read from the environment and `.env`.

Nothing is read at import time; call :func:`load_settings` (or build :class:`Settings`
directly in tests) where a settings object is needed. Every setting is checked when it is read:
:func:`explain` turns what is wrong into one line per setting, in the operator's words, with
what to write instead (``pbp-dice`` prints them and exits 1).
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./data/pbp-dice.sqlite3"

#: The async driver each database needs, and the module that provides it.
DRIVERS = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}
#: What to install for a driver that is missing.
INSTALL = {"asyncpg": "pip install 'pbp-dice[postgres]'", "aiosqlite": "pip install aiosqlite"}
#: A host name as RFC 1123 spells it (labels of letters, digits and inner hyphens).
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*\.?$")


def _example_url(url: URL, driver: str) -> str:
    """``url`` with ``driver`` and the password hidden, as the operator should write it."""
    fixed = url.set(drivername=f"{url.get_backend_name()}+{driver}")
    return fixed.render_as_string(hide_password=True)


def check_database_url(value: str) -> str:
    """A URL SQLAlchemy can open with an async driver this bot supports, or ValueError."""
    try:
        url = make_url(value)
    except ArgumentError:
        raise ValueError(
            "not a database URL; write sqlite+aiosqlite:///./data/pbp-dice.sqlite3 or "
            "postgresql+asyncpg://USER:PASSWORD@HOST:5432/DBNAME"
        ) from None
    backend = url.get_backend_name()
    if backend not in DRIVERS:
        raise ValueError(
            f"pbp-dice runs on SQLite or PostgreSQL, not {backend}; write "
            "sqlite+aiosqlite:///./data/pbp-dice.sqlite3 or "
            "postgresql+asyncpg://USER:PASSWORD@HOST:5432/DBNAME"
        )
    driver = DRIVERS[backend]
    if url.get_driver_name() != driver:
        said = f"the driver {url.get_driver_name()}" if "+" in url.drivername else "no driver"
        raise ValueError(
            f"{said}, and the bot needs the async one; write {_example_url(url, driver)}"
        )
    if backend == "postgresql" and not url.database:
        raise ValueError(
            "no database name; write postgresql+asyncpg://USER:PASSWORD@HOST:5432/DBNAME"
        )
    if backend == "sqlite" and not url.database:
        raise ValueError(
            "no file name; write sqlite+aiosqlite:///./data/pbp-dice.sqlite3 (a path after ///)"
        )
    return value


class Settings(BaseSettings):
    """Every setting of the bot; see `.env.example` for what each one means."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True
    )

    # Optional here so tests and the offline table can build the bot without one;
    # `pbp-dice run` refuses to start without it.
    discord_token: SecretStr | None = None
    database_url: str = DEFAULT_DATABASE_URL
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    log_format: Literal["text", "json"] = "text"
    dev_guild_id: int | None = Field(default=None, gt=0)
    shard_count: int | None = Field(default=None, ge=1)
    shard_ids: Annotated[list[int] | None, NoDecode] = None
    metrics_port: int | None = Field(default=None, ge=1, le=65535)
    #: Loopback unless the operator says otherwise: the endpoint has no authentication. In a
    #: container, 0.0.0.0, so the orchestrator's probe (from outside its network) reaches it.
    metrics_host: str = Field(default="127.0.0.1", min_length=1)
    #: Budgets of expensive work (bot/services/kit/budgets.py), in units of ~10 µs of the loop.
    budgets_enabled: bool = True
    budget_user_burst: float = Field(default=5_000, gt=0)
    budget_user_per_second: float = Field(default=50, gt=0)
    budget_guild_burst: float = Field(default=30_000, gt=0)
    budget_guild_per_second: float = Field(default=300, gt=0)
    shutdown_grace_seconds: float = Field(default=10.0, ge=0, le=600)
    #: The game clock's safety-net poll, in seconds. A process wakes itself for the jobs it
    #: schedules and at start-up; the poll only finds jobs another process made for its guilds.
    scheduler_poll_seconds: float = Field(default=3600.0, ge=1, le=86400)

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _case(cls, value: object, info: ValidationInfo) -> object:
        if not isinstance(value, str):
            return value
        return value.strip().upper() if info.field_name == "log_level" else value.strip().lower()

    @field_validator("discord_token", mode="after")
    @classmethod
    def _bare_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and any(c.isspace() for c in value.get_secret_value().strip()):
            raise ValueError(
                "spaces in it; paste the token alone, without 'Bot ' in front or quotes"
            )
        return value

    @field_validator("database_url", mode="after")
    @classmethod
    def _database_url(cls, value: str) -> str:
        return check_database_url(value)

    @field_validator("metrics_host", mode="after")
    @classmethod
    def _host(cls, value: str) -> str:
        value = value.strip()
        try:
            ipaddress.ip_address(value)
        except ValueError:
            if not _HOSTNAME.match(value):
                raise ValueError(
                    "not an address to listen on; write 127.0.0.1 (this machine only), "
                    "0.0.0.0 (every interface, e.g. in a container) or one interface's address"
                ) from None
        return value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _parse_shard_ids(cls, value: object) -> object:
        """Accept `0,1,2` as well as a list, the way an operator writes it in `.env`."""
        if isinstance(value, int):
            return [value]
        if isinstance(value, str):
            parts = [p.strip() for p in value.split(",") if p.strip()]
            if not all(p.isdigit() for p in parts):
                raise ValueError(
                    "not a list of shard numbers; write them comma-separated, e.g. 0,1"
                )
            return [int(p) for p in parts] or None
        return value

    @field_validator("shard_ids", mode="after")
    @classmethod
    def _shards_fit(cls, ids: list[int] | None, info: ValidationInfo) -> list[int] | None:
        if ids is None or "shard_count" not in info.data:  # SHARD_COUNT itself is wrong
            return ids
        count = info.data["shard_count"]
        if count is None:
            raise ValueError(
                "needs SHARD_COUNT, the bot's total number of shards; set "
                f"SHARD_COUNT={max(ids) + 1} or more, or leave SHARD_IDS empty to run every shard"
            )
        outside = sorted({i for i in ids if i >= count})
        if outside:
            raise ValueError(
                f"names shard {', '.join(map(str, outside))}, but SHARD_COUNT={count} numbers "
                f"them 0 to {count - 1}; fix either"
            )
        if len(set(ids)) != len(ids):
            raise ValueError("names a shard twice; name each shard once, e.g. 0,1")
        return ids


#: For settings whose check is pydantic's own: what to write instead.
_HINTS = {
    "log_level": "write DEBUG, INFO, WARNING, ERROR or CRITICAL",
    "log_format": "write text or json",
    "dev_guild_id": "write your test server's id (a number), or leave it empty",
    "shard_count": "write the bot's total number of shards (1 or more), or leave it empty",
    "metrics_port": "write a port from 1 to 65535, or leave it empty for no HTTP endpoint",
    "metrics_host": "write 127.0.0.1, or 0.0.0.0 in a container",
    "budgets_enabled": "write true or false",
    "budget_user_burst": "write a number above 0",
    "budget_user_per_second": "write a number above 0",
    "budget_guild_burst": "write a number above 0",
    "budget_guild_per_second": "write a number above 0",
    "shutdown_grace_seconds": "write a number of seconds from 0 to 600",
    "scheduler_poll_seconds": "write a number of seconds from 1 to 86400",
}
#: pydantic's error types, in the operator's words.
_KINDS = {
    "literal_error": "not one of the values it takes",
    "int_parsing": "not a whole number",
    "int_from_float": "not a whole number",
    "float_parsing": "not a number",
    "bool_parsing": "neither true nor false",
    "greater_than": "too small",
    "greater_than_equal": "too small",
    "less_than": "too large",
    "less_than_equal": "too large",
    "string_too_short": "empty",
}
#: Settings whose value is never repeated back (a secret, or a URL that may hold a password).
_SECRET = {"discord_token"}


def _shown(field: str, value: object) -> str:
    if field in _SECRET:
        return ""
    if field == "database_url" and isinstance(value, str):
        try:
            return "=" + make_url(value).render_as_string(hide_password=True)
        except ArgumentError:
            return "=" + value
    if isinstance(value, list):
        return "=" + ",".join(str(v) for v in value)
    return f"={value}"


def explain(error: ValidationError) -> list[str]:
    """One line per bad setting: its name, its value (never a secret), what is wrong, and what
    to write instead."""
    lines: dict[str, str] = {}
    for problem in error.errors():
        loc = [str(part) for part in problem["loc"]]
        field = loc[0] if loc else ""
        message = str(problem["msg"]).removeprefix("Value error, ")
        if not field:  # a check across settings (the shards): its message names them
            lines.setdefault(message, message + ".")
            continue
        if field in lines:
            continue
        name = field.upper()
        hint = _HINTS.get(field)
        kind = str(problem["type"])
        if kind == "value_error" or hint is None:
            said = message
        else:
            said = f"{_KINDS.get(kind, message[:1].lower() + message[1:])}; {hint}"
        lines[field] = f"{name}{_shown(field, problem.get('input'))}: {said}."
    return list(lines.values())


def environment_problems(settings: Settings) -> list[str]:
    """What the settings ask of this machine and it lacks: the database's driver, a folder
    for the SQLite file. One line each, as :func:`explain` writes them."""
    problems = []
    url = make_url(settings.database_url)
    driver = DRIVERS[url.get_backend_name()]
    shown = url.render_as_string(hide_password=True)
    if not _installed(driver):
        problems.append(
            f"DATABASE_URL={shown}: its driver {driver} is not installed; {INSTALL[driver]}."
        )
    database = url.database or ""
    if (
        url.get_backend_name() == "sqlite"
        and database != ":memory:"
        and not database.startswith("file:")
    ):
        folder = _nearest_existing(Path(database).expanduser().absolute().parent)
        if not folder.is_dir():
            problems.append(
                f"DATABASE_URL={shown}: {folder} is a file, not a folder; point the URL at a "
                "file in a folder."
            )
        elif not os.access(folder, os.W_OK | os.X_OK):
            problems.append(
                f"DATABASE_URL={shown}: this user cannot write in {folder}; give it that "
                "folder (e.g. chown) or point the URL at a folder it owns."
            )
    return problems


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (where the bot would create folders)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def load_settings(**overrides: Any) -> Settings:
    """Read settings from the environment and `.env`; ``overrides`` (the command line) win."""
    return Settings(**overrides)
