"""`pbp-dice export` and `pbp-dice import`: move campaigns between servers/databases;
`pbp-dice erase-user`: a person's data erased on a request made outside Discord;
`pbp-dice move`: the whole database into another, empty one (:mod:`bot.ops.move`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import sys
import tempfile
from pathlib import Path

from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from bot.config import Settings
from bot.db.engine import create_database
from bot.errors import UserError


async def _export(args: argparse.Namespace, settings: Settings) -> None:
    """Stream the export to ``--out`` (gzip-compressed when its name ends in ``.gz``) or to
    stdout, a page of rows at a time: memory flat in the size of the log."""
    from bot.services.trust.export import GzipWriter, write_export

    db = create_database(settings.database_url)
    try:
        which = {"guild_id": args.guild, "campaign_id": args.campaign}
        if args.out is None:

            async def to_stdout(text: str) -> None:
                sys.stdout.write(text)

            await write_export(db, to_stdout, **which)
        elif args.out.name.endswith(".gz"):
            with args.out.open("wb") as target:
                writer = GzipWriter(target)
                await write_export(db, writer.write, **which)
                await writer.close()
        else:
            with args.out.open("w", encoding="utf-8") as plain:

                async def to_file(text: str) -> None:
                    plain.write(text)

                await write_export(db, to_file, **which)
    finally:
        await db.dispose()


async def _import(args: argparse.Namespace, settings: Settings, path: Path, name: str) -> list[str]:
    """Stream the file into the database, a page per transaction (bot/services/trust/imports.py)."""
    from bot.services.trust.imports import import_file

    db = create_database(settings.database_url)
    try:
        done = await import_file(db, path, guild_id=args.guild, channel_id=args.channel, name=name)
    finally:
        await db.dispose()
    return [
        f"imported campaign {c.old_id} as {c.campaign_id} in channel {c.channel_id}: "
        + ", ".join(f"{n} {t}" for t, n in c.rows.items() if n)
        for c in done
    ]


async def _erase(args: argparse.Namespace, settings: Settings) -> str:
    from bot.services.trust.privacy import erase_user

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


def _move(args: argparse.Namespace, settings: Settings) -> int:
    from bot.config import check_database_url
    from bot.ops.move import move, shown

    try:
        check_database_url(args.to)
    except ValueError as problem:
        try:
            named = shown(args.to)
        except ArgumentError:
            named = args.to
        raise UserError(f"--to {named}: {problem}.") from None
    moved = asyncio.run(move(settings.database_url, args.to, report=print))
    tables = sum(1 for n in moved.rows.values() if n)
    print(
        f"moved {moved.total} rows in {tables} tables to {shown(args.to)}; set "
        "DATABASE_URL to it and start the bot"
    )
    return 0


def main(args: argparse.Namespace, settings: Settings) -> int:
    """Run ``export``, ``import``, ``erase-user`` or ``move``; a problem is one clear line on
    stderr and exit code 1."""
    try:
        if args.command == "move":
            return _move(args, settings)
        if args.command == "erase-user":
            print(asyncio.run(_erase(args, settings)))
            return 0
        if args.command == "export":
            asyncio.run(_export(args, settings))
            return 0
        # Plain JSON or gzip-compressed (what /campaign export attaches), whatever the name;
        # standard input is spooled to a temporary file first (read in chunks), as it is read
        # more than once.
        with contextlib.ExitStack() as stack:
            path: Path = args.file
            if str(args.file) == "-":
                spool = stack.enter_context(tempfile.NamedTemporaryFile(suffix=".json"))
                shutil.copyfileobj(sys.stdin.buffer, spool)
                spool.flush()
                path = Path(spool.name)
            for line in asyncio.run(_import(args, settings, path, str(args.file))):
                print(line)
        return 0
    except UserError as exc:
        print(f"{args.command}: {exc.message}", file=sys.stderr)
        return 1
    except SQLAlchemyError as exc:
        # One line, never the statement's parameters (a hidden roll's dice): see the engine.
        print(f"{args.command}: {database_problem(exc)}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{args.command}: {exc}", file=sys.stderr)
        return 1


def database_problem(error: BaseException) -> str:
    """A database error as one line an operator can act on."""
    cause = error.__cause__ or error.__context__ or error
    first = (str(getattr(error, "orig", None) or cause).strip().splitlines() or ["?"])[0]
    return f"the database refused ({first}); check DATABASE_URL and that its server is running."
