"""`make run` when Discord cannot be had: one clear line and a non-zero exit, no traceback;
and a start-up log without lines that say nothing to an operator of this bot."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

import bot.__main__ as entry
import bot.log_context
import bot.logs

from .test_cli import _env

#: `python -m bot` with Discord's API moved to a closed port on this machine: no network,
#: and never a request to the real Discord with a made-up token, wherever the test runs.
NO_DISCORD = (
    "import sys, discord.http; "
    "discord.http.Route.BASE = 'https://127.0.0.1:1/api/v10'; "
    "from bot.__main__ import main; sys.exit(main())"
)
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")


def _start(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"
    return subprocess.run(
        [sys.executable, "-c", NO_DISCORD],
        cwd=tmp_path,  # no .env of the checkout is read
        env=_env(DISCORD_TOKEN="not.a.real-token", DATABASE_URL=url, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_a_network_it_says_so_in_one_line_and_exits_non_zero(tmp_path: Path) -> None:
    done = _start(tmp_path, LOG_LEVEL="WARNING")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "Cannot reach Discord at 127.0.0.1:1 (Connect call failed ('127.0.0.1', 1)): check "
        "this machine's network connection, then start the bot again."
    ]


def test_with_json_logs_the_line_is_a_json_error_like_every_other(tmp_path: Path) -> None:
    done = _start(tmp_path, LOG_LEVEL="WARNING", LOG_FORMAT="json")
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    entry = json.loads(line)
    assert entry["level"] == "ERROR"
    assert entry["message"].startswith("Cannot reach Discord at 127.0.0.1:1")


def test_the_start_up_log_at_info_has_no_traceback_and_no_noise(tmp_path: Path) -> None:
    done = _start(tmp_path)  # LOG_LEVEL defaults to INFO; a fresh database is migrated
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    logged = [line for line in lines if LOG_LINE.match(line)]
    said = [line for line in lines if not LOG_LINE.match(line)]
    assert len(said) == 1 and said[0].startswith("Cannot reach Discord at 127.0.0.1:1"), lines
    assert any("Running upgrade" in line for line in logged)  # what the migrations did stays
    for noise in ("setup plugin", "Context impl", "Will assume", "voice will NOT be supported"):
        assert not any(noise in line for line in logged), noise


def test_at_debug_the_traceback_is_still_in_the_log(tmp_path: Path) -> None:
    done = _start(tmp_path, LOG_LEVEL="DEBUG")
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "ClientConnectorError" in done.stderr
    assert done.stderr.splitlines()[-1].startswith("Cannot reach Discord at 127.0.0.1:1")


def _response(status: int, reason: str) -> Any:
    return SimpleNamespace(status=status, reason=reason)


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            discord.LoginFailure("Improper token has been passed."),
            "Discord refused the token: copy a fresh one from the developer portal "
            "(Application -> Bot -> Reset Token) into DISCORD_TOKEN.",
        ),
        (
            discord.DiscordServerError(_response(503, "Service Unavailable"), "<html>…</html>"),
            "Discord answered HTTP 503 Service Unavailable: it may be down; see "
            "https://discordstatus.com and start the bot again later.",
        ),
        (
            discord.HTTPException(_response(429, "Too Many Requests"), "You are being blocked"),
            "Discord refused to log the bot in (HTTP 429 Too Many Requests: You are being "
            "blocked).",
        ),
        (
            discord.GatewayNotFound(),
            "Discord's gateway cannot be found: Discord may be down; see "
            "https://discordstatus.com and start the bot again later.",
        ),
    ],
    ids=["invalid-token", "discord-down", "refused", "no-gateway"],
)
def test_when_discord_refuses_it_says_why_in_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: Exception,
    said: str,
) -> None:
    async def refuse(self: discord.Client, token: str) -> None:
        raise error

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "not.a.real-token")
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}")
    # The process's logging is the subprocess tests' business; keep pytest's own here.
    monkeypatch.setattr(bot.logs, "setup_logging", lambda *args: None)
    monkeypatch.setattr(bot.log_context, "install_log_context", lambda: None)
    monkeypatch.setattr(discord.Client, "login", refuse)
    assert entry.main([]) == 1
    assert capsys.readouterr().err.splitlines() == [said]
