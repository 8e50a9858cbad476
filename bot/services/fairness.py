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
import random
import secrets
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, text, update

from bot.db.engine import Database
from bot.db.fair_models import fair_seeds, player_seed_changes, player_seeds
from bot.db.types import utcnow
from bot.dice import fair
from bot.services import secrecy
from bot.services._sql import Executor, dialect_name, insert_for, transaction
from bot.services.context import Caller
from bot.services.errors import InvalidValue, NoCampaign, NotFound
from bot.services.store import ledger as ledger_store
from bot.services.store.campaigns import CampaignView, campaign_for_channel_in
from bot.words import Visibility

#: A rules roll's dice (checks, saves, luck): d20s drawn as the rules draw them, one word each,
#: ``word mod 32`` skipped when 20 or more, face = that + 1 (docs/fair-dice.md).
D20_DRAWS = "d20"
#: A seed rotates on its own before this many rolls: its draw numbers never wrap or repeat,
#: and a seed that served this long is worth revealing.
MAX_USES = 100_000
#: The longest player seed text kept (docs/fair-dice.md).
MAX_PLAYER_SEED = 200
#: Shortest and longest automatic rotation period a GM may set.
MIN_PERIOD = timedelta(hours=1)
MAX_PERIOD = timedelta(days=365)


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


async def current_in(session: Executor, scope: str) -> Seed:
    """The scope's current seed, made (and its hash fixed) on first use."""
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
            return _seed_of(row)
        last = await session.scalar(
            select(func.max(fair_seeds.c.generation)).where(fair_seeds.c.scope_key == scope)
        )
        await _insert_generation(session, scope, int(last or 0) + 1, None)
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
    await _insert_generation(session, current.scope, current.generation + 1, current.period_s)
    revealed = (await session.execute(select(*_COLUMNS).where(fair_seeds.c.id == current.id))).one()
    return Rotation(_seed_of(revealed), await current_in(session, current.scope))


def due(seed: Seed, now: datetime) -> bool:
    """A seed rotates on its own when its period ran out or before its numbers run out."""
    if seed.uses >= MAX_USES:
        return True
    return seed.period_s is not None and now >= seed.created_at + timedelta(seconds=seed.period_s)


#: The campaign of the caller's place (its channel, else a thread's parent), as SQL.
_CAMPAIGN_HERE = (
    "(SELECT c.id FROM campaigns c WHERE c.guild_id = :guild AND c.channel_id IN "
    "(:channel, :parent) ORDER BY CASE WHEN c.channel_id = :channel THEN 0 ELSE 1 END LIMIT 1)"
)
#: What a roll needs to know about its place, as columns (in a SELECT or a RETURNING): the
#: campaign and its revision (to check a remembered campaign), and the dice dialects.
_HERE_COLUMNS = (
    f"{_CAMPAIGN_HERE} AS campaign_id, "
    f"(SELECT revision FROM campaigns WHERE id = {_CAMPAIGN_HERE}) AS revision, "
    "(SELECT dialect FROM dice_dialects WHERE user_id = :user) AS own_dialect, "
    "(SELECT dialect FROM campaign_dice_dialects "
    f"WHERE campaign_id = {_CAMPAIGN_HERE}) AS campaign_dialect"
)
_HERE_SCOPE = f"COALESCE('campaign:' || {_CAMPAIGN_HERE}, :place)"
_HERE = text(f"SELECT {_HERE_COLUMNS}")


def _take_sql(dialect: str, here: bool) -> Any:
    """One roll's draw in one statement: the player key's next number from the scope's current
    seed (an upsert on ``fair_draws``: atomic, never twice), the key, and the seed's period;
    ``here``: the scope is the caller's place, found in the statement, whose columns it adds.
    PostgreSQL locks the seed row for share, so a rotation committing meanwhile makes it draw
    nothing (then the caller retries on the new seed), as SQLite's one writer does."""
    lock = " FOR SHARE OF s" if dialect == "postgresql" else ""
    scope = _HERE_SCOPE if here else ":scope"
    more = f", {_HERE_COLUMNS}" if here else ""
    return text(
        "INSERT INTO fair_draws (seed_id, player, uses) "
        "SELECT s.id, COALESCE((SELECT key FROM player_seeds WHERE user_id = :user), ''), 1 "
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


_SEEDS: dict[int, _SeedParts] = {}


async def _parts_in(session: Executor, seed_id: int, seed_hash: str) -> _SeedParts:
    """A seed's fixed parts, from memory when this process read that seed (its hash, which
    the draw returned, tells it is the same seed: an id reused after a restore is not)."""
    found = _SEEDS.get(seed_id)
    if found is None or found.seed_hash != seed_hash:
        row = (await session.execute(select(*_COLUMNS).where(fair_seeds.c.id == seed_id))).one()
        found = _SeedParts(
            int(row.id),
            str(row.scope_key),
            int(row.generation),
            str(row.seed_hash),
            row.created_at,
            bytes.fromhex(str(row.seed)),
            bytes.fromhex(str(row.hidden_key)),
        )
        if len(_SEEDS) >= 4096:
            _SEEDS.clear()
        _SEEDS[seed_id] = found
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
    }


async def here_in(session: Executor, caller: Caller, *, draw: bool) -> Here:
    """Where the caller rolls, in ONE statement: with ``draw`` (fair dice) it also takes the
    roll's draw from the place's seed (:func:`draw_here_in` finishes it)."""
    params = _place_params(caller)
    if draw:
        for _ in range(3):
            take = _TAKES[(dialect_name(session), True)]
            taken = (await session.execute(take, params)).first()
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
            await current_in(session, scope_of(found.campaign_id, caller))
        raise NotFound("The dice seed of this place could not be read; try again.")
    found = (await session.execute(_HERE, params)).one()
    return Here(
        found.campaign_id, int(found.revision or 0), found.own_dialect, found.campaign_dialect
    )


async def draw_here_in(
    session: Executor, caller: Caller, here: Here, visibility: Visibility
) -> Draw:
    """The draw :func:`here_in` took, for a roll of ``visibility``."""
    return await _drawn_in(session, here.taken, scope_of(here.campaign_id, caller), visibility)


async def draw_in(
    session: Executor, caller: Caller, campaign_id: int | None, visibility: Visibility
) -> Draw:
    """The randomness of one roll by ``caller``: the scope's current seed (whose hash was
    published before), the caller's player key and its next draw number from that seed (a
    player's n-th roll from a seed is draw n, whatever others roll), and a blinding value if
    the roll is hidden. A seed that is due rotates right after this roll took its number, so
    the next roll draws from a seed whose hash this one's answer announced."""
    scope = scope_of(campaign_id, caller)
    params = {"scope": scope, "user": caller.user_id}
    take = _TAKES[(dialect_name(session), False)]
    for _ in range(4):
        taken = (await session.execute(take, params)).first()
        if taken is None:  # the scope's first roll (or a rotation just committed)
            await current_in(session, scope)
            continue
        return await _drawn_in(session, taken, scope, visibility)
    raise NotFound("The dice seed of this place could not be read; try again.")


async def _drawn_in(session: Executor, taken: Any, scope: str, visibility: Visibility) -> Draw:
    parts = await _parts_in(session, int(taken.seed_id), str(taken.seed_hash))
    number = int(taken.uses)
    key = taken.player
    player = bytes.fromhex(str(key)) if key else fair.player_key("")
    current = Seed(
        parts.id,
        parts.scope,
        parts.generation,
        parts.seed_hash,
        number,
        parts.created_at,
        None,
        None if taken.period_s is None else int(taken.period_s),
        None,
        fair.seed_hash(parts.hidden_key),
    )
    blind = b""
    if visibility is not Visibility.PUBLIC:
        blind = fair.blinding(parts.hidden_key, scope, number)
    rng = fair.FairRandom(parts.seed, scope, number, player, blind)
    rotation = None
    if due(current, utcnow()):
        held = _HELD.get()
        if held is None:
            hidden_now = visibility is not Visibility.PUBLIC
            rotation = await _rotate_in(session, current, hidden_now=hidden_now)
        else:  # a command with more rolls to draw: after its last one
            held.add(scope)
    return Draw(rng, current, number, player.hex(), blind.hex(), rotation)


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


async def rotate(db: Database, caller: Caller, campaign: CampaignView | None) -> Rotation:
    """``/campaign seed rotate``: reveal the current seed, publish the next one's hash (a
    campaign's GM; outside campaigns, anyone in the channel: the seed is the channel's)."""
    if campaign is not None:
        secrecy.require_campaign_gm(campaign, caller, "rotate the dice seed")
    scope = scope_of(campaign.id if campaign else None, caller)
    async with transaction(db) as session:
        for _ in range(3):
            rotated = await _rotate_in(session, await current_in(session, scope))
            if rotated is not None:
                return rotated
    raise NotFound("The dice seed of this place is being rotated; try again.")


async def show(db: Database, caller: Caller, campaign: CampaignView | None) -> Seed:
    """The current seed's public face (its hash), created if the scope had none."""
    async with transaction(db) as session:
        return await current_in(session, scope_of(campaign.id if campaign else None, caller))


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
        upsert = insert_for(session, player_seeds).values(
            user_id=caller.user_id, text=text, key=key, updated_at=now
        )
        await session.execute(
            upsert.on_conflict_do_update(
                index_elements=["user_id"], set_={"text": text, "key": key, "updated_at": now}
            )
        )
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
    if row is None:
        return PlayerSeedView(None, fair.player_key("").hex(), None)
    return PlayerSeedView(row.text, str(row.key), row.updated_at)


# --- checking -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FairCheck:
    """The outcome of recomputing one roll: its number, whether it matched, and why not."""

    number: int
    matched: bool | None  # None: cannot be checked yet (its seed is not revealed)
    reason: str
    seed: Seed | None = None


#: A roll without derivation inputs.
NO_SEEDS = (
    "It records no dice seeds (rolled before fair dice, or by a command not drawing from them)."
)


def recompute(seed_hex: str, record: dict[str, Any], terms: list[Any]) -> bool:
    """Whether ``terms`` (a ledger row's dice) show the faces the record's inputs give."""
    if record.get("dice") == D20_DRAWS:
        words = fair.stream(
            bytes.fromhex(seed_hex),
            str(record["scope"]),
            int(record["draw"]),
            bytes.fromhex(str(record["player"])),
            bytes.fromhex(str(record.get("blind", ""))),
        )
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


def seed_matches(seed_hex: str, published: str) -> bool:
    """``/verify seed``: a revealed seed against the hash published before it was used."""
    try:
        seed = bytes.fromhex(seed_hex.strip())
    except ValueError:
        return False
    return fair.seed_hash(seed) == published.strip().lower()


async def verify_roll(db: Database, caller: Caller, number: int) -> FairCheck:
    """``/verify roll:N``: recompute the faces of roll #N from its revealed seed."""
    access = await secrecy.access_roll(db, caller, number)
    if not access.visible:
        return FairCheck(number, None, "Its result is hidden from you, so it cannot be checked.")
    outcome = access.row.outcome
    record = outcome.get("fair") if isinstance(outcome, dict) else None
    if not isinstance(record, dict):
        return FairCheck(number, None, NO_SEEDS)
    async with transaction(db) as session:
        row = (
            await session.execute(
                select(*_COLUMNS)
                .where(fair_seeds.c.seed_hash == str(record["seed_hash"]))
                .order_by(fair_seeds.c.revealed_at.is_(None), fair_seeds.c.id)
                .limit(1)
            )
        ).first()
    if row is None:
        return FairCheck(number, False, "Its seed is missing.")
    seed = _seed_of(row)
    if seed.seed is None:
        return FairCheck(
            number,
            None,
            f"Its seed (hash `{seed.seed_hash[:16]}…`) is not revealed yet: it can be checked "
            "after the next rotation (/campaign seed rotate).",
            seed,
        )
    if not seed_matches(seed.seed, str(record["seed_hash"])):
        return FairCheck(number, False, "Its revealed seed does not match the published hash.")
    if not recompute(seed.seed, record, list(access.row.dice)):
        return FairCheck(number, False, "Its faces are not the ones its seeds give.", seed)
    if "blind" in record:
        if seed.hidden_key is None:
            return FairCheck(number, True, HIDDEN_KEY_SECRET, seed)
        if not blinding_matches(seed.hidden_key, record):
            return FairCheck(number, False, "Its blinding value is not its seed's.", seed)
    return FairCheck(number, True, "Every face is the one its seeds give.", seed)


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
            "A seed is 64 hexadecimal characters, as /campaign seed rotate showed it."
        ) from None
    if len(raw) != fair.SEED_BYTES:
        raise InvalidValue(
            "A seed is 64 hexadecimal characters, as /campaign seed rotate showed it."
        )
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
