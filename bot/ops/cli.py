"""`python -m bot export` and `python -m bot import`: move campaigns between servers/databases;
`python -m bot erase-user`: a person's data erased on a request made outside Discord (issue 22)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from bot.config import Settings
from bot.db.engine import create_database
from bot.errors import UserError

COMMANDS = frozenset({"export", "import", "erase-user"})


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The export and import subcommands."""
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


async def _export(args: argparse.Namespace, settings: Settings) -> Any:
    from bot.services.export import export_campaigns

    db = create_database(settings.database_url)
    try:
        data = await export_campaigns(db, guild_id=args.guild, campaign_id=args.campaign)
    finally:
        await db.dispose()
    return data


async def _import(args: argparse.Namespace, settings: Settings, data: Any) -> list[str]:
    from bot.services.export import import_campaigns

    db = create_database(settings.database_url)
    try:
        done = await import_campaigns(db, data, guild_id=args.guild, channel_id=args.channel)
    finally:
        await db.dispose()
    return [
        f"imported campaign {c.old_id} as {c.campaign_id} in channel {c.channel_id}: "
        + ", ".join(f"{n} {t}" for t, n in c.rows.items() if n)
        for c in done
    ]


async def _erase(args: argparse.Namespace, settings: Settings) -> str:
    from bot.services.privacy import erase_user

    if args.user_id <= 0:
        raise UserError("Give the user's Discord id (a positive number).")
    db = create_database(settings.database_url)
    try:
        done = await erase_user(db, args.user_id, None, names=args.name)
    finally:
        await db.dispose()
    older = f" ({done.older_rows} recorded before per-field salts)" if done.older_rows else ""
    return (
        f"erased user {args.user_id}: {done.characters_deleted} characters deleted, "
        f"{done.rolls_erased} rolls tombstoned{older}, {done.other_rows_changed} other rows "
        "changed; the game logs still verify"
    )


def main(args: argparse.Namespace, settings: Settings) -> int:
    """Run ``export``, ``import`` or ``erase-user``; a problem is one clear line on stderr and
    exit code 1."""
    from bot.services.export import compress, dumps, load

    try:
        if args.command == "erase-user":
            print(asyncio.run(_erase(args, settings)))
            return 0
        if args.command == "export":
            data = asyncio.run(_export(args, settings))
            if args.out is None:
                sys.stdout.write(dumps(data))
            elif args.out.name.endswith(".gz"):
                args.out.write_bytes(compress(data))
            else:
                args.out.write_text(dumps(data), encoding="utf-8")
            return 0
        # Plain JSON or gzip-compressed (what /campaign export attaches), whatever the name.
        raw = sys.stdin.buffer.read() if str(args.file) == "-" else args.file.read_bytes()
        data = load(raw, str(args.file))
        for line in asyncio.run(_import(args, settings, data)):
            print(line)
        return 0
    except UserError as exc:
        print(f"{args.command}: {exc.message}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{args.command}: {exc}", file=sys.stderr)
        return 1
