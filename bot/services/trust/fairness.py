"""Provably fair dice (docs/fair-dice.md): server seeds committed before use, players' seeds,
and recomputing a roll's faces once its seed is revealed.

Each scope (a campaign, or a channel outside campaigns: the ledger chain's key) has a current
server seed made by the operating system's CSPRNG; its SHA-256 is published before any die is
drawn from it. Each roll takes its player key's next draw number from the seed with one
upsert (``fair_draws``: never two rolls of a key with one number, and nobody else's rolls move
a player's numbers), and its dice come from
:class:`bot.dice.fair.FairRandom` (server seed, scope, draw number, the roller's player key,
and for hidden rolls a blinding value). The roll records those inputs (``outcome["fair"]``),
so after a rotation reveals the seed anyone recomputes the faces.
"""

from __future__ import annotations

import contextlib
import functools
import random
import secrets
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, text, update

from bot.db.engine import Database
from bot.db.fair_models import fair_seeds, player_seed_changes, player_seeds
from bot.db.models import characters
from bot.db.types import utcnow
from bot.dice import fair
from bot.services.kit import commitments
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NoCampaign, NotAllowed, NotFound
from bot.services.kit.personal import Person, PersonalData, Shown, declare, each_in_its_transaction
from bot.services.kit.sql import Executor, dialect_name, insert_for, run_hot, transaction
from bot.services.store import choices
from bot.services.store import ledger as ledger_store
from bot.services.store.campaigns import CampaignView, campaign_for_channel_in
from bot.services.trust import secrecy
from bot.words import Visibility

#: A rules roll's dice (checks, saves, luck): d20s drawn as the rules draw them, one word each,
#: ``word mod 32`` skipped when 20 or more, face = that + 1 (docs/fair-dice.md).
D20_DRAWS = "d20"
#: An attack's dice (and a rerolled attack's new ones), in the order drawn: the record's
#: ``parts`` name them (:data:`ATTACK_PARTS`), each read from the roll's shown result.
ATTACK_DRAWS = "attack"
#: What an attack's draw may hold, in this order: its d20s (the row's dice: one, two with
#: advantage or disadvantage, the new one of a reroll), the weapon's quality save after a
#: fumble, the armour's after a critical (rules d20s), the damage's terms, and a critical's
#: second roll of every damage die (the GM's crit-damage option), as dice notation.
ATTACK_PARTS = ("d20", "weapon_save", "armor_save", "damage", "again")
#: A seed rotates on its own before this many rolls: its draw numbers never wrap or repeat,
#: and a seed that served this long is worth revealing.
MAX_USES = 100_000
#: The longest player seed text kept (docs/fair-dice.md).
MAX_PLAYER_SEED = 200
#: Shortest and longest automatic rotation period a GM may set.
MIN_PERIOD = timedelta(hours=1)
MAX_PERIOD = timedelta(days=365)
#: The period of a seed made by the roll that first draws from it: its hash could not be shown
#: before that roll, so it is due at once and revealed right after it; the seed the next rolls
#: draw from has its hash published by that rotation (docs/fair-dice.md).
UNPUBLISHED = 0


def scope_of(campaign_id: int | None, caller: Caller) -> str:
    """The scope a roll draws in: as the ledger's chains (a campaign, else the channel)."""
    if campaign_id is not None:
        return f"campaign:{campaign_id}"
    return f"channel:{caller.parent_channel_id or caller.channel_id}"


@dataclass(frozen=True, slots=True)
class Seed:
    """A server seed as the public may know it: the seed itself only once revealed."""

    id: int
    scope: str
    generation: int
    seed_hash: str
    uses: int
    created_at: datetime
    revealed_at: datetime | None
    period_s: int | None
    seed: str | None  # hex, only when revealed
    #: SHA-256 of the key hidden rolls' blinding values come from, published with the seed's.
    hidden_hash: str = ""
    #: That key (hex), once revealed: only if no hidden roll drawn from the seed was still
    #: unrevealed at its rotation.
    hidden_key: str | None = None

    @property
    def unpublished(self) -> bool:
        """Made by the roll that first drew from it: its hash was not shown before that roll."""
        return self.period_s == UNPUBLISHED


@dataclass(frozen=True, slots=True)
class Rotation:
    """A rotation: the old seed revealed, and the new one's hash now published."""

    revealed: Seed
    current: Seed


@dataclass(frozen=True, slots=True)
class Draw:
    """One roll's randomness: the source to roll with and what to record to recompute it."""

    rng: fair.FairRandom
    seed: Seed
    number: int
    player: str  # hex player key
    blind: str  # hex blinding value ("" for public rolls)
    rotation: Rotation | None

    def record(self, how: str | None = None) -> dict[str, Any]:
        """The roll's derivation inputs, kept in its outcome (a hidden roll's with its result,
        so its blinding is as secret as its faces until revealed). ``how``: the rules' d20s
        (:data:`D20_DRAWS`) rather than dice notation's terms."""
        out: dict[str, Any] = {
            "seed_hash": self.seed.seed_hash,
            "scope": self.seed.scope,
            "draw": self.number,
            "player": self.player,
        }
        if self.blind:
            out["blind"] = self.blind
        if how is not None:
            out["dice"] = how
        return out


_COLUMNS = (
    fair_seeds.c.id,
    fair_seeds.c.scope_key,
    fair_seeds.c.generation,
    fair_seeds.c.seed_hash,
    fair_seeds.c.uses,
    fair_seeds.c.created_at,
    fair_seeds.c.revealed_at,
    fair_seeds.c.period_s,
    fair_seeds.c.seed,
    fair_seeds.c.hidden_key,
    fair_seeds.c.hidden_revealed_at,
)


def _seed_of(row: Any) -> Seed:
    revealed = row.revealed_at is not None
    return Seed(
        int(row.id),
        str(row.scope_key),
        int(row.generation),
        str(row.seed_hash),
        int(row.uses),
        row.created_at,
        row.revealed_at,
        None if row.period_s is None else int(row.period_s),
        str(row.seed) if revealed else None,
        fair.seed_hash(bytes.fromhex(str(row.hidden_key))),
        str(row.hidden_key) if row.hidden_revealed_at is not None else None,
    )


def _new_values(scope: str, generation: int, period_s: int | None) -> dict[str, Any]:
    """A fresh seed from the CSPRNG, with its published hash."""
    seed = secrets.token_bytes(fair.SEED_BYTES)
    return {
        "scope_key": scope,
        "generation": generation,
        "seed": seed.hex(),
        "seed_hash": fair.seed_hash(seed),
        "hidden_key": secrets.token_hex(fair.SEED_BYTES),
        "uses": 0,
        "period_s": period_s,
        "created_at": utcnow(),
        "revealed_at": None,
    }


async def _insert_generation(
    session: Executor, scope: str, generation: int, period_s: int | None
) -> None:
    """Insert a generation unless another process did: the unique (scope, generation) makes
    the seed drawn once, never twice, under concurrency."""
    # No conflict target: either unique index (the generation, or a current seed already
    # there) makes this insert nothing.
    stmt = insert_for(session, fair_seeds).on_conflict_do_nothing()
    await session.execute(stmt, _new_values(scope, generation, period_s))


async def current_in(session: Executor, scope: str, *, unpublished: bool = False) -> Seed:
    """The scope's current seed, made (and its hash fixed) on first use. ``unpublished``: made
    for a roll that draws from it at once (:data:`UNPUBLISHED`)."""
    for _ in range(3):
        row = (
            await session.execute(
                select(*_COLUMNS)
                .where(fair_seeds.c.scope_key == scope, fair_seeds.c.revealed_at.is_(None))
                .order_by(fair_seeds.c.generation.desc())
                .limit(1)
            )
        ).first()
        if row is not None:
            _remember(row)
            return _seed_of(row)
        last = await session.scalar(
            select(func.max(fair_seeds.c.generation)).where(fair_seeds.c.scope_key == scope)
        )
        period = UNPUBLISHED if unpublished else None
        await _insert_generation(session, scope, int(last or 0) + 1, period)
    raise NotFound("The dice seed of this place could not be read; try again.")


async def _hidden_pending_in(session: Executor, seed: Seed) -> bool:
    """Whether a hidden roll of the seed's scope made since the seed began is still
    unrevealed (its blinding key would reveal it with the seed)."""
    kind, _, ident = seed.scope.partition(":")
    return await ledger_store.hidden_unrevealed_since_in(
        session,
        campaign_id=int(ident) if kind == "campaign" else None,
        scope_id=None if kind == "campaign" else int(ident),
        since=seed.created_at,
    )


async def _rotate_in(
    session: Executor, current: Seed, *, hidden_now: bool = False
) -> Rotation | None:
    """Reveal ``current`` and start the next generation; None if another process rotated it
    first (its UPDATE found the seed revealed already). ``hidden_now``: the roll that set the
    rotation off is hidden and not recorded yet, so the hidden-roll key stays secret."""
    now = utcnow()
    done = await session.execute(
        update(fair_seeds)
        .where(fair_seeds.c.id == current.id, fair_seeds.c.revealed_at.is_(None))
        .values(revealed_at=now)
        .returning(fair_seeds.c.id)
    )
    if done.first() is None:
        return None
    if not hidden_now and not await _hidden_pending_in(session, current):
        # No hidden roll drawn from it is still secret: its blinding key can be shown too.
        await session.execute(
            update(fair_seeds).where(fair_seeds.c.id == current.id).values(hidden_revealed_at=now)
        )
    # The GM's period carries over; an unpublished seed's "at once" does not.
    period = current.period_s if current.period_s != UNPUBLISHED else None
    await _insert_generation(session, current.scope, current.generation + 1, period)
    revealed = (await session.execute(select(*_COLUMNS).where(fair_seeds.c.id == current.id))).one()
    return Rotation(_seed_of(revealed), await current_in(session, current.scope))


def due(seed: Seed, now: datetime) -> bool:
    """A seed rotates on its own when its period ran out or before its numbers run out."""
    if seed.uses >= MAX_USES:
        return True
    return seed.period_s is not None and now >= seed.created_at + timedelta(seconds=seed.period_s)


#: The caller's place (its channel, else a thread's parent): its campaign and that campaign's
#: revision, as a CTE that the rest of the statement reads (found once, not once a column).
_PLACE = (
    "here AS (SELECT c.id AS campaign_id, c.revision AS revision FROM campaigns c "
    "WHERE c.guild_id = :guild AND c.channel_id IN (:channel, :parent) "
    "ORDER BY CASE WHEN c.channel_id = :channel THEN 0 ELSE 1 END LIMIT 1)"
)
#: What a roll needs to know about its place, as columns (in a SELECT or a RETURNING): the
#: campaign and its revision (to check a remembered campaign), and the dice dialects.
_HERE_COLUMNS = (
    "(SELECT campaign_id FROM here) AS campaign_id, (SELECT revision FROM here) AS revision, "
    "(SELECT dialect FROM dice_dialects WHERE user_id = :user) AS own_dialect, "
    "(SELECT d.dialect FROM campaign_dice_dialects d, here h "
    "WHERE d.campaign_id = h.campaign_id) AS campaign_dialect"
)
_HERE_SCOPE = "COALESCE('campaign:' || (SELECT campaign_id FROM here), :place)"
_HERE = text(f"WITH {_PLACE} SELECT {_HERE_COLUMNS}")


def _take_sql(dialect: str, here: bool) -> Any:
    """One roll's draw in one statement: the player key's next number from the scope's current
    seed (an upsert on ``fair_draws``: atomic, never twice), the key, and the seed's period;
    ``here``: the scope is the caller's place, found in the statement, whose columns it adds.
    PostgreSQL locks the seed row for share, so a rotation committing meanwhile makes it draw
    nothing (then the caller retries on the new seed), as SQLite's one writer does."""
    lock = " FOR SHARE OF s" if dialect == "postgresql" else ""
    scope = _HERE_SCOPE if here else ":scope"
    place = f"WITH {_PLACE} " if here else ""
    more = ""
    if here:
        # The place's columns come by the drawn seed's scope ('campaign:<id>' names the
        # campaign the place found), each by primary key: read through the place's CTE in
        # RETURNING instead, SQLite took ten times as long for the same answer.
        integer = "BIGINT" if dialect == "postgresql" else "INTEGER"
        campaign = (
            "(SELECT CASE WHEN scope_key LIKE 'campaign:%' "
            f"THEN CAST(substr(scope_key, 10) AS {integer}) END "
            "FROM fair_seeds WHERE id = fair_draws.seed_id)"
        )
        more = (
            f", {campaign} AS campaign_id, "
            f"(SELECT revision FROM campaigns WHERE id = {campaign}) AS revision, "
            "(SELECT dialect FROM dice_dialects WHERE user_id = :user) AS own_dialect, "
            "(SELECT dialect FROM campaign_dice_dialects "
            f"WHERE campaign_id = {campaign}) AS campaign_dialect"
        )
    return text(
        f"{place}INSERT INTO fair_draws (seed_id, player, uses) "
        "SELECT s.id, COALESCE((SELECT key FROM player_seeds WHERE user_id = :user), :nokey), 1 "
        f"FROM fair_seeds s WHERE s.scope_key = {scope} AND s.revealed_at IS NULL{lock} "
        "ON CONFLICT (seed_id, player) DO UPDATE SET uses = fair_draws.uses + 1 "
        "RETURNING seed_id, player, uses, "
        "(SELECT period_s FROM fair_seeds WHERE id = fair_draws.seed_id) AS period_s, "
        f"(SELECT seed_hash FROM fair_seeds WHERE id = fair_draws.seed_id) AS seed_hash{more}"
    )


_TAKES = {(d, h): _take_sql(d, h) for d in ("sqlite", "postgresql") for h in (False, True)}


@dataclass(frozen=True, slots=True)
class _SeedParts:
    """What never changes in a seed row: kept in memory by id, so a draw reads none of it."""

    id: int
    scope: str
    generation: int
    seed_hash: str
    created_at: datetime
    seed: bytes
    hidden_key: bytes
    hidden_hash: str  # published with the seed's hash

    def draw(
        self, scope: str, key: str, number: int, period_s: int | None, visibility: Visibility
    ) -> Draw:
        """Draw ``number`` of player ``key`` (hex) from this seed, for a roll of
        ``visibility`` (its blinding value if hidden); the caller decides on rotation."""
        player = _scoped_key(key, scope)
        current = Seed(
            self.id,
            self.scope,
            self.generation,
            self.seed_hash,
            number,
            self.created_at,
            None,
            period_s,
            None,
            self.hidden_hash,
        )
        blind = b""
        if visibility is not Visibility.PUBLIC:
            blind = fair.blinding(self.hidden_key, scope, number)
        rng = fair.FairRandom(self.seed, scope, number, player, blind)
        return Draw(rng, current, number, player.hex(), blind.hex(), None)


@functools.lru_cache(maxsize=4096)
def _scoped_key(key: str, scope: str) -> bytes:
    """A player key in a scope (:func:`fair.scoped_key`), kept: a player rolls in few scopes."""
    return fair.scoped_key(bytes.fromhex(key), scope)


_SEEDS: dict[int, _SeedParts] = {}


async def _parts_in(session: Executor, seed_id: int, seed_hash: str) -> _SeedParts:
    """A seed's fixed parts, from memory when this process read that seed (its hash, which
    the draw returned, tells it is the same seed: an id reused after a restore is not)."""
    found = _SEEDS.get(seed_id)
    if found is None or found.seed_hash != seed_hash:
        row = (await session.execute(select(*_COLUMNS).where(fair_seeds.c.id == seed_id))).one()
        found = _remember(row)
    return found


def _remember(row: Any) -> _SeedParts:
    """Keep a seed row's fixed parts (read anyway: made, rotated to, shown), so the first roll
    drawing from it reads none of it."""
    hidden_key = bytes.fromhex(str(row.hidden_key))
    found = _SeedParts(
        int(row.id),
        str(row.scope_key),
        int(row.generation),
        str(row.seed_hash),
        row.created_at,
        bytes.fromhex(str(row.seed)),
        hidden_key,
        fair.seed_hash(hidden_key),
    )
    if len(_SEEDS) >= 4096:
        _SEEDS.clear()
    _SEEDS[found.id] = found
    return found


@dataclass(frozen=True, slots=True)
class Here:
    """A roll's place as one statement found it: the campaign (id and revision, None outside
    campaigns), the dice dialects, and with fair dice the draw it took."""

    campaign_id: int | None
    revision: int
    own_dialect: str | None
    campaign_dialect: str | None
    taken: Any = None


def chosen_source(rng: random.Random) -> bool:
    """Whether the bot rolls provably fair dice: its source is :class:`fair.FairDice` (what
    production runs); a test's scripted source forces faces and records no derivation."""
    return isinstance(rng, fair.FairDice)


def _place_params(caller: Caller) -> dict[str, Any]:
    return {
        "guild": caller.guild_id,
        "channel": caller.channel_id,
        "parent": caller.parent_channel_id or caller.channel_id,
        "place": scope_of(None, caller),
        "user": caller.user_id,
        "nokey": fair.no_seed_key(caller.user_id).hex(),
    }


async def here_in(session: Executor, caller: Caller, *, draw: bool) -> Here:
    """Where the caller rolls, in ONE statement: with ``draw`` (fair dice) it also takes the
    roll's draw from the place's seed (:func:`draw_here_in` finishes it)."""
    params = _place_params(caller)
    if draw:
        for _ in range(3):
            take = _TAKES[(dialect_name(session), True)]
            taken = (await run_hot(session, take, params)).first()
            if taken is not None:
                return Here(
                    taken.campaign_id,
                    int(taken.revision or 0),
                    taken.own_dialect,
                    taken.campaign_dialect,
                    taken,
                )
            # The place's first roll (or a rotation just committed): its seed, then again.
            found = (await session.execute(_HERE, params)).one()
            await current_in(session, scope_of(found.campaign_id, caller), unpublished=True)
        raise NotFound("The dice seed of this place could not be read; try again.")
    found = (await run_hot(session, _HERE, params)).one()
    return Here(
        found.campaign_id, int(found.revision or 0), found.own_dialect, found.campaign_dialect
    )


async def draw_here_in(
    session: Executor, caller: Caller, here: Here, visibility: Visibility
) -> Draw:
    """The draw :func:`here_in` took, for a roll of ``visibility``."""
    return await _drawn_in(session, here.taken, scope_of(here.campaign_id, caller), visibility)


async def draw_for_in(
    session: Executor,
    caller: Caller,
    here: Here | None,
    campaign_id: int | None,
    visibility: Visibility,
) -> Draw:
    """A prepared roll's draw: the one its place's statement took (``here``), else a new one
    from the scope's seed (a roll prepared without its place read, as a post's or a macro's)."""
    if here is not None:
        return await draw_here_in(session, caller, here, visibility)
    return await draw_in(session, caller, campaign_id, visibility)


async def draw_in(
    session: Executor, caller: Caller, campaign_id: int | None, visibility: Visibility
) -> Draw:
    """The randomness of one roll by ``caller``: the scope's current seed (whose hash was
    published before), the caller's player key and its next draw number from that seed (a
    player's n-th roll from a seed is draw n, whatever others roll), and a blinding value if
    the roll is hidden. A seed that is due rotates right after this roll took its number, so
    the next roll draws from a seed whose hash this one's answer announced."""
    scope = scope_of(campaign_id, caller)
    params = {
        "scope": scope,
        "user": caller.user_id,
        "nokey": fair.no_seed_key(caller.user_id).hex(),
    }
    take = _TAKES[(dialect_name(session), False)]
    for _ in range(4):
        taken = (await run_hot(session, take, params)).first()
        if taken is None:  # the scope's first roll (or a rotation just committed)
            await current_in(session, scope, unpublished=True)
            continue
        return await _drawn_in(session, taken, scope, visibility)
    raise NotFound("The dice seed of this place could not be read; try again.")


async def _drawn_in(session: Executor, taken: Any, scope: str, visibility: Visibility) -> Draw:
    parts = await _parts_in(session, int(taken.seed_id), str(taken.seed_hash))
    period = None if taken.period_s is None else int(taken.period_s)
    drawn = parts.draw(scope, str(taken.player), int(taken.uses), period, visibility)
    if due(drawn.seed, utcnow()):
        held = _HELD.get()
        if held is None:
            hidden_now = visibility is not Visibility.PUBLIC
            rotation = await _rotate_in(session, drawn.seed, hidden_now=hidden_now)
            return replace(drawn, rotation=rotation)
        held.add(scope)  # a command with more rolls to draw: after its last one
    return drawn


#: Scopes whose seed fell due during a command that draws several rolls (held rotations).
_HELD: ContextVar[set[str] | None] = ContextVar("fair_rotations_held", default=None)


@contextlib.contextmanager
def rotations_held() -> Iterator[set[str]]:
    """Within: a seed that falls due is not rotated between two rolls of one command (its
    later rolls would draw from a seed whose hash nobody was shown); the scopes are
    collected for :func:`rotate_held_in` after the command's last roll."""
    held: set[str] = set()
    token = _HELD.set(held)
    try:
        yield held
    finally:
        _HELD.reset(token)


async def rotate_held_in(session: Executor, scopes: set[str]) -> list[Rotation]:
    """Rotate the seeds :func:`rotations_held` kept from rotating."""
    done = []
    for scope in sorted(scopes):
        rotated = await _rotate_in(session, await current_in(session, scope))
        if rotated is not None:
            done.append(rotated)
    return done


async def campaign_here(db: Database, caller: Caller) -> CampaignView | None:
    """The campaign of the caller's channel, or None (the channel's own seed then)."""
    if caller.guild_id is None:
        return None
    async with transaction(db) as session:
        with contextlib.suppress(NoCampaign):
            return await campaign_for_channel_in(
                session, caller.guild_id, caller.channel_id, caller.parent_channel_id
            )
    return None


# --- GM: rotation and period --------------------------------------------------------------


def require_rotator(caller: Caller, campaign: CampaignView | None) -> None:
    """Who may rotate a place's seed: a campaign's GM; in a server channel without a
    campaign, a member who can manage that channel; in a DM with the bot, its one person."""
    if campaign is not None:
        secrecy.require_campaign_gm(campaign, caller, "rotate the dice seed")
    elif caller.guild_id is not None and not caller.manage_channels:
        raise NotAllowed(
            "Only a member who can manage this channel (Manage Channels) can rotate its dice "
            "seed: it has no campaign, so the seed is the channel's."
        )


async def rotate(db: Database, caller: Caller, campaign: CampaignView | None) -> Rotation:
    """``/seed rotate`` (``/campaign seed rotate``): reveal the current seed, publish the next
    one's hash (:func:`require_rotator` says who may)."""
    require_rotator(caller, campaign)
    scope = scope_of(campaign.id if campaign else None, caller)
    async with transaction(db) as session:
        for _ in range(3):
            rotated = await _rotate_in(session, await current_in(session, scope))
            if rotated is not None:
                return rotated
    raise NotFound("The dice seed of this place is being rotated; try again.")


@dataclass(frozen=True, slots=True)
class SeedShown:
    """``/seed show``: the place's current seed (its hash) and the last one revealed."""

    scope: str
    current: Seed
    last_revealed: Seed | None


async def show(db: Database, caller: Caller, campaign: CampaignView | None) -> Seed:
    """The current seed's public face (its hash), created if the scope had none. Shown now,
    so a seed a roll made without publishing it no longer needs revealing at once."""
    return (await show_here(db, caller, campaign)).current


async def show_here(db: Database, caller: Caller, campaign: CampaignView | None) -> SeedShown:
    """:func:`show` with the last revealed seed of the place (so a rotation no answer
    announced, a post's say, is still seen: docs/fair-dice.md)."""
    scope = scope_of(campaign.id if campaign else None, caller)
    async with transaction(db) as session:
        current = await current_in(session, scope)
        if current.unpublished:
            await session.execute(
                update(fair_seeds)
                .where(fair_seeds.c.id == current.id, fair_seeds.c.period_s == UNPUBLISHED)
                .values(period_s=None)
            )
            current = await current_in(session, scope)
        row = (
            await session.execute(
                select(*_COLUMNS)
                .where(fair_seeds.c.scope_key == scope, fair_seeds.c.revealed_at.is_not(None))
                .order_by(fair_seeds.c.generation.desc())
                .limit(1)
            )
        ).first()
    return SeedShown(scope, current, _seed_of(row) if row is not None else None)


async def set_period(
    db: Database, caller: Caller, campaign: CampaignView, hours: int | None
) -> Seed:
    """The campaign's automatic rotation period (None: only by count and by hand)."""
    secrecy.require_campaign_gm(campaign, caller, "set how often the dice seed rotates")
    period: int | None = None
    if hours is not None:
        span = timedelta(hours=hours)
        if not MIN_PERIOD <= span <= MAX_PERIOD:
            raise InvalidValue("The seed can rotate every 1 hour at least, every 365 days at most.")
        period = int(span.total_seconds())
    scope = scope_of(campaign.id, caller)
    async with transaction(db) as session:
        current = await current_in(session, scope)
        await session.execute(
            update(fair_seeds).where(fair_seeds.c.id == current.id).values(period_s=period)
        )
        return await current_in(session, scope)


# --- players' seeds -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerSeedView:
    """A player's seed as they see it: the text (if kept) and the key their rolls record."""

    text: str | None
    key: str
    updated_at: datetime | None
    #: The place asked from and the key its rolls record (``key`` salted with that scope):
    #: what the player recomputes their own rolls there with (docs/fair-dice.md).
    scope: str = ""
    scoped_key: str = ""


async def set_player_seed(db: Database, caller: Caller, text: str | None) -> PlayerSeedView:
    """``/me seed set``: the caller's own seed (``None``: a random one). Only the caller sets
    it; it is used from their next roll on, and the change is logged (key and time)."""
    if text is not None:
        text = text.strip()
        if not text:
            raise InvalidValue("Your seed needs at least one character (or leave it out).")
        if len(text) > MAX_PLAYER_SEED:
            raise InvalidValue(f"Your seed can be {MAX_PLAYER_SEED} characters at most.")
    else:
        text = secrets.token_urlsafe(18)
    key = fair.player_key(text).hex()
    now = utcnow()
    async with transaction(db) as session:
        mine = {"user_id": caller.user_id}
        await choices.store_in(session, player_seeds, mine, {"text": text, "key": key}, now)
        await session.execute(
            insert(player_seed_changes).values(user_id=caller.user_id, key=key, changed_at=now)
        )
    return PlayerSeedView(text, key, now)


async def player_seed(db: Database, caller: Caller) -> PlayerSeedView:
    """``/me seed show``: the caller's seed, or the empty seed's key if they set none."""
    async with transaction(db) as session:
        row = (
            await session.execute(
                select(player_seeds.c.text, player_seeds.c.key, player_seeds.c.updated_at).where(
                    player_seeds.c.user_id == caller.user_id
                )
            )
        ).first()
    campaign = await campaign_here(db, caller)
    scope = scope_of(campaign.id if campaign else None, caller)
    key = fair.no_seed_key(caller.user_id).hex() if row is None else str(row.key)
    scoped = fair.scoped_key(bytes.fromhex(key), scope).hex()
    if row is None:
        return PlayerSeedView(None, key, None, scope, scoped)
    return PlayerSeedView(row.text, key, row.updated_at, scope, scoped)


# --- checking -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FairCheck:
    """The outcome of recomputing one roll: its number, whether it matched, and why not."""

    number: int
    matched: bool | None  # None: cannot be checked yet (its seed is not revealed)
    reason: str
    seed: Seed | None = None
    #: The (scope, draw number) the roll's dice were drawn at, as it records them (a check
    #: using pre-rolls: one per pre-roll); only for a roll the asker may see.
    draws: tuple[tuple[str, int], ...] = ()


#: A roll without derivation inputs.
NO_SEEDS = (
    "It records no dice seeds (rolled before fair dice, or by a command not drawing from them)."
)


def recompute(seed_hex: str, record: dict[str, Any], terms: list[Any], outcome: Any = None) -> bool:
    """Whether ``terms`` (a ledger row's dice) show the faces the record's inputs give
    (``outcome``: the row's shown result, for a draw that picks an order rather than faces,
    or whose dice it holds: attacks)."""
    if record.get("dice") == ATTACK_DRAWS:
        return _attack_matches(_words_of(seed_hex, record), record, terms, outcome)
    more = _recompute_rules(seed_hex, record, terms, outcome)
    if more is not None:
        return more
    if record.get("dice") == D20_DRAWS:
        words = _words_of(seed_hex, record)
        return [fair.d20(words) for _ in terms] == [int(t) for t in terms]
    faces = fair.replay(
        bytes.fromhex(seed_hex),
        str(record["scope"]),
        int(record["draw"]),
        bytes.fromhex(str(record["player"])),
        bytes.fromhex(str(record.get("blind", ""))),
        terms,
    )
    shown = [[int(d["face"]) for d in t["dice"]] for t in terms]
    return faces == shown


def _words_of(seed_hex: str, record: dict[str, Any]) -> Iterator[int]:
    return fair.stream(
        bytes.fromhex(seed_hex),
        str(record["scope"]),
        int(record["draw"]),
        bytes.fromhex(str(record["player"])),
        bytes.fromhex(str(record.get("blind", ""))),
    )


def attack_record(draw: Draw, parts: list[str]) -> dict[str, Any]:
    """An attack's (or a rerolled attack's) derivation inputs: what it drew, in order."""
    return {**draw.record(ATTACK_DRAWS), "parts": parts}


def attack_parts(outcome: Any) -> list[str]:
    """The parts an attack's stored result shows, in the order they were drawn."""
    attack = outcome.get("attack") or {}
    damage = outcome.get("damage") or {}
    parts = ["d20"]
    parts += [name for name in ("weapon_save", "armor_save") if attack.get(name)]
    if damage.get("roll"):
        parts.append("damage")
    if damage.get("again"):
        parts.append("again")
    return parts


def _attack_matches(
    words: Iterator[int], record: dict[str, Any], terms: list[Any], outcome: Any
) -> bool:
    """An attack's draw, part by part (:data:`ATTACK_PARTS`), against what the roll shows."""
    parts = record.get("parts")
    if not isinstance(parts, list) or not isinstance(outcome, dict):
        return False
    if any(p not in ATTACK_PARTS for p in parts) or parts != sorted(parts, key=ATTACK_PARTS.index):
        return False
    attack = outcome.get("attack") or {}
    damage = outcome.get("damage") or {}
    for part in set(attack_parts(outcome)) - set(parts):
        # Only what a reroll kept from the roll it replaced may be shown and not drawn.
        kept = "kept_from" in damage if part in ("damage", "again") else part != "d20"
        if not (kept and "original_number" in outcome):
            return False
    try:
        for part in parts:
            if part == "d20":
                shown = [int(t) for t in terms]
                if [fair.d20(words) for _ in shown] != shown:
                    return False
            elif part in ("weapon_save", "armor_save"):
                if fair.d20(words) != int(attack[part]["roll"]):
                    return False
            else:
                rolled = damage["roll"] if part == "damage" else damage["again"]
                for term in rolled["terms"]:
                    if fair.term_faces(words, term) != [int(d["face"]) for d in term["dice"]]:
                        return False
    except (KeyError, TypeError, ValueError):
        return False
    return True


async def hold_in(session: Executor, campaign_id: int | None, caller: Caller) -> None:
    """Take the scope's seed row lock now, before the ledger chain's: a command that must
    lock the chain before it knows how it will draw (``/reroll``) keeps the order every
    roll takes (seed, then chain, then a character's row), so two commands never wait on
    each other (PostgreSQL ``FOR UPDATE``; SQLite's write lock is already held)."""
    scope = scope_of(campaign_id, caller)
    await current_in(session, scope, unpublished=True)
    await session.execute(
        select(fair_seeds.c.id)
        .where(fair_seeds.c.scope_key == scope, fair_seeds.c.revealed_at.is_(None))
        .with_for_update()
    )


def seed_matches(seed_hex: str, published: str) -> bool:
    """``/verify seed``: a revealed seed against the hash published before it was used."""
    try:
        seed = bytes.fromhex(seed_hex.strip())
    except ValueError:
        return False
    return fair.seed_hash(seed) == published.strip().lower()


async def verify_roll(db: Database, caller: Caller, number: int) -> FairCheck:
    """``/verify roll:N``: recompute the faces of roll #N from its revealed seed, after
    checking that its recorded inputs are its own (:func:`record_problem`)."""
    access = await secrecy.access_roll(db, caller, number)
    if not access.visible:
        return FairCheck(number, None, "Its result is hidden from you, so it cannot be checked.")
    roll = access.row
    outcome = roll.outcome
    record = outcome.get("fair") if isinstance(outcome, dict) else None
    if not isinstance(record, dict):
        return FairCheck(number, None, NO_SEEDS)
    check = await _verify_record(db, number, roll, record)
    return replace(check, draws=_draws_of(record))


def _draws_of(record: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    """Where a roll's record says its dice were drawn (what tools/verify_fair.py --mine
    takes), or nothing if the record is damaged."""
    parts = record.get("parts") if record.get("dice") != ATTACK_DRAWS else None
    found = []
    for part in parts if isinstance(parts, list) else [record]:
        with contextlib.suppress(AttributeError, KeyError, TypeError, ValueError):
            found.append((str(part["scope"]), int(part["draw"])))
    return tuple(found)


async def _verify_record(db: Database, number: int, roll: Any, record: dict[str, Any]) -> FairCheck:
    """:func:`verify_roll` of a visible roll's record."""
    outcome = roll.outcome
    if "parts" in record and record.get("dice") != ATTACK_DRAWS:
        return await _verify_parts(db, number, record, list(roll.dice))
    scope = row_scope(roll.campaign_id, roll.scope_id)
    homes = [scope] + ([f"imported:{roll.campaign_id}"] if roll.campaign_id is not None else [])
    async with transaction(db) as session:
        row = (
            await session.execute(
                select(*_COLUMNS)
                .where(
                    fair_seeds.c.seed_hash == str(record.get("seed_hash")),
                    fair_seeds.c.scope_key.in_(homes),
                )
                .order_by(fair_seeds.c.revealed_at.is_(None), fair_seeds.c.id)
                .limit(1)
            )
        ).first()
        if row is None:
            return await _elsewhere_in(session, number, str(record.get("seed_hash")))
        seed = _seed_of(row)
        if seed.seed is None:
            return FairCheck(
                number,
                None,
                f"Its seed (hash `{seed.seed_hash[:16]}…`) is not revealed yet: it can be checked "
                "after the next rotation (/seed rotate).",
                seed,
            )
        expected_scope = scope
        if seed.scope != scope:
            # An imported campaign's seed: its rolls keep their former campaign's scope, which
            # the import does not keep (tools/verify_fair.py checks it on the export).
            former = str(record.get("scope", ""))
            expected_scope = former if former.startswith("campaign:") else scope
        problem = record_problem(
            record, scope=expected_scope, public=roll.visibility is Visibility.PUBLIC
        )
        if problem is None:
            problem = await _draw_order_problem_in(session, roll, seed, record)
        erased = roll.user_id == commitments.TOMBSTONE_ID
        key_ok: bool | None = None
        if problem is None and not erased:
            keys = await _player_keys_in(session, roll, expected_scope)
            key_ok = str(record["player"]) in keys
    if problem is not None:
        return FairCheck(number, False, problem, seed)
    if key_ok is False:
        return FairCheck(number, False, "The player key it records is not its roller's.", seed)
    if not seed_matches(seed.seed, str(record["seed_hash"])):
        return FairCheck(number, False, "Its revealed seed does not match the published hash.")
    if not recompute(seed.seed, record, list(roll.dice), outcome):
        return FairCheck(number, False, "Its faces are not the ones its seeds give.", seed)
    tail = " Its roller's data was erased, so whose key it records cannot be checked." * erased
    if "blind" in record:
        if seed.hidden_key is None:
            return FairCheck(number, True, HIDDEN_KEY_SECRET + tail, seed)
        if not blinding_matches(seed.hidden_key, record):
            return FairCheck(number, False, "Its blinding value is not its seed's.", seed)
    return FairCheck(number, True, "Every face is the one its seeds give." + tail, seed)


async def _elsewhere_in(session: Executor, number: int, seed_hash: str) -> FairCheck:
    """A roll whose seed is not its place's: another place's revealed seed proves nothing for
    it; a seed still secret (an imported roll's, say, in the campaign it came from) may."""
    row = (
        await session.execute(
            select(fair_seeds.c.revealed_at).where(fair_seeds.c.seed_hash == seed_hash).limit(1)
        )
    ).first()
    if row is None:
        return FairCheck(number, False, "Its seed is missing.")
    if row.revealed_at is None:
        return FairCheck(number, None, "Its seed is not revealed yet.")
    return FairCheck(number, False, "It records another place's seed, not one of its own.")


def row_scope(campaign_id: int | None, scope_id: int) -> str:
    """The scope a ledger row's dice were drawn in: its campaign's, else its channel's (the
    roll's own chain, as :func:`scope_of` gave it when it was drawn)."""
    return f"campaign:{campaign_id}" if campaign_id is not None else f"channel:{scope_id}"


def record_problem(record: dict[str, Any], *, scope: str, public: bool) -> str | None:
    """What in a roll's recorded inputs contradicts the roll itself, or None: its scope must be
    the roll's own, a public roll has no blinding value and a hidden one has one
    (tools/verify_fair.py makes the same checks)."""
    try:
        int(record["draw"])
        bytes.fromhex(str(record["player"]))
        bytes.fromhex(str(record.get("blind", "")))
    except (KeyError, TypeError, ValueError):
        return "Its record of dice seeds is damaged."
    if str(record.get("scope")) != scope:
        return "It records another place's scope, not its own."
    if public and "blind" in record:
        return "It is a public roll but records a blinding value."
    if not public and not record.get("blind"):
        return "It is a hidden roll but records no blinding value."
    return None


#: How long before a roll a seed change may still not have counted for it (the roll read the
#: key before the change was saved): keys set in this window are accepted too.
KEY_SLACK = timedelta(minutes=1)


def keys_in_effect(
    changes: list[tuple[datetime, str]],
    at: datetime,
    scope: str,
    *,
    user: int,
    scoped: bool = False,
) -> set[str]:
    """The keys (hex, as the scope records them) a player's (``user``) logged seed changes
    (time, key) allow for a roll at ``at``: the last change before ``at - KEY_SLACK`` (their
    no-seed key if none), and any change after it up to ``at``. ``scoped``: the log's keys are
    already the scope's (an export's)."""
    keys: set[str] = set()
    settled = False
    for when, key in sorted(changes, reverse=True):
        if when > at:
            continue
        keys.add(key if scoped else fair.scoped_key(bytes.fromhex(key), scope).hex())
        if when <= at - KEY_SLACK:
            settled = True
            break
    if not settled:
        keys.add(fair.scoped_key(fair.no_seed_key(user), scope).hex())
    return keys


async def _rollers_in(session: Executor, roll: Any) -> set[int]:
    """Who may have rolled a row's dice: whoever made the row, and its character's player
    (a group save's or a roll request's member rolls with their own seed)."""
    users = {int(roll.user_id)}
    if roll.character_id is not None:
        owner = await session.scalar(
            select(characters.c.user_id).where(characters.c.id == roll.character_id)
        )
        if owner is not None:
            users.add(int(owner))
    return users


async def _player_keys_in(session: Executor, roll: Any, scope: str) -> set[str]:
    """The keys the roll's possible rollers' logged seed changes allow at its time."""
    keys: set[str] = set()
    for user in await _rollers_in(session, roll):
        changes = await session.execute(
            select(player_seed_changes.c.changed_at, player_seed_changes.c.key).where(
                player_seed_changes.c.user_id == user,
                player_seed_changes.c.changed_at <= roll.created_at,
            )
        )
        logged = [(r.changed_at, str(r.key)) for r in changes]
        keys |= keys_in_effect(logged, roll.created_at, scope, user=user)
    return keys


def shares_one_draw(ats: list[Any]) -> bool:
    """Whether rows using one draw number are one command's slices of that draw (a contest,
    initiative: docs/fair-dice.md): each names its positions (``at``), and apart from the
    widest (the whole command's row) no two name the same position nor any outside it."""
    if len(ats) < 2:
        return True
    if any(not isinstance(at, list) for at in ats):
        return False
    sets = sorted((set(at) for at in ats), key=len)
    widest, seen = sets.pop(), set[Any]()
    for part in sets:
        if part & seen or not part <= widest:
            return False
        seen |= part
    return True


def order_problem(rolls: list[tuple[int, int, Any]], number: int) -> str | None:
    """Within one seed and one player key, each draw number is used once and in the order of
    the log: ``rolls`` are (roll number, draw number, its ``at`` or None) of that group,
    ``number`` the roll checked, against those before it. Rows of one command sharing a draw
    (:func:`shares_one_draw`) count as one use; they must follow each other in the group
    (tools/verify_fair.py checks every group the same way)."""
    ordered = sorted(rolls)
    index = next(i for i, (n, _, _) in enumerate(ordered) if n == number)
    mine = ordered[index][1]
    start = index
    while start > 0 and ordered[start - 1][1] == mine:
        start -= 1
    if start < index:
        end = index
        while end + 1 < len(ordered) and ordered[end + 1][1] == mine:
            end += 1
        if not shares_one_draw([at for _, _, at in ordered[start : end + 1]]):
            return f"Its draw number ({mine}) was used by roll #{ordered[index - 1][0]} too."
    # Against the rolls before its draw's first row (a later roll that reuses or precedes its
    # draw is that roll's fault, and shows there).
    for other, draw, _ in reversed(ordered[:start]):
        if draw == mine:
            return f"Its draw number ({mine}) was used by roll #{other} too."
        if draw > mine:
            return f"Its draw number ({mine}) is out of the log's order (roll #{other}: {draw})."
    return None


async def _draw_order_problem_in(
    session: Executor, roll: Any, seed: Seed, record: dict[str, Any]
) -> str | None:
    """:func:`order_problem` for the rolls of the same seed and player key as ``roll``: read
    through the rolls its possible rollers made while the seed was current (their records
    are read here, never shown)."""
    users = await _rollers_in(session, roll)
    owned = select(characters.c.id).where(characters.c.user_id.in_(users))
    # A rotation a roll set off is saved before the roll's row: a little slack after it.
    until = (seed.revealed_at or utcnow()) + KEY_SLACK
    rows = await ledger_store.outcomes_of_rollers_in(
        session,
        roll.campaign_id,
        roll.scope_id,
        users,
        owned,
        seed.created_at - KEY_SLACK,
        until,
    )
    group: list[tuple[int, int, Any]] = []
    for number, outcome in rows:
        other = outcome.get("fair") if isinstance(outcome, dict) else None
        if (
            isinstance(other, dict)
            and other.get("seed_hash") == record["seed_hash"]
            and other.get("player") == record["player"]
        ):
            with contextlib.suppress(KeyError, TypeError, ValueError):
                group.append((int(number), int(other["draw"]), other.get("at")))
    if all(n != roll.number for n, _, _ in group):
        group.append((int(roll.number), int(record["draw"]), record.get("at")))
    return order_problem(group, int(roll.number))


#: A revealed hidden roll whose seed's hidden-roll key is still secret.
HIDDEN_KEY_SECRET = (
    "Every face is the one its seeds and its blinding value give; the key that blinding comes "
    "from is still secret (another hidden roll of that seed was not revealed at its rotation)."
)


def blinding_matches(hidden_key_hex: str, record: dict[str, Any]) -> bool:
    """A hidden roll's blinding value is the one its seed's (revealed) hidden key gives."""
    expected = fair.blinding(
        bytes.fromhex(hidden_key_hex), str(record["scope"]), int(record["draw"])
    )
    return expected.hex() == str(record.get("blind", ""))


@dataclass(frozen=True, slots=True)
class SeedCheck:
    """``/verify seed``: the seed's hash and the seed of this place published with it."""

    seed_hash: str
    found: Seed | None


async def verify_seed(db: Database, caller: Caller, seed_hex: str) -> SeedCheck:
    """Hash a revealed seed and find which seed of this place published that hash."""
    text = seed_hex.strip().strip("`").lower()
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise InvalidValue(
            "A seed is 64 hexadecimal characters, as its rotation showed it."
        ) from None
    if len(raw) != fair.SEED_BYTES:
        raise InvalidValue("A seed is 64 hexadecimal characters, as its rotation showed it.")
    digest = fair.seed_hash(raw)
    campaign = await campaign_here(db, caller)
    scope = scope_of(campaign.id if campaign else None, caller)
    async with transaction(db) as session:
        row = (
            await session.execute(
                select(*_COLUMNS).where(
                    fair_seeds.c.scope_key == scope, fair_seeds.c.seed_hash == digest
                )
            )
        ).first()
    return SeedCheck(digest, _seed_of(row) if row is not None else None)


# --- rules draws: pre-rolls, ability generation, initiative, contests (docs/fair-dice.md) ---

#: Ability generation's d6s, drawn as the rules draw them (``randint(1, 6)``, fair.below).
D6_DRAWS = "d6"
#: A random turn order: the record's ``from`` names shuffled as ``random.Random.shuffle``
#: does with the draw's words; the row's outcome ``order`` must be the result.
SHUFFLE = "shuffle"
_RULES_SIDES = {D20_DRAWS: 20, D6_DRAWS: 6}


def _recompute_rules(
    seed_hex: str, record: dict[str, Any], terms: list[Any], outcome: Any
) -> bool | None:
    """The draw patterns of this section (None: not one of them). ``at``: where each of the
    row's dice is in the draw (the k-th die drawn), for a row showing its dice in another
    order than drawn (initiative, a contest) or only some of them (a contest's member)."""
    how = record.get("dice")
    if how == SHUFFLE:
        names = list(record.get("from") or [])
        words = _words_of(seed_hex, record)
        for i in reversed(range(1, len(names))):
            j = fair.below(words, i + 1)
            names[i], names[j] = names[j], names[i]
        order = outcome.get("order") if isinstance(outcome, dict) else None
        return not terms and names == order
    if how not in _RULES_SIDES or ("at" not in record and how == D20_DRAWS):
        return None
    sides = _RULES_SIDES[str(how)]
    shown = [int(t) for t in terms]
    words = _words_of(seed_hex, record)
    if "at" not in record:
        return [fair.below(words, sides) + 1 for _ in shown] == shown
    at = [int(a) for a in record["at"]]
    if len(at) != len(shown) or len(set(at)) != len(at) or any(a < 0 for a in at):
        return False
    drawn = [fair.below(words, sides) + 1 for _ in range(max(at, default=-1) + 1)]
    return all(drawn[a] == face for a, face in zip(at, shown, strict=True))


def drawn_at(draw: Draw, start: Any, faces: Sequence[int]) -> list[int] | None:
    """Where each of ``faces`` (a row's d20s, in the order it shows them) was drawn: the
    draw's d20s are replayed from ``start`` (``draw.rng.getstate()`` before rolling) up to
    the words used. None if the command drew anything but d20s (no ``at`` then)."""
    rng = draw.rng
    used, end = rng.words, rng.getstate()
    rng.setstate(start)
    drawn: list[int] = []
    while rng.words < used:
        drawn.append(rng.randint(1, 20))
    exact = rng.words == used
    rng.setstate(end)
    if not exact:
        return None
    at: list[int] = []
    for face in faces:
        k = next((i for i, d in enumerate(drawn) if d == face and i not in at), None)
        if k is None:
            return None
        at.append(k)
    return at


def parts_record(parts: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """A row whose d20s come from several earlier draws, one die each (a check applying
    sealed pre-rolls): the row's i-th die is the first d20 of ``parts[i]``. None if a part
    records no seeds (a pre-roll sealed before fair dice)."""
    if not parts or any(not isinstance(p, dict) or "seed_hash" not in p for p in parts):
        return None
    return {"dice": D20_DRAWS, "parts": [dict(p) for p in parts]}


def recompute_parts(
    seeds: Mapping[str, str], record: dict[str, Any], terms: list[Any]
) -> bool | None:
    """A parts record (:func:`parts_record`) against the row's dice, given the revealed seeds
    by hash; None while one of its seeds is not revealed."""
    parts = list(record.get("parts") or [])
    shown = [int(t) for t in terms]
    if len(parts) != len(shown):
        return False
    for part, face in zip(parts, shown, strict=True):
        seed = seeds.get(str(part["seed_hash"]))
        if seed is None:
            return None
        one = {key: value for key, value in part.items() if key != "at"}
        if not recompute(seed, {**one, "dice": record["dice"]}, [face]):
            return False
    return True


async def _verify_parts(
    db: Database, number: int, record: dict[str, Any], dice: list[Any]
) -> FairCheck:
    """``/verify roll:N`` of a row whose dice come from several draws (:func:`parts_record`)."""
    hashes = sorted({str(p.get("seed_hash")) for p in record.get("parts") or []})
    found: dict[str, Seed] = {}
    async with transaction(db) as session:
        for digest in hashes:
            row = (
                await session.execute(
                    select(*_COLUMNS)
                    .where(fair_seeds.c.seed_hash == digest)
                    .order_by(fair_seeds.c.revealed_at.is_(None), fair_seeds.c.id)
                    .limit(1)
                )
            ).first()
            if row is None:
                return FairCheck(number, False, "Its seed is missing.")
            found[digest] = _seed_of(row)
    waiting = [s for s in found.values() if s.seed is None]
    if waiting:
        return FairCheck(
            number,
            None,
            f"Its seed (hash `{waiting[0].seed_hash[:16]}…`) is not revealed yet: it can be "
            "checked after the next rotation (/seed rotate).",
            waiting[0],
        )
    seeds = {h: str(s.seed) for h, s in found.items()}
    first = found[hashes[0]] if hashes else None
    if not all(seed_matches(seeds[h], h) for h in hashes):
        return FairCheck(number, False, "Its revealed seed does not match the published hash.")
    if not recompute_parts(seeds, record, dice):
        return FairCheck(number, False, "Its faces are not the ones its seeds give.", first)
    secret = False
    for part in record["parts"]:
        if "blind" not in part:
            continue
        key = found[str(part["seed_hash"])].hidden_key
        if key is None:
            secret = True
        elif not blinding_matches(key, part):
            return FairCheck(number, False, "Its blinding value is not its seed's.", first)
    if secret:
        return FairCheck(number, True, HIDDEN_KEY_SECRET, first)
    return FairCheck(number, True, "Every face is the one its seeds give.", first)


# --- export and import ----------------------------------------------------------------------


async def revealed_in(session: Executor, campaign_id: int) -> list[dict[str, Any]]:
    """A campaign's revealed seeds, for its export: what tools/verify_fair.py recomputes its
    rolls from. The current seed is never exported (it is still secret)."""
    rows = await session.execute(
        select(*_COLUMNS)
        .where(
            fair_seeds.c.scope_key == f"campaign:{campaign_id}",
            fair_seeds.c.revealed_at.is_not(None),
        )
        .order_by(fair_seeds.c.generation)
    )
    return [
        {
            "generation": int(row.generation),
            "scope": str(row.scope_key),
            "seed": str(row.seed),
            "seed_hash": str(row.seed_hash),
            "hidden_hash": fair.seed_hash(bytes.fromhex(str(row.hidden_key))),
            "created_at": row.created_at.isoformat(),
            "revealed_at": row.revealed_at.isoformat(),
        }
        | ({"hidden_key": str(row.hidden_key)} if row.hidden_revealed_at is not None else {})
        for row in rows
    ]


async def published_in(session: Executor, campaign_id: int) -> list[str]:
    """Every seed hash the campaign published (the current seed's too: a hash is public), so
    tools/verify_fair.py knows a roll's seed is the campaign's before it is revealed."""
    rows = await session.execute(
        select(fair_seeds.c.seed_hash)
        .where(fair_seeds.c.scope_key == f"campaign:{campaign_id}")
        .order_by(fair_seeds.c.generation)
    )
    return [str(row.seed_hash) for row in rows]


async def seed_changes_in(session: Executor, campaign_id: int) -> list[dict[str, Any]]:
    """The logged seed changes of whoever rolled in the campaign (or plays a character in it),
    each key as the campaign's rolls record it (salted with its scope, so the export links
    nobody's rolls elsewhere): tools/verify_fair.py checks each roll's key is its roller's."""
    scope = f"campaign:{campaign_id}"
    rollers = ledger_store.rollers_of(campaign_id).union(
        select(characters.c.user_id).where(characters.c.campaign_id == campaign_id)
    )
    rows = await session.execute(
        select(
            player_seed_changes.c.user_id,
            player_seed_changes.c.key,
            player_seed_changes.c.changed_at,
        )
        .where(player_seed_changes.c.user_id.in_(rollers))
        .order_by(player_seed_changes.c.id)
    )
    return [
        {
            "user_id": int(row.user_id),
            "key": fair.scoped_key(bytes.fromhex(str(row.key)), scope).hex(),
            "changed_at": row.changed_at.isoformat(),
        }
        for row in rows
    ]


async def import_revealed_in(session: Executor, campaign_id: int, seeds: Any) -> int:
    """An imported campaign's revealed seeds, so /verify still recomputes its old rolls (they
    record their seed's hash and their own scope, so the seeds are kept apart, under
    ``imported:<campaign>``). A seed whose hash does not match is refused."""
    if not seeds:
        return 0
    if not isinstance(seeds, list):
        raise InvalidValue("This export file is damaged (fair_seeds).")
    values = []
    for item in seeds:
        try:
            seed = bytes.fromhex(str(item["seed"]))
            ok = fair.seed_hash(seed) == item["seed_hash"]
            generation = int(item["generation"])
            created = datetime.fromisoformat(str(item["created_at"]))
            revealed = datetime.fromisoformat(str(item["revealed_at"]))
            hidden = str(item.get("hidden_key", ""))
            if hidden:
                ok = ok and fair.seed_hash(bytes.fromhex(hidden)) == item.get("hidden_hash")
        except (KeyError, TypeError, ValueError):
            ok = False
        if not ok:
            raise InvalidValue(
                "This export file's dice seeds do not match their published hashes. "
                "Nothing was imported."
            )
        values.append(
            {
                "scope_key": f"imported:{campaign_id}",
                "generation": generation,
                "seed": seed.hex(),
                "seed_hash": fair.seed_hash(seed),
                "hidden_key": hidden,
                "uses": 0,
                "period_s": None,
                "created_at": created,
                "revealed_at": revealed,
                "hidden_revealed_at": revealed if hidden else None,
            }
        )
    await session.execute(insert(fair_seeds), values)
    return len(values)


# --- many rolls' draws in one statement (a group roll) ---------------------------------------


@functools.lru_cache(maxsize=64)
def _take_many_sql(dialect: str, count: int) -> Any:
    """``count`` rolls' draws in ONE statement: :func:`_take_sql`'s upsert for every roller at
    once. Rollers sharing a player key (one player's two characters, two players with one seed
    text) take consecutive numbers: one row per key, its counter moved by how many drew with
    it (ordered by key, so two such statements lock keys in one order). Each returned key also
    names which of the rollers have it as their stored key (the others drew with their own
    no-seed key). PostgreSQL locks the seed row for share, as one draw does."""
    pg = dialect == "postgresql"
    lock = " FOR SHARE" if pg else ""
    users = ", ".join(f"CAST(:user_{i} AS BIGINT)" for i in range(count))
    rows = ", ".join(f"(CAST(:user_{i} AS BIGINT), CAST(:nokey_{i} AS TEXT))" for i in range(count))
    listed = "string_agg(CAST(p.user_id AS TEXT), ',')" if pg else "group_concat(p.user_id, ',')"
    return text(
        "INSERT INTO fair_draws (seed_id, player, uses) "
        "SELECT s.id, w.player, COUNT(*) FROM "
        "(SELECT id FROM fair_seeds WHERE scope_key = :scope AND revealed_at IS NULL"
        f"{lock}) AS s, "
        "(SELECT COALESCE((SELECT key FROM player_seeds WHERE user_id = v.column1), v.column2) "
        f"AS player FROM (VALUES {rows}) AS v) AS w "
        "WHERE true GROUP BY s.id, w.player ORDER BY w.player "
        "ON CONFLICT (seed_id, player) DO UPDATE SET uses = fair_draws.uses + excluded.uses "
        "RETURNING seed_id, player, uses, "
        "(SELECT period_s FROM fair_seeds WHERE id = fair_draws.seed_id) AS period_s, "
        "(SELECT seed_hash FROM fair_seeds WHERE id = fair_draws.seed_id) AS seed_hash, "
        f"(SELECT {listed} FROM player_seeds p WHERE p.key = fair_draws.player "
        f"AND p.user_id IN ({users})) AS users"
    )


async def draw_many_in(
    session: Executor, callers: Sequence[Caller], campaign_id: int | None, visibility: Visibility
) -> list[Draw]:
    """:func:`draw_in` for several rolls of one command (a group roll's members, in order),
    in one statement: each caller's player key and its next draw number, as one
    :func:`draw_in` after another would give them (a key drawn twice gets two consecutive
    numbers, in the callers' order). A seed falling due rotates after the last draw only (held
    by :func:`rotations_held`, else here, the rotation on the last draw)."""
    if not callers:
        return []
    scope = scope_of(campaign_id, callers[0])
    nokeys = [fair.no_seed_key(c.user_id).hex() for c in callers]
    params: dict[str, Any] = {"scope": scope}
    for i, (caller, nokey) in enumerate(zip(callers, nokeys, strict=True)):
        params[f"user_{i}"] = caller.user_id
        params[f"nokey_{i}"] = nokey
    take = _take_many_sql(dialect_name(session), len(callers))
    for _ in range(4):
        taken = (await session.execute(take, params)).all()
        if taken:
            break
        await current_in(session, scope, unpublished=True)  # the scope's first roll
    else:
        raise NotFound("The dice seed of this place could not be read; try again.")
    first = taken[0]
    parts = await _parts_in(session, int(first.seed_id), str(first.seed_hash))
    period = None if first.period_s is None else int(first.period_s)
    stored: dict[int, str] = {}  # user id -> their stored key, for those who have one
    counts: dict[str, tuple[int, int]] = {}  # key -> (its last number, how many drew)
    for row in taken:
        for user in str(row.users or "").split(","):
            if user:
                stored[int(user)] = str(row.player)
    keys = [stored.get(c.user_id, nokey) for c, nokey in zip(callers, nokeys, strict=True)]
    drawn_by = {key: keys.count(key) for key in keys}
    for row in taken:
        counts[str(row.player)] = (int(row.uses), drawn_by.get(str(row.player), 0))
    next_of = {key: last - count + 1 for key, (last, count) in counts.items()}
    draws: list[Draw] = []
    last_due = False
    now = utcnow()
    for key in keys:
        number = next_of[key]
        next_of[key] = number + 1
        draws.append(parts.draw(scope, key, number, period, visibility))
        last_due = last_due or due(draws[-1].seed, now)
    if last_due:
        held = _HELD.get()
        if held is not None:  # after the command's last roll
            held.add(scope)
        else:
            hidden_now = visibility is not Visibility.PUBLIC
            rotation = await _rotate_in(session, draws[-1].seed, hidden_now=hidden_now)
            draws[-1] = replace(draws[-1], rotation=rotation)
    return draws


# --- what the fair dice keep about a person (bot/services/kit/personal.py) ----------------------


async def _show_in(session: Executor, shown: Shown) -> None:
    user_id = shown.user_id
    shown.settings["seed"] = await choices.player_value_in(session, player_seeds.c.text, user_id)
    changes = await session.scalar(
        select(func.count()).where(player_seed_changes.c.user_id == user_id)
    )
    shown.settings["seed_changes"] = int(changes or 0)


async def _erase_in(session: Executor, person: Person) -> int:
    """Their seed's text and its changes are the same in every server: they go with an
    erasure everywhere only. Each roll keeps only the key derived from the text, so the rolls
    stay recomputable after the text is gone (docs/fair-dice.md)."""
    return await choices.erase_player_in(session, person, player_seeds, player_seed_changes)


PERSONAL_DATA = declare(
    PersonalData(
        "fair dice",
        holdings=(
            choices.player_holding(player_seeds),
            choices.player_holding(player_seed_changes),
        ),
        not_personal={
            "fair_seeds": "server seeds of the dice, their hashes and counters (docs/fair-dice.md)",
            "fair_draws": "how many draws a player key took from a seed (the key every fair "
            "roll records; never the seed's text)",
        },
        show_in=_show_in,
        erase=each_in_its_transaction(_erase_in),
        exported="when each player who rolled in the campaign changed their seed, and the key "
        "it gave, salted for that campaign; never the seed's text",
    )
)
