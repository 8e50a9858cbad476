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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, ColumnElement, DateTime, Select, Table, false, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import campaigns, ledger_chains
from bot.db.schema import metadata
from bot.services import budgets, fairness
from bot.services import commitments as cm
from bot.services._sql import insert_for, transaction
from bot.services.access import require_gm
from bot.services.context import Caller
from bot.services.errors import AlreadyExists, InvalidValue, NotFound, TooLarge
from bot.services.gamelog import check_rows
from bot.services.sheets import campaign_here
from bot.services.store.ledger import RollView, chain_size_in, salts_of
from bot.words import Visibility

FORMAT = "pbp-dice-export"
#: Bumped when a file written now could not be read by an older bot (a table or column it
#: lacks, or a changed meaning). Older files stay importable.
FORMAT_VERSION = 3
#: Format 1 files predate issue 15: their ledger rows have no number, ``who`` or chain link.
_UNCHAINED_VERSION = 1
#: Format 1 and 2 files predate issue 22: the ``who`` salt is a ledger column, not a row of
#: ``ledger_salts``.
_SALT_IN_LEDGER_VERSION = 2
#: The ledger, taken from the schema like every other table: this module only reads it and, on
#: import, appends rows (append-only holds); ledger.py alone updates it (the reveal stamp).
ledger = metadata.tables["ledger"]
ledger_salts = metadata.tables["ledger_salts"]
#: Whom a row names besides its roller (docs/privacy.md): left out with a redacted row, like
#: its salts, since it would tell what the row's command named.
ledger_names = metadata.tables["ledger_names"]
_GZIP_MAGIC = b"\x1f\x8b"
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


def _tables() -> list[Table]:
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


def _surrogate_key(table: Table) -> Column[Any] | None:
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
    (issue 15: a fortune choice made on a self roll before that rule named it, "keep the
    natural 20 of roll #42"; since then a hidden roll has no follow-up row until revealed).
    """
    if row.get("visibility") == Visibility.SELF.value and row.get("revealed_at") is None:
        # Its personal salts go with the request: with them the request could be guessed
        # back from ``who``; without them the ``who`` digest still binds the row, unchecked.
        return {**row, "request": "", "dice": [], "outcome": {"redacted": True}, "salt": None}
    return row


async def _campaign_rows(
    session: AsyncSession, campaign_id: int, *, redact_private: bool
) -> dict[str, list[dict[str, Any]]]:
    scopes: dict[str, Select[Any]] = {}
    tables: dict[str, list[dict[str, Any]]] = {}
    redacted_ids: set[int] = set()
    for table in _tables():
        where = campaigns.c.id == campaign_id if table is campaigns else _owned_where(table, scopes)
        key = _surrogate_key(table)
        if key is not None:
            scopes[table.name] = select(key).where(where)
        order = list(table.primary_key.columns)
        result = await session.execute(select(table).where(where).order_by(*order))
        rows = [{k: _to_json(v) for k, v in row._mapping.items()} for row in result]
        if table is ledger and redact_private:
            redacted = [_redact(row) for row in rows]
            redacted_ids = {r["id"] for r, o in zip(redacted, rows, strict=True) if r is not o}
            rows = redacted
        if table is ledger_salts or table is ledger_names:
            rows = [row for row in rows if row["ledger_id"] not in redacted_ids]
        tables[table.name] = rows
    return tables


async def export_campaigns(
    db: Database,
    *,
    guild_id: int | None = None,
    campaign_id: int | None = None,
    redact_private: bool = False,
) -> dict[str, Any]:
    """The export file's content for one campaign, or every campaign of a guild.

    ``redact_private`` (the GM's ``/campaign export``) leaves out the results of unrevealed
    rolls that only their roller may see; the operator's command-line export keeps everything.
    """
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
        exported = [
            {
                "tables": await _campaign_rows(session, cid, redact_private=redact_private),
                # Revealed dice seeds only: tools/verify_fair.py recomputes the rolls from them.
                "fair_seeds": await fairness.revealed_in(session, cid),
            }
            for cid in ids
        ]
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "exported_at": datetime.now(UTC).isoformat(),
        "campaigns": exported,
    }


def dumps(data: Any) -> str:
    """The export file's text: stable key order, readable, UTF-8."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def compress(data: Any) -> bytes:
    """The export as a ``.json.gz`` file's bytes (no timestamp inside: same data, same bytes).

    A ledger of big rolls is mostly repeated digits and keys: gzip shrinks it several times
    over, which keeps most campaigns under Discord's upload limit (issue 19).
    """
    return gzip.compress(dumps(data).encode(), mtime=0)


def load(raw: bytes, name: str = "This file") -> Any:
    """An export file's content, from ``.json`` or ``.json.gz`` bytes (told apart by gzip's
    magic number, not the name, so a renamed file still reads)."""
    if raw[:2] == _GZIP_MAGIC:
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


async def export_for_gm(
    db: Database, caller: Caller, size_limit: int = DEFAULT_SIZE_LIMIT
) -> ExportFile:
    """``/campaign export``: this channel's campaign for its GM, compressed, as a file.

    Rolls only their roller may see, and not yet revealed, are redacted: the GM is not
    entitled to them. ``size_limit``: the most bytes the place the file goes accepts (Discord
    sets it per server); a larger file is refused with its size and the operator's way.
    """
    campaign = await campaign_here(db, caller)
    require_gm(campaign, caller, "export the campaign")
    async with transaction(db) as session:
        size = await chain_size_in(session, f"campaign:{campaign.id}")
    budgets.charge(caller, budgets.LEDGER_ROW * size)
    data = await export_campaigns(db, campaign_id=campaign.id, redact_private=True)
    content = await asyncio.to_thread(compress, data)  # a long ledger takes a while
    if len(content) > size_limit:
        raise TooLarge(
            f"This campaign's export is {size_text(len(content))} compressed, more than the "
            f"{size_text(size_limit)} Discord lets this server receive. The bot's operator can "
            f"write it whole: `python -m bot export --guild {campaign.guild_id} "
            f"--campaign {campaign.id} --out campaign.json.gz`."
        )
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return ExportFile(f"pbp-dice-campaign-{campaign.id}-{stamp}.json.gz", content)


def _check_header(data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
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
    items = data.get("campaigns")
    if not isinstance(items, list) or not items:
        raise InvalidValue("This export file holds no campaign.")
    known = {t.name: t for t in _tables()}
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


async def _taken_interactions(session: AsyncSession, rows: list[dict[str, Any]]) -> set[int]:
    wanted = [r["interaction_id"] for r in rows if r.get("interaction_id") is not None]
    taken: set[int] = set()
    for chunk in _chunks(wanted):
        found = await session.execute(
            select(ledger.c.interaction_id).where(ledger.c.interaction_id.in_(chunk))
        )
        taken.update(found.scalars())
    return taken


def _retarget(
    tables: dict[str, list[dict[str, Any]]], guild_id: int | None, channel_id: int | None
) -> dict[str, list[dict[str, Any]]]:
    """Point the campaign at another server and/or channel.

    Its ledger rows keep the server and channel they were rolled in: their commitments and
    chain links bind those snowflakes, and the campaign keeps its ``ledger_scope``, so the
    numbers on the old stubs still name the same rolls (issue 15).
    """
    campaign = dict(tables[campaigns.name][0])
    # Known GMs are who the bot saw acting as GM here before the export: on import, anywhere,
    # they are forgotten; GMs become known again when they act (issue 15).
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
        view = _row_view(row)
        row["chain"] = previous = cm.link(previous, view.entry())
        rows.append(row)
    return {**tables, campaigns.name: [campaign], ledger.name: rows, ledger_salts.name: salts}


def _salts_apart(data: Any) -> None:
    """A file written before issue 22 (format 1 or 2): move each ledger row's ``who_salt``
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


def _row_view(row: Mapping[str, Any]) -> RollView:
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
            replace(_row_view(r), salts=salts_of(fields.get(int(r["id"]), {})))
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
    for table in _tables():
        rows = tables.get(table.name) or []
        key = _surrogate_key(table)
        taken = await _taken_interactions(session, rows) if table is ledger else set()
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
                    value = new_ids.get(target, {}).get(int(value))
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
            tables = _retarget(item["tables"], guild_id, channel_id)
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
