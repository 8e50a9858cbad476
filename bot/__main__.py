"""`pbp-dice` (or `python -m bot`): run the bot, or one of its tools.

pbp-dice run        run the bot (the default; what `make run` does)
pbp-dice migrate    apply database migrations and exit
pbp-dice export --guild ID [--campaign ID] [--out FILE]   campaigns as versioned JSON
pbp-dice import FILE [--guild ID --channel ID]             import them, all or nothing
pbp-dice erase-user ID [--name NAME]                       a person's data, everywhere
pbp-dice move --to URL   copy the whole database into an empty one (SQLite -> PostgreSQL)
pbp-dice play       the offline table: the real bot in a simulated Discord (`make play`)

Every subcommand takes --help. Settings come from the environment and `.env` in the working
directory (see .env.example); a bad one is named in one line and the exit status is 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.config import Settings

# The libraries (pydantic, SQLAlchemy, discord.py) are imported once a command needs them, so
# `pbp-dice --help` answers at once.
log = logging.getLogger("bot")
#: Run by bot/ops/cli.py.
OPS_COMMANDS = frozenset({"export", "import", "erase-user", "move"})

NO_TOKEN = (
    "DISCORD_TOKEN is not set: put DISCORD_TOKEN=... in a file named .env in the folder you "
    "start the bot from (see .env.example), or set it in the environment. To try the bot "
    "without Discord, run `pbp-dice play` (`make play` in a checkout)."
)


def _settings_or_exit(**overrides: Any) -> Settings:
    """The settings, or every bad one named on a line of its own and exit status 1."""
    from pydantic import ValidationError

    from bot.config import environment_problems, explain, load_settings

    try:
        settings = load_settings(**overrides)
    except ValidationError as exc:
        lines = explain(exc)
    else:
        lines = environment_problems(settings)
        if not lines:
            return settings
    for line in lines:
        print(line, file=sys.stderr)
    sys.exit(1)


async def _migrate(settings: Settings) -> None:
    from bot.db.migrate import upgrade_to_head

    await upgrade_to_head(settings.database_url)


async def _run(settings: Settings) -> None:
    # Migrations, metrics/health endpoint, the bot; SIGTERM / Ctrl-C drain and exit 0.
    from bot.serve import serve

    await serve(settings)


def _add_run_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser(
        "run",
        help="run the bot (the default): migrate, log in, serve until SIGTERM or Ctrl-C",
        description="Run the bot: apply pending migrations, log in to Discord and answer "
        "commands until SIGTERM or Ctrl-C (commands in flight finish first). Settings come "
        "from the environment and .env (see .env.example).",
    )
    run.add_argument(
        "--shards",
        metavar="IDS",
        help="the shards this process runs, e.g. 0 or 0,1 (overrides SHARD_IDS; needs "
        "SHARD_COUNT): what the systemd template pbp-dice@.service passes",
    )


def _add_play_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = sub.add_parser(
        "play",
        help="the offline table: play with the real bot in a simulated Discord, no token",
        description="The offline table: the real bot in a simulated Discord server "
        "(docs/offline-table.md). Needs no token and never touches the bot's database.",
    )
    play.add_argument("--script", type=Path, help="run the lines of FILE, print the transcript")
    play.add_argument("--gm", default="gm", help="the GM's name (default: gm)")
    play.add_argument(
        "--players", default="alice,bob,carol", help="players' names, comma-separated"
    )
    play.add_argument("--seed", type=int, help="seed the dice, for a reproducible transcript")


def _play(args: argparse.Namespace) -> int:
    from bot.play import PlayOptions, run

    players = [p.strip().lower() for p in args.players.split(",") if p.strip()]
    options = PlayOptions(args.script, args.gm.strip().lower(), players, args.seed)
    return run(options)


def _add_ops_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """export, import, erase-user and move (run by :mod:`bot.ops.cli`)."""
    export = sub.add_parser(
        "export", help="write a guild's campaigns (or one) as JSON: settings, characters, ledger"
    )
    export.add_argument("--guild", type=int, required=True, help="the Discord server id")
    export.add_argument("--campaign", type=int, help="only this campaign id")
    export.add_argument(
        "--out", type=Path, help="write to FILE, gzip-compressed if named *.gz (default: stdout)"
    )
    imp = sub.add_parser("import", help="import campaigns from an export file, all or nothing")
    imp.add_argument(
        "file", type=Path, help="the export file, .json or .json.gz ('-' for standard input)"
    )
    imp.add_argument("--guild", type=int, help="move the campaign to this server")
    imp.add_argument("--channel", type=int, help="move the campaign to this channel")
    erase = sub.add_parser(
        "erase-user",
        help="erase a Discord user's data everywhere, as /privacy delete does (docs/privacy.md)",
    )
    erase.add_argument("user_id", type=int, help="the user's Discord id")
    erase.add_argument(
        "--name",
        action="append",
        default=[],
        help="a display name of theirs to erase from stored text too (repeatable); their "
        "characters' names are found without it",
    )
    move = sub.add_parser(
        "move",
        help="copy the whole database (DATABASE_URL) into another, empty one, ids and all",
        description="Copy every campaign, character, roll and setting from DATABASE_URL's "
        "database into the one --to names, keeping every id, so old messages, buttons and "
        "/verify go on working. The target is migrated first and refused unless empty; the "
        "copy is one transaction. Stop the bot first; afterwards point DATABASE_URL at the "
        "target and start it.",
    )
    move.add_argument(
        "--to",
        required=True,
        metavar="URL",
        help="the database to move to, e.g. postgresql+asyncpg://USER:PASSWORD@HOST/DBNAME",
    )


def parser() -> argparse.ArgumentParser:
    """The command line of ``pbp-dice``."""
    top = argparse.ArgumentParser(
        prog="pbp-dice",
        description="pbp-dice, a Discord dice bot for play-by-post games. Without a "
        "subcommand it runs the bot.",
    )
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    _add_run_parser(sub)
    _add_play_parser(sub)
    sub.add_parser(
        "migrate",
        help="apply pending database migrations and exit",
        description="Bring DATABASE_URL's database to this version's schema and exit. Safe "
        "to run while other processes start: they take turns.",
    )
    _add_ops_parsers(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "play":
        return _play(args)  # no token, no .env: the table has its own settings

    overrides = {}
    if getattr(args, "shards", None) is not None:
        if not re.fullmatch(r"\d+(,\d+)*", args.shards.replace(" ", "")):
            print(
                f"--shards {args.shards}: not a list of shard numbers; write them "
                "comma-separated, e.g. --shards 0 or --shards 0,1.",
                file=sys.stderr,
            )
            return 1
        overrides["shard_ids"] = args.shards
    settings = _settings_or_exit(**overrides)
    from bot.log_context import install_log_context
    from bot.logs import setup_logging
    from bot.ops import cli as ops_cli

    setup_logging(settings.log_level, settings.log_format)
    install_log_context()
    if args.command in OPS_COMMANDS:
        return ops_cli.main(args, settings)
    if args.command == "migrate":
        from sqlalchemy.exc import SQLAlchemyError

        try:
            asyncio.run(_migrate(settings))
        except (OSError, SQLAlchemyError) as error:
            log.debug("migrating the database failed", exc_info=True)
            print(f"migrate: {ops_cli.database_problem(error)}", file=sys.stderr)
            return 1
        log.info("database is at the latest schema")
        return 0
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        print(NO_TOKEN, file=sys.stderr)
        return 1
    from bot.ops.shutdown import StartFailed

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_run(settings))
    except StartFailed as failure:
        # One line, no traceback (LOG_LEVEL=DEBUG logs it); a JSON log stays all JSON.
        if settings.log_format == "json":
            log.error("%s", failure)
        else:
            print(failure, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
