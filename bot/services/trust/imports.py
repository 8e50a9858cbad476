"""Import an export file streamed from disk: memory flat in the size of its log, a page of
rows per short transaction, a turn for the event loop between pages.

Three reads of the file, each a row at a time (gzip decompressed as it goes): the first checks
everything that could refuse it (format, tables and columns this bot knows, one campaign row,
every reference to a row the file holds, a free channel) and, with a second reader further on
in the same file, the chain and every commitment against the row's salts; the last writes it,
a page per transaction. Until its last transaction the campaign sits on no channel, so nobody
meets a half-imported game; a file refused is refused before anything is written.

Memory: a page of rows, plus 16 bytes per row with a key of its own (the map from the file's
keys to the new ones). A file the streamed path cannot take (format 1 or 2, or rows out of
key order, which the bot never writes) is read whole by :func:`bot.services.trust.export.load` and
imported in one transaction, as before.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import re
import secrets
from array import array
from bisect import bisect_left
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import campaigns, ledger_chains
from bot.services.kit import walks
from bot.services.kit.errors import AlreadyExists, InvalidValue
from bot.services.kit.sql import insert_for, transaction
from bot.services.store.ledger import salts_of
from bot.services.trust import fairness
from bot.services.trust.export import (
    FORMAT_VERSION,
    GZIP_MAGIC,
    ImportedCampaign,
    campaign_tables,
    check_version,
    import_campaigns,
    ledger,
    ledger_salts,
    load,
    prepare_rows,
    retarget,
    row_view,
    surrogate_key,
    taken_interactions,
)
from bot.services.trust.gamelog import ChainWalk

#: Rows per write transaction.
PAGE = 100
#: Values read (and rows checked) between two turns of the event loop.
STEP = 50
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class _Damaged(Exception):
    """The file is not the JSON it should be."""


class _Unstreamable(Exception):
    """A valid file the streamed path does not take: read it whole."""


class _Reader:
    """A JSON text read a value at a time from a file, a chunk in memory."""

    CHUNK = 1 << 16
    #: One value (a row, a table's name…) longer than this: the file is damaged.
    MOST = 16 << 20

    def __init__(self, text: IO[str]) -> None:
        self._file = text
        self._buf = ""
        self._pos = 0
        self._eof = False

    def _more(self) -> bool:
        if self._eof:
            return False
        chunk = self._file.read(self.CHUNK)
        if not chunk:
            self._eof = True
            return False
        self._buf = self._buf[self._pos :] + chunk
        self._pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space ('' at the end)."""
        while True:
            match = _SPACE.match(self._buf, self._pos)
            self._pos = match.end() if match else self._pos
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._more():
                return ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise _Damaged
        self._pos += 1

    def next_is(self, char: str) -> bool:
        """Take ``char`` if it comes next."""
        if self.peek() == char:
            self._pos += 1
            return True
        return False

    def value(self) -> Any:
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError:
                if len(self._buf) - self._pos > self.MOST or not self._more():
                    raise _Damaged from None
                continue
            if end == len(self._buf) and self._more():
                continue  # a number may go on in the next chunk
            self._pos = end
            return value


#: ("top", key, value) · ("item", index, key, value) · ("table", index, name) ·
#: ("row", index, name, row): an export file, in its order.
Event = tuple[Any, ...]


def _members(reader: _Reader) -> Iterator[Any]:
    """An object's keys; the caller reads each one's value before asking for the next."""
    reader.expect("{")
    if reader.next_is("}"):
        return
    while True:
        key = reader.value()
        reader.expect(":")
        yield key
        if not reader.next_is(","):
            reader.expect("}")
            return


def _elements(reader: _Reader) -> Iterator[int]:
    """An array's positions; the caller reads each element before asking for the next."""
    reader.expect("[")
    if reader.next_is("]"):
        return
    index = 0
    while True:
        yield index
        index += 1
        if not reader.next_is(","):
            reader.expect("]")
            return


def _events(reader: _Reader) -> Iterator[Event]:
    for key in _members(reader):
        if key == "campaigns" and reader.peek() == "[":
            for index in _elements(reader):
                yield from _item(reader, index)
        else:
            yield ("top", key, reader.value())
    if reader.peek() != "":
        raise _Damaged


def _item(reader: _Reader, index: int) -> Iterator[Event]:
    for key in _members(reader):
        if key != "tables":
            yield ("item", index, key, reader.value())
            continue
        for name in _members(reader):
            yield ("table", index, name)
            for _ in _elements(reader):
                yield ("row", index, name, reader.value())


Opener = Callable[[], IO[str]]


def _opener(path: Path) -> Opener:
    """Plain JSON or gzip (told apart by gzip's magic number, not the name)."""
    with path.open("rb") as head:
        zipped = head.read(2) == GZIP_MAGIC

    def open_text() -> IO[str]:
        if zipped:
            return gzip.open(path, "rt", encoding="utf-8")
        return path.open("r", encoding="utf-8")

    return open_text


def _read(opener: Opener, name: str) -> Iterator[Event]:
    """The file's events; its damage as the user's error."""
    with opener() as text:
        try:
            yield from _events(_Reader(text))
        except (_Damaged, UnicodeDecodeError) as exc:
            raise InvalidValue(
                f"{name} is not a readable pbp-dice export (damaged JSON). Nothing was imported."
            ) from exc
        except (OSError, EOFError) as exc:
            raise InvalidValue(f"{name} is a damaged gzip file. Nothing was imported.") from exc


class _Keys:
    """One table's keys in the file, ascending, and the keys its rows got here, in step:
    8 bytes a key each, looked up by bisection."""

    __slots__ = ("new", "old")

    def __init__(self) -> None:
        self.old = array("q")
        self.new = array("q")

    def add_old(self, key: int) -> None:
        if self.old and key <= self.old[-1]:
            raise _Unstreamable
        self.old.append(key)

    def has(self, key: int) -> bool:
        at = bisect_left(self.old, key)
        return at < len(self.old) and self.old[at] == key

    def get(self, key: int) -> int | None:
        at = bisect_left(self.old, key)
        if at < len(self.new) and self.old[at] == key:
            return self.new[at]
        return None


@dataclass
class _Plan:
    """What the first read learnt of one campaign of the file."""

    campaign: dict[str, Any] | None = None
    keys: dict[str, _Keys] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    last_number: int = 0
    head: str = ""
    #: Its revealed dice seeds (a few, small): written with the campaign's row, first.
    seeds: Any = None


def _refuse_unknown(name: str, column: str | None = None) -> InvalidValue:
    what = name if column is None else f"{name}.{column}"
    return InvalidValue(
        f"This file holds data this bot does not know ({what}): it comes from a newer "
        "pbp-dice. Upgrade the bot, then import again. Nothing was imported."
    )


def _salted_ledger(opener: Opener, name: str, index: int) -> Generator[dict[str, Any] | None]:
    """Campaign ``index``'s salts in file order, from a reader of its own; None for each
    value it passes over to reach them (so the caller can give the loop turns meanwhile)."""
    inside = False
    for event in _read(opener, name):
        if event[0] == "row" and event[1] == index and event[2] == ledger_salts.name:
            inside = True
            yield event[3]
        elif inside or (event[0] != "top" and event[1] > index):
            return  # the salts are over
        else:
            yield None


class _Survey:
    """The first read: every check, a page of rows at a time."""

    def __init__(self, opener: Opener, name: str) -> None:
        self.opener = opener
        self.name = name
        self.known = {t.name: t for t in campaign_tables()}
        self.top: dict[str, Any] = {}
        self.plans: list[_Plan] = []
        self._walk: ChainWalk | None = None
        self._salts: Generator[dict[str, Any] | None] | None = None
        self._salt: dict[str, Any] | None = None

    def take(self, event: Event) -> None:
        kind = event[0]
        if kind == "top":
            self.top[event[1]] = event[2]
            return
        index = event[1]
        while len(self.plans) <= index:
            self.end_chain()
            self.plans.append(_Plan())
        plan = self.plans[index]
        if kind == "table":
            if event[2] not in self.known:
                raise _refuse_unknown(str(event[2]))
            if event[2] == ledger_salts.name:
                self.end_chain()
            return
        if kind == "item" and event[2] == "fair_seeds":
            plan.seeds = event[3]
        if kind != "row":
            return
        table = self.known[event[2]]
        row = event[3]
        if not isinstance(row, dict):
            raise InvalidValue(f"This export file is damaged ({table.name}).")
        extra = set(row) - set(table.columns.keys())
        if extra:
            raise _refuse_unknown(table.name, sorted(extra)[0])
        plan.counts[table.name] = plan.counts.get(table.name, 0) + 1
        if table is campaigns:
            if plan.campaign is not None:
                raise InvalidValue("This export file is damaged: a campaign entry is incomplete.")
            plan.campaign = row
        key = surrogate_key(table)
        for column in table.columns:
            value = row.get(column.name)
            if column is key or value is None or not column.foreign_keys:
                continue
            target = next(iter(column.foreign_keys)).column.table.name
            keys = plan.keys.get(target)
            if not column.nullable and (keys is None or not keys.has(int(value))):
                raise InvalidValue(
                    f"This export file is damaged: a row of {table.name} refers to data the "
                    "file does not hold. Nothing was imported."
                )
        if key is not None:
            plan.keys.setdefault(table.name, _Keys()).add_old(int(row[key.name]))
        if table is ledger:
            self._chain(index, row)

    def _chain(self, index: int, row: dict[str, Any]) -> None:
        """Check the row's link and commitment, its salts read from further on in the file."""
        if self._walk is None:
            raise _Unstreamable  # primed at the ledger's start (:meth:`prime`)
        fields: dict[str, tuple[str | None, str | None]] = {}
        row_id = int(row["id"])
        while self._salt is not None and int(self._salt["ledger_id"]) <= row_id:
            if int(self._salt["ledger_id"]) < row_id:
                raise _Unstreamable  # a salt out of step with the rows (or of no row)
            fields[str(self._salt["field"])] = (self._salt.get("salt"), self._salt.get("digest"))
            self._salt = next(self._salts, None) if self._salts is not None else None
        view = replace(row_view(row), salts=salts_of(fields))
        broken = self._walk.feed([view])
        if broken is not None:
            where = f"at roll #{broken.number}" if broken.number is not None else ""
            raise InvalidValue(
                f"This file's roll log does not verify {where}: {broken.reason}. The file was "
                "changed after it was exported. Nothing was imported."
            )
        plan = self.plans[index]
        plan.last_number, plan.head = view.number, view.chain

    async def prime(self, index: int) -> None:
        """At the ledger's start: a second reader moved on to the first of its salts, a turn
        for the loop every page of values it passes over."""
        self._walk = ChainWalk(every_commitment=True)
        self._salts = _salted_ledger(self.opener, self.name, index)
        for passed, salt in enumerate(self._salts, 1):
            if salt is not None:
                self._salt = salt
                return
            if passed % STEP == 0:
                await walks.turn()

    def close(self) -> None:
        """Close the salts' reader, if one is open."""
        if self._salts is not None:
            self._salts.close()

    def end_chain(self) -> None:
        if self._salt is not None:
            raise _Unstreamable  # salts left over: of rows out of order, or of none
        self.close()
        self._walk, self._salts, self._salt = None, None, None


async def _survey(opener: Opener, name: str) -> _Survey:
    """Read the file once, checking it; the format's version comes last in the file, so a
    refusal waits for it (a file too new, or too old for this path, is told apart first)."""
    survey = _Survey(opener, name)
    refusal: InvalidValue | None = None
    try:
        for count, event in enumerate(_read(opener, name), 1):
            if refusal is None or event[0] == "top":
                try:
                    if event[0] == "table" and event[2] == ledger.name:
                        survey.take(event)
                        await survey.prime(event[1])
                        continue
                    survey.take(event)
                except (KeyError, TypeError, ValueError) as exc:
                    refusal = InvalidValue(
                        f"This export file is damaged ({exc}). Nothing was imported."
                    )
                except InvalidValue as exc:
                    refusal = exc
            if count % STEP == 0:
                await walks.turn()
        if refusal is None:
            survey.end_chain()
    finally:
        survey.close()
    version = check_version(survey.top)
    if version < FORMAT_VERSION:
        raise _Unstreamable
    if refusal is not None:
        raise refusal
    if not survey.plans:
        raise InvalidValue("This export file holds no campaign.")
    if any(plan.campaign is None for plan in survey.plans):
        raise InvalidValue("This export file is damaged: a campaign entry is incomplete.")
    return survey


async def _write(
    db: Database,
    opener: Opener,
    name: str,
    plans: list[_Plan],
    guild_id: int | None,
    channel_id: int | None,
) -> list[ImportedCampaign]:
    """The second read: each campaign's rows, a page per transaction, its channel last."""
    done: list[ImportedCampaign] = []
    page: list[dict[str, Any]] = []
    current: tuple[int, str] | None = None
    new_campaign = 0
    known = {t.name: t for t in campaign_tables()}

    async def flush() -> None:
        if current is None or not page:
            return
        index, table_name = current
        table = known[table_name]
        plan = plans[index]
        key = surrogate_key(table)
        async with transaction(db) as session:
            taken = await taken_interactions(session, page) if table is ledger else set()

            def new_key(target: str, old: int) -> int | None:
                keys = plan.keys.get(target)
                return None if keys is None else keys.get(old)

            prepared, _ = prepare_rows(table, page, new_key, taken)
            if key is not None:
                statement = insert(table).returning(key, sort_by_parameter_order=True)
                assigned = (await session.execute(statement, prepared)).scalars()
                plan.keys[table_name].new.extend(int(k) for k in assigned)
            else:
                await session.execute(insert(table), prepared)
        page.clear()
        await walks.turn()

    async def start(index: int) -> int:
        """The campaign's row, on no channel yet (a placeholder no channel has)."""
        plan = plans[index]
        assert plan.campaign is not None
        moved = retarget({campaigns.name: [plan.campaign]}, guild_id, channel_id)
        row = dict(moved[campaigns.name][0])
        plan.campaign = dict(row)
        async with transaction(db) as session:
            await _channel_free(session, int(row["channel_id"]))
            row["channel_id"] = -secrets.randbits(62) - 1
            prepared, _ = prepare_rows(campaigns, [row], lambda t, o: None, set())
            statement = insert(campaigns).returning(campaigns.c.id)
            made = int((await session.execute(statement, prepared)).scalar_one())
            # First: seeds that do not match their hashes refuse the file before any row.
            await fairness.import_revealed_in(session, made, plan.seeds)
        plan.keys[campaigns.name].new.append(made)
        return made

    async def finish(index: int) -> None:
        plan = plans[index]
        assert plan.campaign is not None
        real_channel = int(plan.campaign["channel_id"])
        async with transaction(db) as session:
            await _channel_free(session, real_channel)
            if plan.last_number:
                values = {
                    "scope_id": plan.campaign["ledger_scope"],
                    "last_number": plan.last_number,
                    "head": plan.head,
                }
                await session.execute(
                    insert_for(session, ledger_chains)
                    .values(key=f"campaign:{new_campaign}", **values)
                    .on_conflict_do_update(index_elements=["key"], set_=values)
                )
            await session.execute(
                update(campaigns)
                .where(campaigns.c.id == new_campaign)
                .values(channel_id=real_channel)
            )
        done.append(
            ImportedCampaign(
                old_id=int(plan.campaign["id"]),
                campaign_id=new_campaign,
                guild_id=int(plan.campaign["guild_id"]),
                channel_id=real_channel,
                rows={t.name: plan.counts.get(t.name, 0) for t in campaign_tables()},
            )
        )

    index_now = -1
    for count, event in enumerate(_read(opener, name), 1):
        if count % STEP == 0:  # every kind of value read counts, not only rows
            await walks.turn()
        kind = event[0]
        if kind == "top":
            continue
        index = event[1]
        if index != index_now:
            await flush()
            if index_now >= 0:
                await finish(index_now)
            index_now, current = index, None
            new_campaign = await start(index)
        if kind == "item":
            continue
        if kind == "table":
            await flush()
            current = (index, event[2])
            continue
        if event[2] == campaigns.name:
            continue  # written first, by start()
        page.append(event[3])
        if len(page) >= PAGE:
            await flush()
    await flush()
    if index_now >= 0:
        await finish(index_now)
    return done


async def _channel_free(session: AsyncSession, channel_id: int) -> None:
    existing = await session.scalar(
        select(campaigns.c.id).where(campaigns.c.channel_id == channel_id)
    )
    if existing is not None:
        raise AlreadyExists(
            f"Channel {channel_id} already has a campaign: delete it first, or import into "
            "another channel. Nothing was imported."
        )


async def import_file(
    db: Database,
    path: Path,
    *,
    guild_id: int | None = None,
    channel_id: int | None = None,
    name: str | None = None,
) -> list[ImportedCampaign]:
    """Import every campaign of an export file on disk (``.json`` or ``.json.gz``), streamed.

    ``guild_id`` / ``channel_id`` move a single campaign, as :func:`import_campaigns`. A file
    that would be refused is refused before anything is written.
    """
    shown = name or str(path)
    opener = _opener(path)
    try:
        survey = await _survey(opener, shown)
    except _Unstreamable:
        return await import_campaigns(
            db,
            load(await asyncio.to_thread(path.read_bytes), shown),
            guild_id=guild_id,
            channel_id=channel_id,
        )
    plans = survey.plans
    if (guild_id is not None or channel_id is not None) and len(plans) != 1:
        raise InvalidValue("Moving to another server or channel works one campaign at a time.")
    if guild_id is not None and channel_id is None:
        raise InvalidValue("Moving to another server needs the channel there, too.")
    async with transaction(db) as session:
        for plan in plans:
            assert plan.campaign is not None
            moved = retarget({campaigns.name: [plan.campaign]}, guild_id, channel_id)
            await _channel_free(session, int(moved[campaigns.name][0]["channel_id"]))
    return await _write(db, opener, shown, plans, guild_id, channel_id)
