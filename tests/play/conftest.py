"""The bot's real command tree, for parsing tests; no Discord, no database touched."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.app import PbpBot, create_bot
from bot.config import Settings


@pytest.fixture
async def tree_bot() -> PbpBot:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_url="sqlite+aiosqlite:///:memory:", shard_count=1
    )
    bot = create_bot(settings, rng=random.Random(1))
    await bot.load_features()
    return bot


@dataclass
class FakeDirectory:
    """Who a USER / ROLE / CHANNEL option may name, without a simulated server."""

    members: dict[str, Any] = field(default_factory=lambda: {"alice": "ALICE", "gm": "GM-USER"})
    roles: dict[str, Any] = field(default_factory=lambda: {"gm": "GM-ROLE"})
    channels: dict[str, Any] = field(default_factory=lambda: {"table": "T", "gm": "G"})

    def member(self, name: str) -> Any | None:
        return self.members.get(name.lower())

    def role(self, name: str) -> Any | None:
        return self.roles.get(name.lower())

    def channel(self, name: str) -> Any | None:
        return self.channels.get(name.lower())

    def member_names(self) -> list[str]:
        return list(self.members)

    def role_names(self) -> list[str]:
        return ["GM"]

    def channel_names(self) -> list[str]:
        return list(self.channels)
