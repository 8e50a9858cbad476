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
from bot.dice import parse_many
from bot.quoting import escape, quote
from bot.rules.systems import system_for
from bot.rules.systems.commands import NotInSystem
from bot.rules.systems.commands import require as require_rule
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
from bot.services.kit.sql import Executor, insert_for, transaction
from bot.services.rolling import attacks, checks, dialects, rolls
from bot.services.rolling.attacks import AttackResult
from bot.services.rolling.checks import CheckResult
from bot.services.rolling.roll_text import (
    MAX_TEXT,
    Command,
    RollText,
    command_word,
    looks_like_notation,
    parse_roll_text,
)
from bot.services.rolling.rolls import DiceRoll
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView, campaign_for_channel_in
from bot.services.store.characters import (
    CharacterView,
    active_character_in,
    counted_per_server_of_theirs,
)

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


async def _owner_in(session: Executor, caller: Caller) -> tuple[CampaignView, CharacterView]:
    if caller.guild_id is None:
        raise NoCampaign()
    campaign = await campaign_for_channel_in(
        session, caller.guild_id, caller.channel_id, caller.parent_channel_id
    )
    return campaign, await active_character_in(session, campaign.id, caller.user_id)


def check_for_system(parsed: RollText, key: str) -> None:
    """Refuse a command or option the system does not have, as its service would when rolled."""
    system = system_for(key)
    name = system.name
    if parsed.command is Command.LUCK:
        require_rule(system, "luck")
    if parsed.command is Command.ATTACK:
        require_rule(system, "attacks")
    if parsed.check is None:
        return
    allowed = system.check_options if parsed.command is Command.CHECK else system.save_options
    if allowed is None:
        raise NotInSystem(system, "saves")
    extra = [
        "from" if option == "source" else option
        for option in parsed.check.given()
        if option not in allowed
    ]
    if extra:
        has = ", ".join(sorted(allowed)) if allowed else "no options besides ability"
        raise InvalidValue(
            f"This campaign plays {name}, where /{parsed.command} has no {', '.join(extra)} "
            f"(it takes {has})."
        )


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
    if parsed.command is Command.ROLL:
        # A bad notation (in the player's dialect): refused now, not when run.
        parse_many(parsed.dice or "", await dialects.resolve(db, caller))
    async with transaction(db) as session:
        campaign, character = await _owner_in(session, caller)
        check_for_system(parsed, campaign.system)
        if parsed.check is not None and parsed.check.ability:
            campaign.ability(parsed.check.ability)  # an ability the campaign has
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


async def find_macro_in(session: Executor, caller: Caller, name: str) -> MacroView:
    """In a caller's transaction: the active character's saved roll called ``name``."""
    _, character = await _owner_in(session, caller)
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


async def macro_roll(db: Database, caller: Caller, name: str, extra: str | None = None) -> RollText:
    """The saved roll ``name`` with ``extra`` appended, parsed: what /macro run rolls."""
    async with transaction(db) as session:
        found = await find_macro_in(session, caller, name)
    text = f"{found.roll} {extra or ''}".strip()
    if len(text) > MAX_TEXT:
        raise InvalidValue(f"A roll is at most {MAX_TEXT} characters.")
    return parse_roll_text(text)


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


MacroResult = DiceRoll | CheckResult | AttackResult


async def run_macro(
    db: Database,
    rng: random.Random,
    caller: Caller,
    name: str,
    request: str,
    *,
    extra: str | None = None,
) -> MacroResult:
    """/macro run: the saved roll (``extra`` appended) through its command's own service.

    Nothing is given for ``secret``, so the campaign's default for the command applies, as
    when the command is typed without it.
    """
    parsed = await macro_roll(db, caller, name, extra)
    request = f"{request} = /{parsed.text}"[: ledger.MAX_REQUEST]
    if parsed.command is Command.ROLL:
        return await rolls.roll_dice(
            db, rng, caller, parsed.dice or "", label=parsed.label, request=request, visibility=None
        )
    if parsed.command is Command.ATTACK and parsed.attack is not None:
        return await attacks.perform_attack(db, rng, caller, parsed.attack, request)
    if parsed.command is Command.LUCK:
        return await checks.perform_luck(db, rng, caller, request, visibility=None)
    if parsed.check is None:  # pragma: no cover - parse_roll_text fills the check's options
        raise InvalidValue("Nothing to roll.")
    if parsed.command is Command.SAVE:
        return await checks.perform_save(db, rng, caller, parsed.check, request, visibility=None)
    return await checks.perform_check(db, rng, caller, parsed.check, request, visibility=None)


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
