"""`python -m bot`: run the bot (default), or one of its tools.

python -m bot            run the bot (what `make run` does)
python -m bot migrate    apply database migrations and exit
python -m bot export --guild ID [--campaign ID] [--out FILE]   campaigns as versioned JSON
python -m bot import FILE [--guild ID --channel ID]             import them, all or nothing
python -m bot play       the offline table: the real bot in a simulated Discord (`make play`)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from pathlib import Path

from pydantic import ValidationError

from bot.config import Settings, load_settings
from bot.log_context import install_log_context
from bot.logs import setup_logging
from bot.ops import cli as ops_cli

log = logging.getLogger("bot")

NO_TOKEN = (
    "No Discord bot token: put DISCORD_TOKEN=... in a file named .env in this folder "
    "(see .env.example), or set it in the environment. To try the bot without Discord, "
    "run `make play`."
)


def _settings_or_exit() -> Settings:
    try:
        return load_settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']).upper()}: {err['msg']}" for err in exc.errors()
        )
        sys.exit(f"Invalid settings ({problems}); see .env.example.")


async def _migrate(settings: Settings) -> None:
    from bot.db.migrate import upgrade_to_head

    await upgrade_to_head(settings.database_url)


async def _run(settings: Settings) -> None:
    # Migrations, metrics/health endpoint, the bot; SIGTERM / Ctrl-C drain and exit 0.
    from bot.serve import serve

    await serve(settings)


def _add_play_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = sub.add_parser("play", help="the offline table: play with the bot, no Discord needed")
    play.add_argument("--script", type=Path, help="run the lines of FILE, print the transcript")
    play.add_argument("--gm", default="gm", help="the GM's name (default: gm)")
    play.add_argument(
        "--players", default="alice,bob,carol", help="players' names, comma-separated"
    )
    play.add_argument("--seed", type=int, help="seed the dice, for a reproducible transcript")


def _play(args: argparse.Namespace) -> int:
    try:
        from bot.play import PlayOptions, run
    except ImportError as exc:
        sys.exit(f"The offline table needs the dev tools ({exc.name}): run `make play`.")
    players = [p.strip().lower() for p in args.players.split(",") if p.strip()]
    options = PlayOptions(args.script, args.gm.strip().lower(), players, args.seed)
    return run(options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="pbp-dice")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the bot (the default)")
    sub.add_parser("migrate", help="apply database migrations and exit")
    ops_cli.add_parsers(sub)
    _add_play_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "play":
        return _play(args)  # no token, no .env: the table has its own settings

    settings = _settings_or_exit()
    setup_logging(settings.log_level, settings.log_format)
    install_log_context()
    if args.command in ops_cli.COMMANDS:
        return ops_cli.main(args, settings)
    if args.command == "migrate":
        asyncio.run(_migrate(settings))
        log.info("database is at the latest schema")
        return 0
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        print(NO_TOKEN, file=sys.stderr)
        return 2
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
