"""The interactive prompt (`make play`) as a person uses it: Ctrl-C drops the line being
typed, Ctrl-D and `quit` leave with status 0 even after a refused line.

Tests bot/play/_repl.py.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
    env["PYTHONPATH"] = str(ROOT)
    return env


def test_quit_after_a_refused_line_leaves_with_status_0(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "play"],
        input="alice> /chek ability:DEX\nquit\n",
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "✗ /chek is not a command of this bot" in done.stdout
    assert done.returncode == 0, done.stderr


def test_end_of_input_after_a_refused_line_leaves_with_status_0(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "play"],
        input="alice> /luck luck:1\n",  # then end of input, as Ctrl-D gives
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "✗ /luck has no option `luck`" in done.stdout
    assert done.returncode == 0, done.stderr


class Terminal:
    """`python -m bot play` on a pseudo-terminal, read as a person reads the screen."""

    def __init__(self, cwd: Path) -> None:
        import pty

        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "play"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=_env(),
            start_new_session=True,
        )
        os.close(slave)
        self.pending = b""

    # Generous: only a failing run waits this long, and on a loaded 2-core CI box the table's
    # start-up (migrations, SimCord's world) has taken over a minute.
    def read_until(self, token: str, timeout: float = 300) -> str:
        wanted = token.encode()
        end = time.monotonic() + timeout
        while wanted not in self.pending:
            ready, _, _ = select.select([self.master], [], [], max(0, end - time.monotonic()))
            if not ready:
                raise AssertionError(f"no {token!r} on the screen; it shows {self.pending!r}")
            self.pending += os.read(self.master, 4096)
        cut = self.pending.index(wanted) + len(wanted)
        seen, self.pending = self.pending[:cut], self.pending[cut:]
        return seen.decode(errors="replace")

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)


#: Ctrl-C pressed this many times, each while readline is still drawing the keys just typed.
ROUNDS = 20


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminals and signals")
def test_ctrl_c_drops_the_line_being_typed_at_once_and_ctrl_d_leaves(tmp_path: Path) -> None:
    """Ctrl-C lands while readline is busy with keys (not waiting for the next one), ROUNDS
    times: each must give a fresh prompt without another key pressed. Before the fix such a
    Ctrl-C was only noticed after Enter, and the screen waited forever (read_until fails).
    Nothing here waits for a moment to pass: the test waits for what the screen shows."""
    term = Terminal(tmp_path)
    try:
        term.read_until("gm> ")
        for i in range(ROUNDS):
            term.type(f"/roll dice:1d6 label:nevermind{i}")
            os.kill(term.proc.pid, signal.SIGINT)  # what Ctrl-C sends, with the keys in flight
            term.read_until("gm> ")  # a fresh prompt, the table still open
        term.type("/roll dice:1d6 label:kept\r")
        shown = term.read_until("gm> ")
        assert "gm rolls kept" in shown
        assert "nevermind" not in shown  # the dropped text was not run, nor kept on the line
        term.type("\x04")  # Ctrl-D on an empty line
        assert term.proc.wait(timeout=30) == 0
    finally:
        term.close()
