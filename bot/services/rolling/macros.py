"""Saved rolls: `/macro save name:sneak roll:check DEX Stealth adv`, run later by `/macro run` or
inline as `[[sneak]]` (docs/in-character.md, "Saved rolls").

A macro belongs to the caller's active character in the channel's campaign. Its text is what
the player would type after a slash (bot/services/rolling/roll_text.py), checked when saved: an
unknown command or option is refused with the offline table's hints, and so is an option or a
command the campaign's system does not have. Running it rolls through the command's own
service, so a macro rolls exactly as the command typed out would.
"""

from __future__ import annotations

import difflib
import random
import re
from dataclasses import dataclass

from sqlalchemy import delete, func, select

from bot.db.engine import Database
from bot.db.macro_models import macros
from bot.quoting import escape, quote
from bot.services.kit import budgets
from bot.services.kit.context import Caller
from bot.services.kit.errors import AlreadyExists, InvalidValue, NoCampaign, NotFound
from bot.services.kit.personal import (
    DELETED,
    Holding,
    Person,
    PersonalData,
    Shown,
    declare,
    each_in_its_transaction,
)
from bot.services.kit.sql import Executor, core_transaction, insert_for, transaction
from bot.services.rolling import commands
from bot.services.rolling.reads import Reads
from bot.services.rolling.roll_text import (
    MAX_TEXT,
    Command,
    command_word,
    looks_like_notation,
    parse_roll_text,
)
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView, counted_per_server_of_theirs

#: A character's saved rolls at most (Discord's autocomplete lists 25).
MAX_MACROS = 25
MAX_NAME = 32
_NAME = re.compile(r"^[\w-]{1,32}$")

_M = macros


@dataclass(frozen=True, slots=True)
class MacroView:
    """A saved roll: its name as typed when saved, and its roll text."""

    name: str
    roll: str


@dataclass(frozen=True, slots=True)
class MacroList:
    """A character's saved rolls, by name."""

    character: str
    macros: tuple[MacroView, ...]


def is_command_text(text: str) -> bool:
    """Whether ``text`` is a command or dice notation, not a saved roll's name."""
    return looks_like_notation(text) or command_word(text) in set(Command)


def _key(name: str) -> str:
    return name.strip().casefold()


async def _owner_in(
    session: Executor, caller: Caller, reads: Reads | None = None
) -> tuple[CampaignView, CharacterView]:
    reads = reads or Reads(caller)
    return await reads.campaign_in(session), await reads.character_in(session)


def _check_name(name: str) -> str:
    name = name.strip()
    if not _NAME.match(name):
        raise InvalidValue(
            f"A saved roll's name is one word of letters, digits, - or _ (at most {MAX_NAME} "
            f"characters), e.g. sneak; not {quote(name, MAX_NAME)}."
        )
    if is_command_text(name):
        raise InvalidValue(
            f"{quote(name)} is a command or dice notation: name the saved roll something else, "
            "e.g. sneak."
        )
    return name


async def save_macro(db: Database, caller: Caller, name: str, roll: str) -> MacroView:
    """Save ``roll`` under ``name`` for the caller's active character, checked first."""
    name = _check_name(name)
    roll = " ".join(roll.split())
    parsed = parse_roll_text(roll)  # unknown command or option: refused, nothing saved
    async with transaction(db) as session:
        reads = Reads(caller)
        _, character = await _owner_in(session, caller, reads)
        # A command or an option the system lacks, a bad notation: refused now, not when run.
        await commands.check_saved_in(session, parsed, reads)
        count = await session.scalar(
            select(func.count()).select_from(_M).where(_M.c.character_id == character.id)
        )
        if (count or 0) >= MAX_MACROS:
            raise InvalidValue(
                f"{escape(character.name)} has {MAX_MACROS} saved rolls, the most there can be: "
                "delete one with /macro delete first."
            )
        added = await session.scalar(
            insert_for(session, _M)
            .values(character_id=character.id, name=name, name_key=_key(name), roll=roll)
            .on_conflict_do_nothing(index_elements=["character_id", "name_key"])
            .returning(_M.c.id)
        )
        if added is None:
            raise AlreadyExists(
                f"{escape(character.name)} already has a saved roll called {quote(name)}: "
                "delete it first with /macro delete, or pick another name."
            )
    return MacroView(name, roll)


async def find_macro_in(
    session: Executor, caller: Caller, name: str, *, reads: Reads | None = None
) -> MacroView:
    """In a caller's transaction: the active character's saved roll called ``name``."""
    _, character = await _owner_in(session, caller, reads)
    row = (
        await session.execute(
            select(_M.c.name, _M.c.roll).where(
                _M.c.character_id == character.id, _M.c.name_key == _key(name)
            )
        )
    ).first()
    if row is None:
        names: list[str] = list(
            (
                await session.execute(select(_M.c.name).where(_M.c.character_id == character.id))
            ).scalars()
        )
        close = difflib.get_close_matches(name.casefold(), [*Command, *names], n=1)
        hint = f" Did you mean {close[0]}?" if close else ""
        raise NotFound(
            f"{escape(character.name)} has no saved roll called {quote(name, MAX_NAME)}.{hint} "
            "/macro list shows them; or type a command (roll, check, save, attack, luck) "
            "or dice notation."
        )
    return MacroView(row.name, row.roll)


async def list_macros(db: Database, caller: Caller) -> MacroList:
    """The active character's saved rolls, by name."""
    async with transaction(db) as session:
        _, character = await _owner_in(session, caller)
        rows = (
            await session.execute(
                select(_M.c.name, _M.c.roll)
                .where(_M.c.character_id == character.id)
                .order_by(_M.c.name_key)
            )
        ).all()
    return MacroList(character.name, tuple(MacroView(r.name, r.roll) for r in rows))


async def delete_macro(db: Database, caller: Caller, name: str) -> MacroView:
    """Delete the active character's saved roll ``name``; returns what it was."""
    async with transaction(db) as session:
        found = await find_macro_in(session, caller, name)
        _, character = await _owner_in(session, caller)
        await session.execute(
            delete(_M).where(_M.c.character_id == character.id, _M.c.name_key == _key(name))
        )
    return found


async def macro_names(db: Database, caller: Caller, typed: str) -> list[str]:
    """Autocomplete: the caller's active character's saved rolls starting with ``typed``.

    Only the caller's own (nobody else's names leak); none outside a campaign.
    """
    try:
        listed = await list_macros(db, caller)
    except (NoCampaign, NotFound):
        return []
    key = _key(typed)
    return [m.name for m in listed.macros if m.name.casefold().startswith(key)][:25]


async def run_macro(
    db: Database,
    rng: random.Random,
    caller: Caller,
    name: str,
    request: str,
    *,
    extra: str | None = None,
) -> commands.Result:
    """/macro run: the saved roll (``extra`` appended) run by its command, as typed out.

    Nothing is given for ``secret``, so the campaign's default for the command applies, as
    when the command is typed without it.
    """
    async with core_transaction(db) as session:
        reads = Reads.for_one(caller, rng)
        found = await find_macro_in(session, caller, name, reads=reads)
        text = f"{found.roll} {extra or ''}".strip()
        if len(text) > MAX_TEXT:
            raise InvalidValue(f"A roll is at most {MAX_TEXT} characters.")
        parsed = parse_roll_text(text)
        ready = await commands.prepare_in(session, caller, parsed, reads)
        budgets.charge(caller, ready.work)  # before any die: a refusal changes nothing
        request = f"{request} = /{parsed.text}"[: ledger.MAX_REQUEST]
        return await ready.roll_in(session, rng, caller, request, visibility=None)


# --- what a saved roll keeps about its player (bot/services/kit/personal.py) --------------------


async def _show_in(session: Executor, shown: Shown) -> None:
    """How many saved rolls their characters have, per server."""
    stmt = counted_per_server_of_theirs(macros.c.character_id, shown.user_id, shown.guild_id)
    for guild, count in await session.execute(stmt):
        shown.add(guild, "macros", int(count))


async def _erase_in(session: Executor, person: Person) -> int:
    """Their characters' saved rolls, before the characters themselves go."""
    ids = sorted(person.character_ids)
    if ids:
        await session.execute(delete(macros).where(macros.c.character_id.in_(ids)))
    return 0


PERSONAL_DATA = declare(
    PersonalData(
        "macros",
        holdings=(Holding("macros", "their character's (deleted with it)", DELETED),),
        show_in=_show_in,
        erase=each_in_its_transaction(_erase_in),
        order=90,
    )
)
