"""Start the real bot in SimCord and run a script or the interactive prompt."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import discord

from bot.db.types import stamped_by
from bot.play._parse import complete
from bot.play._world import DEFAULT_GM, DEFAULT_PLAYERS, World, build_world

#: What was typed at the prompt, for the arrow keys next time.
HISTORY_FILE = Path("data") / ".play_history"


@dataclass(frozen=True)
class PlayOptions:
    """What `python -m bot play` was asked for."""

    script: Path | None = None
    gm: str = DEFAULT_GM
    players: list[str] = field(default_factory=lambda: list(DEFAULT_PLAYERS))
    #: Seed the dice for a reproducible transcript; by default the bot's own CSPRNG rolls.
    seed: int | None = None


@contextlib.contextmanager
def _database() -> Iterator[str]:
    """A SQLite URL of this table's own, in a temporary folder removed when it ends.

    The simulated server is new every session (SimCord's ids restart), so its database starts
    empty too; a folder of its own per session means two tables (two terminals, or tests on
    parallel workers) never open, or delete, each other's file.
    """
    with tempfile.TemporaryDirectory(prefix="pbp-play-") as folder:
        yield f"sqlite+aiosqlite:///{Path(folder) / 'play.sqlite3'}"


async def play(
    options: PlayOptions,
    lines: Iterable[str] | None,
    write: Callable[[str], None],
    *,
    ansi: bool = False,
) -> int:
    """Run `lines` (a script) or the prompt (None); 0 when every line ran, else 1."""
    import simcord

    from bot.app import create_bot
    from bot.config import Settings
    from bot.db.migrate import upgrade_to_head
    from bot.play._table import Session

    with _database() as url:
        await upgrade_to_head(url)
        # Everything explicit, so nothing from .env or the environment (a real token, a real
        # database) is picked up by the offline table.
        settings = Settings(
            _env_file=None,
            discord_token=None,
            database_url=url,
            shard_count=1,
            shard_ids=None,
            dev_guild_id=None,
            log_level="WARNING",
            log_format="text",
            # One person at their own table, on SimCord's clock, which stands still between
            # lines: a budget would never refill.
            budgets_enabled=False,
        )
        rng = random.Random(options.seed) if options.seed is not None else None
        bot = create_bot(settings, rng=rng)
        try:
            # One clock for the whole table: rows are stamped on SimCord's, like deadlines.
            with stamped_by(discord.utils.utcnow):
                async with simcord.run(bot, check_errors=False) as env:
                    world = build_world(env, options.gm, options.players)
                    session = Session(world, bot, write, ansi=ansi, echo=lines is not None)
                    if lines is not None:
                        for line in lines:
                            if not await session.run_line(line):
                                break
                    else:
                        await _prompt(session, world)
        finally:
            await bot.close_database()  # SimCord detaches the bot without closing it
        # A script fails when a line did; at the prompt a refused line was answered, and
        # leaving (quit, Ctrl-D) is a normal end.
        return 1 if session.errors and lines is not None else 0


async def _prompt(session: Any, world: World) -> None:
    write = session.write
    write(
        f"pbp-dice offline table: server “Play by Post”, #table and #gm, GM {world.gm_name}, "
        f"players {', '.join(n for n in world.people if n != world.gm_name)}."
    )
    write("Type `help` for how to play, `quit` (or Ctrl-D) to leave.")
    with _readline(session, world):
        while True:
            try:
                line = _read_line(session.prompt)
            except EOFError:  # Ctrl-D: leave, as a shell does
                write("")
                return
            except KeyboardInterrupt:  # Ctrl-C: drop the line being typed, prompt again
                write("")
                continue
            if not await session.run_line(line):
                return


def _read_line(prompt: str) -> str:
    """One line from the person; Ctrl-C raises KeyboardInterrupt at once.

    Blocking on purpose: SimCord settles every action before it returns, so the bot has
    nothing to do while the person types. asyncio.run's own SIGINT handler would only cancel
    the table once the line is entered; Python's default one interrupts the typing instead,
    and :class:`_WakeOnInterrupt` makes sure the interruption is noticed at once.
    """
    previous = signal.getsignal(signal.SIGINT)
    wake = _WakeOnInterrupt()
    signal.signal(signal.SIGINT, wake.on_interrupt)
    try:
        with wake:
            return input(prompt)
    finally:
        if previous is not None:  # None: a handler not set from Python, left alone
            signal.signal(signal.SIGINT, previous)


class _WakeOnInterrupt:
    """Makes a Ctrl-C typed at the prompt interrupt the read at once, whatever the timing.

    CPython's readline waits for keys in ``select()`` and runs Python's signal handlers only
    when that ``select()`` is interrupted. A Ctrl-C that arrives while readline is busy with a
    key (echo, redisplay: slow on a loaded machine) is recorded, but the next ``select()``
    then blocks, and the handler only runs after Enter: Ctrl-C seemed to do nothing. So the
    C-level signal handler also writes to a pipe (``signal.set_wakeup_fd``), a thread waiting
    on it sends the main thread a harmless SIGUSR1 until the SIGINT handler has run, and the
    interrupted ``select()`` lets that handler raise KeyboardInterrupt into ``input()``.
    """

    NUDGE = signal.SIGUSR1
    #: Between two nudges, should one land while readline is busy again.
    EVERY = 0.05

    def __init__(self) -> None:
        #: SIGINTs whose handler ran (main thread only; the watcher only reads it).
        self.handled = 0
        self._closing = False
        self._thread: threading.Thread | None = None

    def on_interrupt(self, _signum: int, _frame: object) -> None:
        self.handled += 1
        raise KeyboardInterrupt

    def __enter__(self) -> _WakeOnInterrupt:
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self._nudge = signal.signal(self.NUDGE, lambda *_: None)
        self._wakeup = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        main = threading.main_thread().ident
        assert main is not None
        self._thread = threading.Thread(target=self._watch, args=(main,), daemon=True)
        self._thread.start()
        return self

    def _watch(self, main: int) -> None:
        seen = 0
        while True:
            got = os.read(self._read, 64)
            if not got:  # the pipe was closed: the read is over
                return
            seen += got.count(signal.SIGINT)
            # A nudge sent as __exit__ begins still finds the no-op handler: __exit__ puts
            # SIGUSR1's own back only once this thread has ended.
            while self.handled < seen and not self._closing:
                signal.pthread_kill(main, self.NUDGE)
                time.sleep(self.EVERY)

    def __exit__(self, *_exc: object) -> None:
        signal.set_wakeup_fd(self._wakeup)  # first: no signal writes to the pipe any more
        self._closing = True
        os.close(self._write)  # the watcher reads the end of the pipe and returns
        if self._thread is not None:
            self._thread.join()
        signal.signal(self.NUDGE, self._nudge)
        os.close(self._read)


@contextlib.contextmanager
def _readline(session: Any, world: World) -> Iterator[None]:
    """History in data/.play_history and tab completion, when readline is available."""
    try:
        import readline
    except ImportError:  # Windows without pyreadline: the prompt still works
        yield
        return
    people = list(world.people)

    def completer(text: str, state: int) -> str | None:
        before = readline.get_line_buffer()[: readline.get_endidx()]
        try:
            found = complete(session.bot.tree, people, world, before)
        except Exception:  # a completer must never break the prompt
            return None
        # readline replaces only the word after the last space.
        return found[state] if state < len(found) else None

    readline.set_completer_delims(" \t\n>")
    readline.set_completer(completer)
    readline.parse_and_bind("tab: complete")
    with contextlib.suppress(OSError):
        readline.read_history_file(HISTORY_FILE)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            HISTORY_FILE.parent.mkdir(parents=True, exist_ok=True)
            readline.set_history_length(1000)
            readline.write_history_file(HISTORY_FILE)


def read_script(path: Path) -> list[str]:
    """The lines of a script file."""
    return path.read_text(encoding="utf-8").splitlines()


def run(options: PlayOptions, out: TextIO | None = None) -> int:
    """`python -m bot play`: the exit status (0 ok, 1 a line failed, 2 bad arguments)."""
    import asyncio

    from bot.play._world import check_names

    stream = out or sys.stdout
    problems = check_names(options.gm, options.players)
    if problems:
        print("Cannot set the table: " + "; ".join(problems) + ".", file=sys.stderr)
        return 2
    lines: list[str] | None = None
    if options.script is not None:
        try:
            lines = read_script(options.script)
        except OSError as error:
            print(f"Cannot read the script {options.script}: {error.strerror}.", file=sys.stderr)
            return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    def write(text: str) -> None:
        print(text, file=stream, flush=True)

    ansi = lines is None and stream.isatty()
    try:
        return asyncio.run(play(options, lines, write, ansi=ansi))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `python -m bot play --script FILE | head`
        with contextlib.suppress(OSError):  # no second error when Python flushes at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        return 0
