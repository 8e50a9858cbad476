"""What the rolls of one command read about their place, each thing read once.

A post's `[[…]]` are several commands in one transaction (bot/services/rolling/inline.py): their
campaign, the caller's character and any helper or save's source are read once for all of them,
however many rolls name them. A single command's one roll with provably fair dice takes its
draw in the statement that finds its place (:func:`fairness.here_in`), and hands it to that roll;
:func:`one_roll` runs such a command, whatever it rolls.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Awaitable
from dataclasses import replace
from typing import Protocol, TypeVar

from bot.db.engine import Database
from bot.dice.dialects import DEFAULT_DIALECT
from bot.services.kit import budgets
from bot.services.kit.context import Caller
from bot.services.kit.errors import NoCampaign
from bot.services.kit.sql import Executor, core_transaction
from bot.services.store.campaigns import (
    CampaignView,
    campaign_at_revision_in,
    campaign_for_channel_in,
    place_params,
)
from bot.services.store.characters import (
    CharacterView,
    character_by_name_in,
    placed_character_in,
    resolve_character_in,
)
from bot.services.trust import fairness
from bot.words import Visibility

P = TypeVar("P")
R = TypeVar("R")
P_in = TypeVar("P_in", contravariant=True)
R_out = TypeVar("R_out", covariant=True)


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


class Reads:
    """The caller's place as read in one transaction: its campaign, characters and dialect.

    ``draw``: the place is found by the statement that also takes one fair draw (a command
    of one roll with provably fair dice), which :meth:`take_draw` hands to that roll.
    """

    def __init__(self, caller: Caller, *, draw: bool = False) -> None:
        self.caller = caller
        self._draw = draw
        self._here: fairness.Here | None = None
        self._campaign: CampaignView | None = None
        self._characters: dict[tuple[str | None, bool], CharacterView] = {}
        self._named: dict[str, CharacterView] = {}

    @classmethod
    def for_one(cls, caller: Caller, rng: random.Random) -> Reads:
        """A command of one roll: with fair dice its draw is taken as its place is found."""
        return cls(caller, draw=fairness.chosen_source(rng))

    async def here_in(self, session: Executor) -> fairness.Here:
        """The place in one statement: its campaign's id and revision, the dice dialects."""
        if self._here is None:
            self._here = await fairness.here_in(session, self.caller, draw=self._draw)
        return self._here

    def take_draw(self) -> fairness.Here | None:
        """The draw taken with the place, for the one roll that uses it (None after)."""
        here = self._here
        if here is None or here.taken is None:
            return None
        self._here = replace(here, taken=None)
        return here

    async def dialect_in(self, session: Executor) -> str:
        """The dialect the caller's dice are read in here (their own, else the campaign's)."""
        here = await self.here_in(session)
        return here.own_dialect or here.campaign_dialect or DEFAULT_DIALECT

    async def campaign_in(self, session: Executor) -> CampaignView:
        """The campaign of the caller's channel (or its parent's), or :class:`NoCampaign`."""
        if self._campaign is None:
            guild_id = self.caller.guild_id
            if guild_id is None:
                raise NoCampaign()
            if self._draw or self._here is not None:
                here = await self.here_in(session)
                if here.campaign_id is None:
                    raise NoCampaign()
                self._campaign = await campaign_at_revision_in(
                    session, here.campaign_id, here.revision
                )
            else:
                caller = self.caller
                self._campaign = await campaign_for_channel_in(
                    session, guild_id, caller.channel_id, caller.parent_channel_id
                )
        return self._campaign

    async def campaign_with_character_in(
        self, session: Executor, name: str | None = None, *, any_owner: bool = False
    ) -> CampaignView:
        """:meth:`campaign_in`; when it still has to find the place itself (no draw did),
        the character :meth:`character_in` will be asked for (``name``, ``any_owner``) is read
        in the same statement, so a check pays one statement for both. A character not found
        there is read again by :meth:`character_in`, which says why."""
        caller = self.caller
        if self._campaign is None and not self._draw and self._here is None:
            if caller.guild_id is None:
                raise NoCampaign()
            place = place_params(caller.guild_id, caller.channel_id, caller.parent_channel_id)
            self._campaign, found = await placed_character_in(session, place, caller.user_id, name)
            if found is not None and (any_owner or found.user_id == caller.user_id):
                self._characters[(None if name is None else _key(name), any_owner)] = found
        return await self.campaign_in(session)

    async def campaign_or_none_in(self, session: Executor) -> CampaignView | None:
        """:meth:`campaign_in`, or None outside a campaign (a generic roll needs none)."""
        if self._campaign is None:
            if self._draw or self._here is not None:
                if (await self.here_in(session)).campaign_id is None:
                    return None
            elif self.caller.guild_id is None:
                return None
        with contextlib.suppress(NoCampaign):
            return await self.campaign_in(session)
        return None

    async def character_in(
        self, session: Executor, name: str | None = None, *, any_owner: bool = False
    ) -> CharacterView:
        """The character a command means: ``name`` (the caller's own unless ``any_owner``),
        else the caller's active one (:func:`resolve_character_in`)."""
        key = (None if name is None else _key(name), any_owner)
        found = self._characters.get(key)
        if found is None:
            campaign = await self.campaign_in(session)
            found = await resolve_character_in(
                session, campaign.id, self.caller.user_id, name, any_owner=any_owner
            )
            self._characters[key] = found
        return found

    async def named_in(self, session: Executor, name: str) -> CharacterView:
        """Any character of the campaign called ``name`` (a helper, a save's source)."""
        key = _key(name)
        found = self._named.get(key)
        if found is None:
            campaign = await self.campaign_in(session)
            found = await character_by_name_in(session, campaign.id, name)
            self._named[key] = found
        return found


class RollsPrepared(Protocol[P_in, R_out]):
    """A roll's second phase (``checks.roll_prepared_in`` …): what its first phase prepared,
    rolled and recorded in the caller's transaction; ``visibility`` None means the campaign's
    default for its command."""

    def __call__(
        self,
        session: Executor,
        prepared: P_in,
        rng: random.Random,
        caller: Caller,
        request: str,
        *,
        visibility: Visibility | str | None,
    ) -> Awaitable[R_out]: ...


class PreparesIn(Protocol[R_out]):
    """A roll's first phase with all but its transaction and its reads bound
    (``functools.partial(checks.prepare_save_in, caller=…, options=…)``): read and checked, no
    dice."""

    def __call__(self, session: Executor, *, reads: Reads) -> Awaitable[R_out]: ...


async def one_roll(
    db: Database,
    rng: random.Random,
    caller: Caller,
    request: str,
    visibility: Visibility | str | None,
    work: int,
    prepare_in: PreparesIn[P],
    roll_prepared_in: RollsPrepared[P, R],
) -> R:
    """A slash command of one roll, in a transaction of its own: ``work`` charged to the
    budgets before any die (a refusal changes nothing), then its place read (with its fair
    draw, :meth:`Reads.for_one`) and the roll prepared, then rolled and recorded."""
    budgets.charge(caller, work)
    async with core_transaction(db) as session:
        prepared = await prepare_in(session, reads=Reads.for_one(caller, rng))
        return await roll_prepared_in(
            session, prepared, rng, caller, request, visibility=visibility
        )
