"""Serving the bot as a process: `python -m bot` builds it through the app's factory, asking
for the start-up heap to be frozen.

Tests bot/serve.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import SecretStr

from bot import app
from bot.config import Settings
from bot.serve import serve


async def test_python_m_bot_builds_the_bot_with_a_frozen_start_up_heap(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve` (python -m bot) asks for freeze_heap; what that does is the next test."""
    built: list[dict[str, Any]] = []

    class Built(Exception):
        pass

    def spy(*args: Any, **kwargs: Any) -> Any:
        built.append(kwargs)
        raise Built  # stop before logging in to Discord

    monkeypatch.setattr(app, "create_bot", spy)
    with pytest.raises(Built):
        await serve(settings.model_copy(update={"discord_token": SecretStr("not-a-token")}))
    assert [kwargs.get("freeze_heap") for kwargs in built] == [True]
