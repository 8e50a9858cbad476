"""A stop signal to `python -m bot`: in-flight work finished, the database closed, exit status 0,
and a login Discord never answers cancelled at once.

Tests bot/ops/shutdown.py.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.ops.test_cli import _env

#: The bot's gateway is replaced by a stand-in that waits until the bot is closed, and one
#: slow "interaction" is in flight when SIGTERM arrives.
SHUTDOWN_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from bot.app import PbpBot
    from bot.__main__ import main

    async def fake_start(self, token, *, reconnect=True):
        self.sync_commands = False
        await self.setup_hook()
        self.dispatch("ready")

        async def slow_interaction():
            self.ops.in_flight.enter()
            print("READY", flush=True)
            while not self.ops.in_flight.draining:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)
            print("IN-FLIGHT FINISHED, db open:", self._db is not None, flush=True)
            self.ops.in_flight.exit()

        asyncio.get_running_loop().create_task(slow_interaction())
        while not self.is_closed():
            await asyncio.sleep(0.01)

    PbpBot.start = fake_start
    code = main(["run"])
    print("EXIT", code, flush=True)
    sys.exit(code)
    """
)


def _sigterm_when(tmp_path: Path, script: str, ready: str) -> tuple[int, str, str]:
    """Run ``script`` as the bot's process, send SIGTERM once it prints ``ready``, and return
    its exit status, stdout and stderr (JSON logs); a process that hangs fails after 120 s."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=_env(DISCORD_TOKEN="fake-token-123", DATABASE_URL=url, LOG_FORMAT="json"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == ready
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_drains_in_flight_work_closes_the_database_and_exits_0(tmp_path: Path) -> None:
    returncode, out, err = _sigterm_when(tmp_path, SHUTDOWN_SCRIPT, "READY")
    assert returncode == 0, err
    assert "IN-FLIGHT FINISHED, db open: True" in out
    assert "EXIT 0" in out
    messages = [json.loads(line)["message"] for line in err.splitlines() if line.startswith("{")]
    assert any(m.startswith("shutting down: 1 interaction(s) in flight") for m in messages)
    assert "bot closed; database connections released" in messages
    assert "fake-token-123" not in out + err


#: Discord never answers the login (as where it is out of reach), and the close timeout is
#: made an hour: SIGTERM must end the process without waiting for either.
LOGIN_HANGS_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from bot.app import PbpBot
    from bot.ops import shutdown
    from bot.__main__ import main

    async def hanging_login(self, token, *, reconnect=True):
        self.sync_commands = False
        await self.setup_hook()
        print("LOGGING IN", flush=True)
        await asyncio.sleep(3600)

    shutdown.CLOSE_TIMEOUT = 3600.0
    PbpBot.start = hanging_login
    code = main(["run"])
    print("EXIT", code, flush=True)
    sys.exit(code)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_while_logging_in_stops_at_once_and_exits_0(tmp_path: Path) -> None:
    """A container stopped before Discord answered the login (Docker waits 10 s by default,
    then kills): the login is cancelled, not waited for."""
    # Far below the hour either wait would take: a hang fails there, not by a stopwatch.
    returncode, out, err = _sigterm_when(tmp_path, LOGIN_HANGS_SCRIPT, "LOGGING IN")
    assert returncode == 0, err
    assert "EXIT 0" in out
    messages = [json.loads(line)["message"] for line in err.splitlines() if line.startswith("{")]
    assert "stopped before the bot had logged in to Discord" in messages
    assert "bot closed; database connections released" in messages
