"""Settings: one typed class, read from the environment and `.env`.

Nothing is read at import time; call :func:`load_settings` (or build :class:`Settings`
directly in tests) where a settings object is needed.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./data/pbp-dice.sqlite3"


class Settings(BaseSettings):
    """Every setting of the bot; see `.env.example` for what each one means."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True
    )

    # Optional here so tests and the offline table can build the bot without one;
    # `python -m bot` refuses to start without it.
    discord_token: SecretStr | None = None
    database_url: str = DEFAULT_DATABASE_URL
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    log_format: Literal["text", "json"] = "text"
    dev_guild_id: int | None = None
    shard_count: int | None = Field(default=None, ge=1)
    shard_ids: Annotated[list[int] | None, NoDecode] = None
    metrics_port: int | None = Field(default=None, ge=1, le=65535)
    #: Loopback unless the operator says otherwise: the endpoint has no authentication.
    metrics_host: str = Field(default="127.0.0.1", min_length=1)
    #: Budgets of expensive work (bot/services/budgets.py), in units of ~10 µs of the loop.
    budgets_enabled: bool = True
    budget_user_burst: float = Field(default=5_000, gt=0)
    budget_user_per_second: float = Field(default=50, gt=0)
    budget_guild_burst: float = Field(default=30_000, gt=0)
    budget_guild_per_second: float = Field(default=300, gt=0)
    shutdown_grace_seconds: float = Field(default=10.0, ge=0, le=600)
    #: The game clock's safety-net poll, in seconds. A process wakes itself for the jobs it
    #: schedules and at start-up; the poll only finds jobs another process made for its guilds.
    scheduler_poll_seconds: float = Field(default=3600.0, ge=1, le=86400)

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _parse_shard_ids(cls, value: object) -> object:
        """Accept `0,1,2` as well as a list, the way an operator writes it in `.env`."""
        if isinstance(value, str):
            parts = [p.strip() for p in value.split(",") if p.strip()]
            return [int(p) for p in parts] or None
        return value


def load_settings() -> Settings:
    """Read settings from the environment and `.env`."""
    return Settings()
