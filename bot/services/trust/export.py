"""Export and import campaigns as versioned JSON: settings, characters with all their data, ledger.

The exporter walks the schema rather than a fixed list of tables: a campaign owns its row, and
every row of any table that references (through a foreign key) a row it owns, so feature tables
added later (fortune choices, party play…) travel with it without code here. Surrogate integer
keys are remapped on import, so a campaign moves between servers and databases (SQLite ↔
PostgreSQL) next to campaigns already there. An import is one transaction: it lands whole or
not at all.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import secrets
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import IO, Any, cast

from sqlalchemy import (
    Column,
    ColumnElement,
    DateTime,
    Select,
    Table,
    and_,
    false,
    insert,
    or_,
    select,
    tuple_,
)
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import campaigns, ledger_chains
from bot.db.schema import metadata
from bot.services.kit import budgets, walks
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.kit.errors import AlreadyExists, InvalidValue, NotFound, TooLarge
from bot.services.kit.sql import insert_for, reading, transaction
from bot.services.store.campaigns import CampaignView
from bot.services.store.ledger import RollView, chain_size_in, salts_of
from bot.services.trust import fairness
from bot.services.trust.access import campaign_here, require_gm
from bot.services.trust.gamelog import check_rows
from bot.words import Visibility

FORMAT = "pbp-dice-export"
#: Bumped when a file written now could not be read by an older bot (a table or column it
#: lacks, or a changed meaning). Older files stay importable.
FORMAT_VERSION = 3
#: Format 1 files predate migration 0007: their ledger rows have no number, ``who`` or chain link.
_UNCHAINED_VERSION = 1
#: Format 1 and 2 files predate migration 0008: the ``who`` salt is a ledger column, not a row of
#: ``ledger_salts``.
_SALT_IN_LEDGER_VERSION = 2
#: The ledger, taken from the schema like every other table: this module only reads it and, on
#: import, appends rows (append-only holds); ledger.py alone updates it (the reveal stamp).
ledger = metadata.tables["ledger"]
ledger_salts = metadata.tables["ledger_salts"]
#: Whom a row names besides its roller (docs/privacy.md): left out with a redacted row, like
#: its salts, since it would tell what the row's command named.
ledger_names = metadata.tables["ledger_names"]
GZIP_MAGIC = b"\x1f\x8b"
#: Rows per statement for ``IN (...)`` look-ups: under every driver's parameter limit.
_CHUNK = 500


@dataclass(frozen=True, slots=True)
class ImportedCampaign:
    """One imported campaign: its new id and where it lives, and how many rows of each table."""

    old_id: int
    campaign_id: int
    guild_id: int
    channel_id: int
    rows: Mapping[str, int] = field(default_factory=dict)


def campaign_tables() -> list[Table]:
    """The campaign's tables, parents first: ``campaigns`` and what hangs off it."""
    owned = {campaigns.name}
    ordered = [campaigns]
    for table in metadata.sorted_tables:
        if table.name in owned:
            continue
        if any(fk.column.table.name in owned for fk in table.foreign_keys):
            owned.add(table.name)
            ordered.append(table)
    return ordered


def surrogate_key(table: Table) -> Column[Any] | None:
    """The single integer primary key the database assigns, remapped on import."""
    keys = list(table.primary_key.columns)
    if len(keys) != 1 or keys[0].foreign_keys:
        return None
    key = keys[0]
    return key if key.autoincrement in (True, "auto") and key.type.python_type is int else None


def _owned_where(table: Table, scopes: Mapping[str, Select[Any]]) -> ColumnElement[bool]:
    conditions = [
        fk.parent.in_(scopes[fk.column.table.name])
        for fk in table.foreign_keys
        if fk.column.table.name in scopes
    ]
    return or_(*conditions) if conditions else false()


def _to_json(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, tuple):
        return list(value)
    return value


def _is_datetime(column: Column[Any]) -> bool:
    impl = getattr(column.type, "impl", column.type)
    return isinstance(impl, DateTime) or isinstance(column.type, DateTime)


def _redact(row: dict[str, Any]) -> dict[str, Any]:
    """A roll only its roller may see, not revealed yet: keep the commitment, drop the result.

    The salt goes too: with it, the commitment could be brute-forced back into the result; and
    so do its personal salts (``ledger_salts``, left out by the caller). So
    does the command as typed, which the GM's own log does not show for such a roll either
    (a fortune choice made on a self roll while it was still allowed named it, "keep the
    natural 20 of roll #42"; now a hidden roll has no follow-up row until revealed).
    """
    if row.get("visibility") == Visibility.SELF.value and row.get("revealed_at") is None:
        # Its personal salts go with the request: with them the request could be guessed
        # back from ``who``; without them the ``who`` digest still binds the row, unchecked.
        return {**row, "request": "", "dice": [], "outcome": {"redacted": True}, "salt": None}
    return row


def _redacted_ids(campaign_id: int, upto: int) -> Select[Any]:
    """The ledger rows :func:`_redact` empties, as a query (their salts and names stay out)."""
    return select(ledger.c.id).where(
        ledger.c.campaign_id == campaign_id,
        ledger.c.number <= upto,
        ledger.c.visibility == Visibility.SELF.value,
        ledger.c.revealed_at.is_(None),
    )


def _hidden_among(ids: Sequence[int]) -> Select[Any]:
    """Which of these ledger rows :func:`_redact` empties."""
    return select(ledger.c.id).where(
        ledger.c.id.in_(ids),
        ledger.c.visibility == Visibility.SELF.value,
        ledger.c.revealed_at.is_(None),
    )


def _after(order: Sequence[Column[Any]], last: Sequence[Any]) -> ColumnElement[bool]:
    """Rows past ``last`` in primary-key order (keyset paging: no OFFSET that grows)."""
    after: ColumnElement[bool] = (
        order[0] > last[0] if len(order) == 1 else tuple_(*order) > tuple_(*last)
    )
    return after


#: ``write(text)``: where an export's JSON goes, piece by piece (a gzip file, stdout…).
Write = Callable[[str], Awaitable[None]]


async def _table_rows(
    db: Database,
    campaign_id: int,
    *,
    redact_private: bool,
    upto: int,
    on_page: Callable[[Table, int], Awaitable[None]] | None = None,
) -> AsyncIterator[tuple[Table, list[dict[str, Any]]]]:
    """The campaign's tables, parents first, each a page per short transaction.

    Bounded by the chain's last number when the export began (``upto``) and, for a table with
    its own key, by the last key exported: a row written meanwhile, or a child of one, waits
    for the next export, so every exported row's parent is in the file.
    """
    scopes: dict[str, Select[Any]] = {}
    hidden = _redacted_ids(campaign_id, upto)
    ledger_where = and_(ledger.c.campaign_id == campaign_id, ledger.c.number <= upto)
    for table in campaign_tables():
        if table is campaigns:
            where: ColumnElement[bool] = campaigns.c.id == campaign_id
        elif table is ledger:
            # The campaign's chain as it stood when the export began.
            where = ledger_where
        else:
            where = _owned_where(table, scopes)
        if redact_private and (table is ledger_salts or table is ledger_names):
            where = and_(where, table.c.ledger_id.not_in(hidden))
        key = surrogate_key(table)
        top: Any = None
        pages = _pages(db, table, where, key, ledger_where, redact_private=redact_private)
        async for rows, last_key in pages:
            if table is ledger and redact_private:
                rows = [_redact(row) for row in rows]
            if table is campaigns:
                # A cache check, not the game: it starts at random, so it would tell two
                # otherwise identical campaigns apart (the import gives a fresh one).
                rows = [{k: v for k, v in row.items() if k != "revision"} for row in rows]
            if rows:
                yield table, rows
                top = last_key if last_key is not None else top
            if on_page is not None:
                await on_page(table, len(rows))
            await walks.turn()
        if table is ledger:
            scopes[table.name] = select(ledger.c.id).where(ledger_where)
        elif key is not None:
            scopes[table.name] = (
                select(key).where(where, key <= top)
                if top is not None
                else select(key).where(false())
            )


def _by_ledger_rows(table: Table) -> Column[Any] | None:
    """The column through which a table's rows hang off ledger rows, first in its key (its
    salts, names, stubs…): such a table is read a page of ledger rows at a time."""
    first = next(iter(table.primary_key.columns))
    return first if any(fk.column.table is ledger for fk in first.foreign_keys) else None


async def _pages(
    db: Database,
    table: Table,
    where: ColumnElement[bool],
    key: Column[Any] | None,
    ledger_where: ColumnElement[bool],
    *,
    redact_private: bool,
) -> AsyncIterator[tuple[list[dict[str, Any]], Any]]:
    """A table's rows under ``where`` a page per transaction, with the last surrogate key of
    each page.

    Keyset paging (no OFFSET that grows), each page read through an index: the ledger in
    number order (``ix_ledger_campaign_id_number``); a table hanging off ledger rows for a
    page of them at a time, so no page re-reads the whole ledger; any other table in key order.
    """
    order = [ledger.c.number] if table is ledger else list(table.primary_key.columns)
    through = _by_ledger_rows(table)
    last: list[Any] | None = None
    while True:
        if through is not None:
            numbers = select(ledger.c.id, ledger.c.number).where(ledger_where)
            if last is not None:
                numbers = numbers.where(ledger.c.number > last[0])
            async with reading(db) as session:
                found = list(
                    await session.execute(numbers.order_by(ledger.c.number).limit(walks.PAGE))
                )
                if not found:
                    return
                chunk = [int(r.id) for r in found]
                # The chunk is of the exported ledger rows: the table's rows hanging off them.
                stmt = select(table).where(through.in_(chunk)).order_by(*order)
                if redact_private and (table is ledger_salts or table is ledger_names):
                    stmt = stmt.where(through.not_in(_hidden_among(chunk)))
                page = list(await session.execute(stmt))
            last = [found[-1].number]
            more = len(found) == walks.PAGE
        else:
            stmt = select(table).where(where)
            if last is not None:
                stmt = stmt.where(_after(order, last))
            async with reading(db) as session:
                page = list(await session.execute(stmt.order_by(*order).limit(walks.PAGE)))
            if page:
                last = [page[-1]._mapping[column.name] for column in order]
            more = len(page) == walks.PAGE
        rows = [{k: _to_json(v) for k, v in row._mapping.items()} for row in page]
        yield rows, (page[-1]._mapping[key.name] if page and key is not None else None)
        if not more:
            return


async def export_campaigns(
    db: Database,
    *,
    guild_id: int | None = None,
    campaign_id: int | None = None,
    redact_private: bool = False,
) -> dict[str, Any]:
    """The export file's content for one campaign, or every campaign of a guild, in memory.

    For tests and small campaigns: :func:`write_export` streams the same content.
    ``redact_private`` (the GM's ``/campaign export``) leaves out the results of unrevealed
    rolls that only their roller may see; the operator's command-line export keeps everything.
    """
    pieces: list[str] = []

    async def collect(text: str) -> None:
        pieces.append(text)

    await write_export(
        db, collect, guild_id=guild_id, campaign_id=campaign_id, redact_private=redact_private
    )
    return cast(dict[str, Any], json.loads("".join(pieces)))


async def _campaign_ids(db: Database, guild_id: int | None, campaign_id: int | None) -> list[int]:
    if guild_id is None and campaign_id is None:
        raise InvalidValue("Say which guild or campaign to export.")
    query = select(campaigns.c.id).order_by(campaigns.c.id)
    if guild_id is not None:
        query = query.where(campaigns.c.guild_id == guild_id)
    if campaign_id is not None:
        query = query.where(campaigns.c.id == campaign_id)
    async with transaction(db) as session:
        ids: list[int] = list((await session.execute(query)).scalars())
    if not ids:
        raise NotFound("No campaign to export there.")
    return ids


def _row_text(row: Mapping[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


async def _write_campaign(
    db: Database, write: Write, cid: int, redact_private: bool, progress: walks.Progress | None
) -> None:
    """One campaign's tables, as the members of a JSON object."""
    async with transaction(db) as session:
        upto = await chain_size_in(session, f"campaign:{cid}")
    done = 0

    async def on_page(table: Table, count: int) -> None:
        nonlocal done
        if table is ledger:
            done += count
            await walks.tell(progress, min(done, upto), upto)

    current: str | None = None
    async for table, rows in _table_rows(
        db, cid, redact_private=redact_private, upto=upto, on_page=on_page
    ):
        if table.name != current:
            opening = "" if current is None else "\n],"
            await write(f"{opening}\n{json.dumps(table.name)}: [\n")
            current = table.name
            separator = ""
        else:
            separator = ",\n"
        await write(separator + ",\n".join(_row_text(row) for row in rows))
    if current is not None:
        await write("\n]")


async def write_export(
    db: Database,
    write: Write,
    *,
    guild_id: int | None = None,
    campaign_id: int | None = None,
    redact_private: bool = False,
    progress: walks.Progress | None = None,
) -> None:
    """Stream the export file's JSON to ``write``, a page of rows at a time: memory flat in
    the size of the log, a turn for the event loop between pages (bot/services/kit/walks.py).

    The same document as :func:`dumps` of :func:`export_campaigns` would give, one row a line.
    ``progress(done, total)`` counts the ledger's rows.
    """
    ids = await _campaign_ids(db, guild_id, campaign_id)
    await write('{"campaigns": [\n')
    for index, cid in enumerate(ids):
        await write(("" if index == 0 else ",\n") + '{"tables": {')
        await _write_campaign(db, write, cid, redact_private, progress)
        async with reading(db) as session:
            # Revealed dice seeds only: tools/verify_fair.py recomputes the rolls from them.
            seeds = await fairness.revealed_in(session, cid)
            hashes = await fairness.published_in(session, cid)
            changes = await fairness.seed_changes_in(session, cid)
        await write('},\n"fair_seeds": ' + json.dumps(seeds, sort_keys=True))
        await write(',\n"fair_seed_hashes": ' + json.dumps(hashes))
        await write(',\n"player_seed_changes": ' + json.dumps(changes, sort_keys=True) + "}")
    stamp = json.dumps(datetime.now(UTC).isoformat())
    await write(
        f'\n],\n"exported_at": {stamp},\n"format": {json.dumps(FORMAT)},\n'
        f'"version": {FORMAT_VERSION}}}\n'
    )


def dumps(data: Any) -> str:
    """The export file's text: stable key order, readable, UTF-8."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def compress(data: Any) -> bytes:
    """The export as a ``.json.gz`` file's bytes (no timestamp inside: same data, same bytes).

    A ledger of big rolls is mostly repeated digits and keys: gzip shrinks it several times
    over, which keeps most campaigns under Discord's upload limit.
    """
    return gzip.compress(dumps(data).encode(), mtime=0)


def load(raw: bytes, name: str = "This file") -> Any:
    """An export file's content, from ``.json`` or ``.json.gz`` bytes (told apart by gzip's
    magic number, not the name, so a renamed file still reads)."""
    if raw[:2] == GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InvalidValue(f"{name} is a damaged gzip file. Nothing was imported.") from exc
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidValue(f"{name} is not UTF-8 JSON. Nothing was imported.") from exc
    except json.JSONDecodeError as exc:
        raise InvalidValue(
            f"{name} is not JSON ({exc.msg}, line {exc.lineno}). Nothing was imported."
        ) from exc


def size_text(size: int) -> str:
    """A file size as Discord states its upload limits (MiB written MB, KiB written KB)."""
    if size >= 2**20:
        return f"{size / 2**20:.1f} MB"
    return f"{-(-size // 2**10)} KB"


@dataclass(frozen=True, slots=True)
class ExportFile:
    """``/campaign export``'s file: its name and its (compressed) bytes."""

    filename: str
    content: bytes


#: The most a file may weigh when the caller does not say: Discord's limit for a server
#: without boosts (25 MiB). /campaign export passes the limit of the interaction it answers.
DEFAULT_SIZE_LIMIT = 25 * 2**20


#: The fewest compressed bytes a ledger row can take in an export: its chain link and its
#: ``who`` digest are 64 hex digits of SHA-256 each, 32 bytes of entropy that no compressor
#: shrinks. A chain longer than the limit over this cannot fit, whatever its rows hold.
LEAST_BYTES_PER_ROW = 64


def _too_large(campaign: CampaignView, size: str, limit: int) -> TooLarge:
    return TooLarge(
        f"This campaign's export is {size} compressed, more than the {size_text(limit)} "
        "Discord lets this server receive. The bot's operator can write it whole to disk: "
        f"`pbp-dice export --guild {campaign.guild_id} --campaign {campaign.id} "
        "--out campaign.json.gz`."
    )


class GzipWriter:
    """An export streamed into a gzip file, compressing in a worker thread a piece at a time
    (no timestamp inside: the same data gives the same bytes)."""

    #: Text gathered before it is compressed (a page or two of rows): the last flush is small.
    BUFFER = 1 << 18

    def __init__(self, target: IO[bytes]) -> None:
        self._gzip = gzip.GzipFile(fileobj=target, mode="wb", mtime=0)
        self._pending: list[str] = []
        self._size = 0

    async def write(self, text: str) -> None:
        self._pending.append(text)
        self._size += len(text)
        if self._size >= self.BUFFER:
            await self._flush()

    async def _flush(self) -> None:
        data = "".join(self._pending).encode()
        self._pending, self._size = [], 0
        await asyncio.to_thread(self._gzip.write, data)

    async def close(self) -> None:
        await self._flush()
        await asyncio.to_thread(self._gzip.close)


async def export_for_gm(
    db: Database,
    caller: Caller,
    size_limit: int = DEFAULT_SIZE_LIMIT,
    progress: walks.Progress | None = None,
) -> ExportFile:
    """``/campaign export``: this channel's campaign for its GM, compressed, as a file.

    Rolls only their roller may see, and not yet revealed, are redacted: the GM is not
    entitled to them. ``size_limit``: the most bytes the place the file goes accepts (Discord
    sets it per server). A chain too long to fit is refused before any work, from its length;
    a file that turns out larger is refused with its size; both name the operator's way.
    The file is streamed to a temporary file page by page: memory holds at most the file
    Discord accepts, whatever the length of the log.
    """
    campaign = await campaign_here(db, caller)
    require_gm(campaign, caller, "export the campaign")
    async with transaction(db) as session:
        size = await chain_size_in(session, f"campaign:{campaign.id}")
    if size * LEAST_BYTES_PER_ROW > size_limit:
        raise _too_large(
            campaign,
            f"at least {size_text(size * LEAST_BYTES_PER_ROW)} ({size:,} rolls)",
            size_limit,
        )
    budgets.charge(caller, budgets.LEDGER_ROW * size)
    async with walks.one_walk(campaign.id, "an export", size):
        with tempfile.TemporaryFile() as spool:
            writer = GzipWriter(spool)
            await write_export(
                db, writer.write, campaign_id=campaign.id, redact_private=True, progress=progress
            )
            await writer.close()
            length = spool.tell()
            if length > size_limit:
                raise _too_large(campaign, size_text(length), size_limit)
            spool.seek(0)
            content = await asyncio.to_thread(spool.read)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return ExportFile(f"pbp-dice-campaign-{campaign.id}-{stamp}.json.gz", content)


def check_version(data: Mapping[str, Any]) -> int:
    """The file's format version, if this bot reads it (its top-level ``format`` and
    ``version``); refused with the reason otherwise."""
    if data.get("format") != FORMAT:
        raise InvalidValue("This is not a pbp-dice export file.")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InvalidValue("This export file has no valid format version.")
    if version > FORMAT_VERSION:
        raise InvalidValue(
            f"This file was exported by a newer pbp-dice (export format {version}); this bot "
            f"reads up to format {FORMAT_VERSION}. Upgrade the bot, then import again. "
            "Nothing was imported."
        )
    return version


def _check_header(data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, dict):
        raise InvalidValue("This is not a pbp-dice export file.")
    check_version(data)
    items = data.get("campaigns")
    if not isinstance(items, list) or not items:
        raise InvalidValue("This export file holds no campaign.")
    known = {t.name: t for t in campaign_tables()}
    for item in items:
        tables = item.get("tables") if isinstance(item, dict) else None
        if not isinstance(tables, dict) or len(tables.get(campaigns.name) or []) != 1:
            raise InvalidValue("This export file is damaged: a campaign entry is incomplete.")
        for name, rows in tables.items():
            if name not in known:
                raise InvalidValue(
                    f"This file holds data this bot does not know ({name}): it comes from a "
                    "newer pbp-dice. Upgrade the bot, then import again. Nothing was imported."
                )
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                raise InvalidValue(f"This export file is damaged ({name}).")
            columns = set(known[name].columns.keys())
            for row in rows:
                extra = set(row) - columns
                if extra:
                    raise InvalidValue(
                        f"This file holds data this bot does not know ({name}."
                        f"{sorted(extra)[0]}): it comes from a newer pbp-dice. Upgrade the bot, "
                        "then import again. Nothing was imported."
                    )
    return items


def _chunks(values: Sequence[int]) -> Iterable[Sequence[int]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start : start + _CHUNK]


async def taken_interactions(session: AsyncSession, rows: list[dict[str, Any]]) -> set[int]:
    wanted = [r["interaction_id"] for r in rows if r.get("interaction_id") is not None]
    taken: set[int] = set()
    for chunk in _chunks(wanted):
        found = await session.execute(
            select(ledger.c.interaction_id).where(ledger.c.interaction_id.in_(chunk))
        )
        taken.update(found.scalars())
    return taken


def retarget(
    tables: dict[str, list[dict[str, Any]]], guild_id: int | None, channel_id: int | None
) -> dict[str, list[dict[str, Any]]]:
    """Point the campaign at another server and/or channel.

    Its ledger rows keep the server and channel they were rolled in: their commitments and
    chain links bind those snowflakes, and the campaign keeps its ``ledger_scope``, so the
    numbers on the old stubs still name the same rolls (docs/secret-rolls.md, "Numbers").
    """
    campaign = dict(tables[campaigns.name][0])
    # Known GMs are who the bot saw acting as GM here before the export: on import, anywhere,
    # they are forgotten; GMs become known again when they act (docs/secret-rolls.md).
    campaign["gm_user_ids"] = []
    # @everyone (its id is the server's) is never a GM role, whatever the file says.
    campaign["gm_role_ids"] = [
        role for role in campaign.get("gm_role_ids") or [] if role != campaign["guild_id"]
    ]
    campaign.setdefault("ledger_scope", campaign["channel_id"])
    if guild_id is not None and guild_id != campaign["guild_id"]:
        # Roles and channels of the old server mean nothing on the new one; Manage Server
        # holders are GMs there and can set GM roles again.
        campaign.update(guild_id=guild_id, gm_role_ids=[], gm_channel_id=None)
    if channel_id is not None:
        campaign["channel_id"] = channel_id
    return {**tables, campaigns.name: [campaign]}


def _chain_unchained(tables: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """A format 1 file: number, bind and chain its rows as migration 0007 does a database.

    Each keeps the number it was shown under (its id then) and the campaign id its commitment
    bound, so its commitment still verifies.
    """
    campaign = dict(tables[campaigns.name][0])
    scope = int(campaign.setdefault("ledger_scope", campaign["channel_id"]))
    previous = cm.GENESIS
    rows = []
    salts = list(tables.get(ledger_salts.name, []))
    for row in sorted(tables.get(ledger.name, []), key=lambda r: int(r["id"])):
        row = dict(row)
        salt = secrets.token_hex(cm.SALT_BYTES)
        row.update(
            number=int(row["id"]),
            scope_id=scope,
            format=cm.LEGACY_FORMAT,
            legacy_campaign_id=row.get("campaign_id"),
            who=cm.who_digest(int(row["user_id"]), row.get("character_name"), row["request"], salt),
        )
        salts.append({"ledger_id": row["id"], "field": cm.ROW_SALT, "salt": salt, "digest": None})
        view = row_view(row)
        row["chain"] = previous = cm.link(previous, view.entry())
        rows.append(row)
    return {**tables, campaigns.name: [campaign], ledger.name: rows, ledger_salts.name: salts}


def _salts_apart(data: Any) -> None:
    """A file written before migration 0008 (format 1 or 2): move each ledger row's ``who_salt``
    into ``ledger_salts``, as migration 0008 does a database. Leaves a damaged file to
    :func:`_check_header` to refuse."""
    if not isinstance(data, dict) or not isinstance(data.get("campaigns"), list):
        return
    version = data.get("version")
    if not isinstance(version, int) or version > _SALT_IN_LEDGER_VERSION:
        return
    for item in data["campaigns"]:
        tables = item.get("tables") if isinstance(item, dict) else None
        if not isinstance(tables, dict) or not isinstance(tables.get(ledger.name), list):
            continue
        salts = list(tables.get(ledger_salts.name) or [])
        rows = []
        for row in tables[ledger.name]:
            if isinstance(row, dict) and "who_salt" in row:
                row = dict(row)
                salt = row.pop("who_salt")
                if salt is not None:
                    salts.append(
                        {
                            "ledger_id": row.get("id"),
                            "field": cm.ROW_SALT,
                            "salt": salt,
                            "digest": None,
                        }
                    )
            rows.append(row)
        tables[ledger.name] = rows
        if salts:
            tables[ledger_salts.name] = salts


def row_view(row: Mapping[str, Any]) -> RollView:
    """A file's ledger row as the ledger service reads a stored one."""
    values: dict[str, Any] = {name: row.get(name) for name in RollView.__slots__}
    for name in ("created_at", "revealed_at"):
        if isinstance(values[name], str):
            values[name] = datetime.fromisoformat(values[name])
    values["visibility"] = Visibility(values["visibility"])
    values["format"] = int(values["format"] or cm.FORMAT)
    return RollView(**values)


def _verify_log(tables: dict[str, list[dict[str, Any]]]) -> tuple[int, str]:
    """Refuse a file whose chain or commitments do not verify; (last number, head) if they do."""
    fields: dict[int, dict[str, tuple[str | None, str | None]]] = {}
    for salt in tables.get(ledger_salts.name, []):
        fields.setdefault(int(salt["ledger_id"]), {})[str(salt["field"])] = (
            salt.get("salt"),
            salt.get("digest"),
        )
    views = sorted(
        (
            replace(row_view(r), salts=salts_of(fields.get(int(r["id"]), {})))
            for r in tables.get(ledger.name, [])
        ),
        key=lambda v: v.number,
    )
    _, head, broken = check_rows(views, None, every_commitment=True)
    if broken is not None:
        where = f"at roll #{broken.number}" if broken.number is not None else ""
        raise InvalidValue(
            f"This file's roll log does not verify {where}: {broken.reason}. The file was "
            "changed after it was exported. Nothing was imported."
        )
    return (views[-1].number if views else 0), head


def prepare_rows(
    table: Table,
    rows: Iterable[Mapping[str, Any]],
    new_key: Callable[[str, int], int | None],
    taken: set[int],
) -> tuple[list[dict[str, Any]], list[int]]:
    """A file's rows of ``table`` as values to insert, with their old surrogate keys.

    ``new_key(table name, old key)``: the key the row it refers to was given here (None: the
    file does not hold it); ``taken``: interaction ids already recorded here (left out).
    """
    key = surrogate_key(table)
    prepared: list[dict[str, Any]] = []
    old_keys: list[int] = []
    for row in rows:
        values: dict[str, Any] = {}
        for name, value in row.items():
            column = table.columns[name]
            if column is key:
                old_keys.append(int(value))
                continue
            if value is not None and column.foreign_keys:
                target = next(iter(column.foreign_keys)).column.table.name
                value = new_key(target, int(value))
                if value is None and not column.nullable:
                    raise InvalidValue(
                        f"This export file is damaged: a row of {table.name} refers to "
                        "data the file does not hold. Nothing was imported."
                    )
            elif value is not None and _is_datetime(column):
                value = datetime.fromisoformat(value)
            if name == "interaction_id" and value in taken:
                value = None  # this interaction is already recorded here; keep that one
            values[name] = value
        prepared.append(values)
    return prepared, old_keys


async def _import_one(
    session: AsyncSession, tables: dict[str, list[dict[str, Any]]]
) -> ImportedCampaign:
    campaign = tables[campaigns.name][0]
    existing = await session.scalar(
        select(campaigns.c.id).where(campaigns.c.channel_id == campaign["channel_id"])
    )
    if existing is not None:
        raise AlreadyExists(
            f"Channel {campaign['channel_id']} already has a campaign: delete it first, or "
            "import into another channel. Nothing was imported."
        )
    # The log first: a file whose chain is broken is refused for that, not for what the break
    # left dangling (a removed roll's salts).
    last_number, head = _verify_log(tables)
    new_ids: dict[str, dict[int, int]] = {}
    counts: dict[str, int] = {}
    for table in campaign_tables():
        rows = tables.get(table.name) or []
        key = surrogate_key(table)
        taken = await taken_interactions(session, rows) if table is ledger else set()
        prepared, old_keys = prepare_rows(
            table, rows, lambda target, old: new_ids.get(target, {}).get(old), taken
        )
        counts[table.name] = len(prepared)
        if not prepared:
            continue
        if key is not None:
            statement = insert(table).returning(key, sort_by_parameter_order=True)
            assigned = list((await session.execute(statement, prepared)).scalars())
            new_ids[table.name] = dict(zip(old_keys, assigned, strict=True))
        else:
            await session.execute(insert(table), prepared)
    new_campaign = new_ids[campaigns.name][int(campaign["id"])]
    if last_number:
        # The imported chain goes on from its head; the next roll's number follows the file's.
        values = {"scope_id": campaign["ledger_scope"], "last_number": last_number, "head": head}
        await session.execute(
            insert_for(session, ledger_chains)
            .values(key=f"campaign:{new_campaign}", **values)
            .on_conflict_do_update(index_elements=["key"], set_=values)
        )
    return ImportedCampaign(
        old_id=int(campaign["id"]),
        campaign_id=new_campaign,
        guild_id=int(campaign["guild_id"]),
        channel_id=int(campaign["channel_id"]),
        rows=counts,
    )


async def import_campaigns(
    db: Database,
    data: Any,
    *,
    guild_id: int | None = None,
    channel_id: int | None = None,
) -> list[ImportedCampaign]:
    """Import every campaign of an export file, in one transaction.

    ``guild_id`` / ``channel_id`` move a single campaign to another server or channel. A file
    from a newer bot, a damaged file or a channel that already has a campaign is refused with
    :class:`InvalidValue` / :class:`AlreadyExists`, and nothing is written.
    """
    _salts_apart(data)
    items = _check_header(data)
    version = int(data["version"])
    if (guild_id is not None or channel_id is not None) and len(items) != 1:
        raise InvalidValue("Moving to another server or channel works one campaign at a time.")
    if guild_id is not None and channel_id is None:
        raise InvalidValue("Moving to another server needs the channel there, too.")
    imported: list[ImportedCampaign] = []
    async with transaction(db) as session:
        for item in items:
            tables = retarget(item["tables"], guild_id, channel_id)
            if version == _UNCHAINED_VERSION:
                tables = _chain_unchained(tables)
            try:
                one = await _import_one(session, tables)
                await fairness.import_revealed_in(session, one.campaign_id, item.get("fair_seeds"))
                imported.append(one)
            except (KeyError, TypeError, ValueError) as exc:
                raise InvalidValue(
                    f"This export file is damaged ({exc}). Nothing was imported."
                ) from exc
    return imported
