"""The schema: campaigns, characters and their per-character data, pending modifiers, the ledger.

Ranges live in CHECK constraints as well as in the services, so no code path (nor a hand-written
UPDATE) can store an impossible value. Deleting a campaign deletes its characters; the ledger is
append-only and keeps every row (its foreign keys are ``ON DELETE SET NULL``, and each row keeps
the guild, channel, user and character name it was rolled with).

The words stored in its columns (rule systems, visibilities, job states, ...) live in
bot/words.py; code in bot/ imports them from there (mypy's strict re-export check refuses
``from bot.db.models import RuleSystem``), older tests and scripts still may.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from bot.db.types import BigId, IdList, NameList, UTCDateTime, utcnow
from bot.words import (
    BOON_FORTUNE_MAX,
    FORTUNE_MAX,
    JobState,
    NotifyMode,
    RuleSystem,
    SecrecyCommand,
    Visibility,
)

NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(column_0_N_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


#: Pen & Dagger ranks, worst to best (the Success Table).
PD_RANKS: tuple[str, ...] = (
    "Doomed",
    "Hopeless",
    "Inept",
    "Untrained",
    "Novice",
    "Trained",
    "Adept",
    "Master",
    "Epic",
    "Legendary",
    "Godlike",
)


# Built once: every campaign row read or written is checked against them (a hot path).
_SECRECY_COMMANDS = frozenset(SecrecyCommand)
_VISIBILITIES = frozenset(Visibility)


class SecrecyDefaults(TypeDecorator[dict[str, str]]):
    """Per-command default visibility, ``{"check": "blind", ...}``, validated in and out."""

    impl = JSON
    cache_ok = True

    @staticmethod
    def _valid(value: Any) -> dict[str, str]:
        if not isinstance(value, dict):
            raise ValueError("secrecy defaults must be a mapping")
        out: dict[str, str] = {}
        for command, mode in value.items():
            if command not in _SECRECY_COMMANDS or mode not in _VISIBILITIES:
                raise ValueError(f"invalid secrecy default {command!r}: {mode!r}")
            out[str(command)] = str(mode)
        return dict(sorted(out.items()))

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return self._valid(value if value is not None else {})

    def process_result_value(self, value: Any, dialect: Dialect) -> dict[str, str]:
        return self._valid(value if value is not None else {})


def sql_in(column: str, values: tuple[str, ...] | list[str]) -> str:
    """A CHECK constraint's text allowing only ``values`` in ``column``."""
    quoted = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
    return f"{column} IN ({quoted})"


#: Table options of every table whose id a button, a message or a command shows (migration 0006).
#: SQLite otherwise hands out max(id) + 1, so deleting the newest rows gives their ids to the
#: next ones and a button left on an old message acts on a new object; AUTOINCREMENT never
#: reuses an id. PostgreSQL's sequences never do either.
NEVER_REUSE_IDS: dict[str, Any] = {"sqlite_autoincrement": True}


class Base(DeclarativeBase):
    """Declarative base with the constraint naming convention migrations rely on."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Campaign(Base):
    """A game bound to one Discord channel (threads resolve to their parent) and a rule system."""

    __tablename__ = "campaigns"
    __table_args__ = (
        CheckConstraint(sql_in("system", [s.value for s in RuleSystem]), name="system"),
        # A server's campaigns (/privacy show and erasure in one server: docs/privacy.md).
        Index("ix_campaigns_guild_id", "guild_id"),
        CheckConstraint(
            "tier_very_easy >= 1 AND tier_very_easy <= tier_easy AND tier_easy <= tier_moderate"
            " AND tier_moderate <= tier_hard AND tier_hard <= tier_very_hard"
            " AND tier_very_hard <= 40",
            name="tiers",
        ),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger, unique=True)
    system: Mapped[str] = mapped_column(String(16))
    gm_role_ids: Mapped[list[int]] = mapped_column(IdList, default=list)
    gm_user_ids: Mapped[list[int]] = mapped_column(IdList, default=list)
    gm_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    fortune_boon_default: Mapped[bool] = mapped_column(Boolean, default=False)
    crit_rules: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Threshold: +2 / -2 on the next test after a critical (threshold ruling 4; a GM option).
    carry_over: Mapped[bool] = mapped_column(Boolean, default=True, server_default=text("true"))
    #: Pen & Dagger: the GM rules a luck roll's natural 20 brings no extra benefit, so it may be
    #: traded for a fortune die (the text's "Luck Rolls"; an attempt's 20 always may be).
    luck_trade: Mapped[bool] = mapped_column(Boolean, default=True, server_default=text("true"))
    #: d20 check, with crit rules: a Critical Hit rolls every damage die twice. Off by default
    #: (the text rolls the damage as normal); the project's addition, a GM option.
    crit_double_dice: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=text("false")
    )
    #: d20 check: something in the game lets a player reroll one d20 of an advantage roll.
    rerolls: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))
    #: New characters join the party as they are created (a GM option; on for campaigns set up
    #: since it exists, off for older ones, whose GMs built their party by hand).
    party_auto_join: Mapped[bool] = mapped_column(
        Boolean, default=True, server_default=text("false")
    )
    tier_very_easy: Mapped[int] = mapped_column(SmallInteger, default=3)
    tier_easy: Mapped[int] = mapped_column(SmallInteger, default=7)
    tier_moderate: Mapped[int] = mapped_column(SmallInteger, default=12)
    tier_hard: Mapped[int] = mapped_column(SmallInteger, default=17)
    tier_very_hard: Mapped[int] = mapped_column(SmallInteger, default=20)
    ability_names: Mapped[list[str]] = mapped_column(NameList)
    #: Default visibility per rolling command; a command not listed uses its built-in default.
    secrecy_defaults: Mapped[dict[str, str]] = mapped_column(
        SecrecyDefaults, default=dict, server_default=text("'{}'")
    )
    #: The snowflake its rolls are numbered under: the channel it was set up in. It never
    #: changes, not when the campaign moves to another channel or server, so the
    #: numbers on old stubs keep naming the same rolls.
    ledger_scope: Mapped[int] = mapped_column(
        BigInteger, default=lambda context: context.get_current_parameters()["channel_id"]
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    #: Goes up with every change of this row (a trigger, migration 0024): a process that
    #: remembers the campaign checks it inside a statement it runs anyway.
    #: It starts at random, so a campaign id used again (a restored or emptied database)
    #: does not meet a remembered revision of the campaign that had it before.
    revision: Mapped[int] = mapped_column(
        Integer, default=lambda: secrets.randbits(30), server_default=text("0")
    )


class Character(Base):
    """A player's character in one campaign; at most one is active per user and campaign."""

    __tablename__ = "characters"
    __table_args__ = (
        UniqueConstraint("campaign_id", "name_key"),
        # Two names that read the same (Unicode TR39 skeleton) are one name in a campaign; a
        # NULL (a look-alike pair that predates the rule) is never a clash.
        Index(
            "uq_characters_campaign_id_name_skeleton", "campaign_id", "name_skeleton", unique=True
        ),
        Index("ix_characters_campaign_id_user_id", "campaign_id", "user_id"),
        # A person's characters in every campaign (/privacy show, erasure: docs/privacy.md).
        Index("ix_characters_user_id", "user_id"),
        Index(
            "uq_characters_one_active",
            "campaign_id",
            "user_id",
            unique=True,
            sqlite_where=text("is_active"),
            postgresql_where=text("is_active"),
        ),
        CheckConstraint("level >= 1 AND level <= 20", name="level"),
        CheckConstraint(
            "fortune >= 0 AND fortune <= CASE WHEN double_fortune"
            f" THEN {BOON_FORTUNE_MAX} ELSE {FORTUNE_MAX} END",
            name="fortune",
        ),
        CheckConstraint("length(name) >= 1 AND length(name) <= 64", name="name"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(64))
    #: ``name.casefold()``: names are unique per campaign, case-insensitively.
    name_key: Mapped[str] = mapped_column(String(64))
    #: The name's confusables skeleton (bot/services/kit/names.py): "Аyla" (Cyrillic А) and "Ayla"
    #: share one, so a campaign holds only one of them.
    name_skeleton: Mapped[str | None] = mapped_column(String(64))
    level: Mapped[int] = mapped_column(SmallInteger, default=1)
    fortune: Mapped[int] = mapped_column(SmallInteger, default=0)
    double_fortune: Mapped[bool] = mapped_column(Boolean, default=False)
    in_party: Mapped[bool] = mapped_column(Boolean, default=False)
    #: d20 check: a Null's bonus to Mana saves ("Null Saves"); None for everyone else.
    null_bonus: Mapped[int | None] = mapped_column(SmallInteger)
    #: d20 check: AC taken away by critical hits' damage ("Critical Hits & Fumbles").
    ac_loss: Mapped[int] = mapped_column(SmallInteger, default=0, server_default=text("0"))
    #: d20 check: the character's own Armour Class and armour, as its player (or the GM) set
    #: them: another player's attack on this character uses these, never the attacker's word.
    ac: Mapped[int | None] = mapped_column(SmallInteger)
    armour_quality: Mapped[str | None] = mapped_column(String(16))
    armour_magic: Mapped[int | None] = mapped_column(SmallInteger)
    #: The portrait posts show (docs/posting.md, ``/character avatar``): an https image URL.
    avatar_url: Mapped[str | None] = mapped_column(Text)
    is_active: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class CharacterScore(Base):
    """An ability score (Pen & Dagger, roll-under, d20 check) or attribute modifier (threshold)."""

    __tablename__ = "character_scores"
    __table_args__ = (CheckConstraint("value >= -100 AND value <= 100", name="value"),)

    character_id: Mapped[int] = mapped_column(
        ForeignKey("characters.id", ondelete="CASCADE"), primary_key=True
    )
    #: The campaign's spelling of the ability name.
    ability: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[int] = mapped_column(SmallInteger)


class CharacterProficiency(Base):
    """A named proficiency: a rank (Pen & Dagger) or a degree, 1 or 2 (d20 check)."""

    __tablename__ = "character_proficiencies"
    __table_args__ = (
        CheckConstraint(sql_in("rank", PD_RANKS), name="rank"),
        CheckConstraint("degree IN (1, 2)", name="degree"),
        CheckConstraint("(rank IS NULL) <> (degree IS NULL)", name="rank_or_degree"),
        CheckConstraint("length(name) >= 1", name="name"),
    )

    character_id: Mapped[int] = mapped_column(
        ForeignKey("characters.id", ondelete="CASCADE"), primary_key=True
    )
    #: ``name.casefold()``, so "Stealth" and "stealth" are one proficiency.
    name_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    rank: Mapped[str | None] = mapped_column(String(12))
    degree: Mapped[int | None] = mapped_column(SmallInteger)
    #: d20 check: the bonus is halved (rounded down) rather than added whole or doubled; only
    #: with degree 1 ("doubled or halved", Proficiency Bonus).
    halved: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))


class CharacterSave(Base):
    """A saving-throw proficiency (d20 check) in one ability."""

    __tablename__ = "character_saves"

    character_id: Mapped[int] = mapped_column(
        ForeignKey("characters.id", ondelete="CASCADE"), primary_key=True
    )
    ability: Mapped[str] = mapped_column(String(32), primary_key=True)


class PendingModifier(Base):
    """A carry-over modifier (threshold: +2 after a critical, -2 after a fumble), used once."""

    __tablename__ = "pending_modifiers"
    __table_args__ = (CheckConstraint("value >= -20 AND value <= 20 AND value <> 0", name="value"),)

    character_id: Mapped[int] = mapped_column(
        ForeignKey("characters.id", ondelete="CASCADE"), primary_key=True
    )
    ability: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[int] = mapped_column(SmallInteger)
    source_roll_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("ledger.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class LedgerRow(Base):
    """One roll of any kind, append-only: triggers (migration 0008) refuse any DELETE,
    and any UPDATE but the reveal stamp, the foreign keys a deletion nulls, and an erasure's
    tombstone in the personal columns (docs/privacy.md).

    ``interaction_id`` is unique, so one Discord interaction is never recorded twice; it is
    NULL for rows not tied to an interaction (for example made by a scheduled job). What a
    row is bound by (``number``, ``scope_id``, the place, ``created_at``, ``who``) never
    changes; see bot/services/kit/commitments.py.
    """

    __tablename__ = "ledger"
    __table_args__ = (
        Index("ix_ledger_campaign_id_id", "campaign_id", "id"),
        Index("ix_ledger_character_id_id", "character_id", "id"),
        Index("ix_ledger_campaign_id_number", "campaign_id", "number"),
        Index("ix_ledger_scope_id_number", "scope_id", "number"),
        # A person's own rows, in order (/privacy show, erasure a page at a time).
        Index("ix_ledger_user_id_id", "user_id", "id"),
        CheckConstraint(sql_in("visibility", [v.value for v in Visibility]), name="visibility"),
        CheckConstraint("length(kind) >= 1", name="kind"),
        CheckConstraint("length(request) <= 4000", name="request"),
        CheckConstraint("commitment IS NULL OR length(commitment) = 64", name="commitment"),
        CheckConstraint("number >= 1", name="number"),
        CheckConstraint("format IN (1, 2, 3)", name="format"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    campaign_id: Mapped[int | None] = mapped_column(ForeignKey("campaigns.id", ondelete="SET NULL"))
    character_id: Mapped[int | None] = mapped_column(
        ForeignKey("characters.id", ondelete="SET NULL")
    )
    #: Kept so the row still says who rolled after the character is deleted.
    character_name: Mapped[str | None] = mapped_column(String(64))
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger)
    interaction_id: Mapped[int | None] = mapped_column(BigInteger, unique=True)
    kind: Mapped[str] = mapped_column(String(24))
    request: Mapped[str] = mapped_column(Text)
    dice: Mapped[Any] = mapped_column(JSON)
    outcome: Mapped[Any] = mapped_column(JSON)
    visibility: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    commitment: Mapped[str | None] = mapped_column(String(64))
    salt: Mapped[str | None] = mapped_column(String(64))
    revealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: The snowflake the public number counts under (the campaign's ``ledger_scope``, or the
    #: channel of a roll outside any campaign) and the number printed as ``#N``.
    scope_id: Mapped[int] = mapped_column(BigInteger)
    number: Mapped[int] = mapped_column(BigInteger)
    #: Salted digest of the personal fields (roller, character name, request); the salts are
    #: in ``ledger_salts`` (migration 0008), so an erasure deletes them without touching this row.
    who: Mapped[str] = mapped_column(String(64))
    #: This row's link in its campaign's (or channel's) hash chain.
    chain: Mapped[str] = mapped_column(String(64))
    #: 3: bound as bot/services/kit/commitments.py says (each personal field salted, migration
    #: 0008); 2: migration 0007's (one ``who`` salt, dice and outcome in clear); 1: a commitment
    #: made before migration 0007, which bound the ledger id (kept as ``number``) and
    #: ``legacy_campaign_id``.
    format: Mapped[int] = mapped_column(SmallInteger, default=3)
    legacy_campaign_id: Mapped[int | None] = mapped_column(BigInteger)


class LedgerSalt(Base):
    """The salts of a ledger row's personal fields, apart from the append-only ledger (issue
    22), so erasing a person deletes them and leaves the row and its digests as they were.

    ``field`` is ``*`` for the row's own salt (format 3: every field's salt derives from it;
    formats 1 and 2: the ``who`` salt). After an erasure the row salt is gone; a field kept has
    its own ``salt`` here, a field erased (its value now the tombstone) only its ``digest``, and
    ``~entry`` holds the digest of an older row's log entry as it was before (see
    bot/services/kit/commitments.py).
    """

    __tablename__ = "ledger_salts"
    __table_args__ = (CheckConstraint("(salt IS NULL) <> (digest IS NULL)", name="one"),)

    ledger_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("ledger.id", ondelete="CASCADE"), primary_key=True
    )
    field: Mapped[str] = mapped_column(Text, primary_key=True)
    salt: Mapped[str | None] = mapped_column(String(64))
    digest: Mapped[str | None] = mapped_column(String(64))


class LedgerName(Base):
    """Who a ledger row names besides its roller, by Discord id, and the name it names them by
    (the character a GM rolled for, a helper, an attack's target, a group's members, a turn
    order's players, a score generation's players).

    Erasure finds the rows that name a person here, by id, never by searching text
    (bot/services/trust/privacy.py, docs/privacy.md); it deletes the person's rows of this table
    with the rest. Written in the roll's own transaction (``NewRoll.named``); nothing the
    chain or a commitment binds.
    """

    __tablename__ = "ledger_names"
    __table_args__ = (Index("ix_ledger_names_user_id_ledger_id", "user_id", "ledger_id"),)

    ledger_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("ledger.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), primary_key=True)


class LedgerChain(Base):
    """The head of one hash chain and the last number it handed out.

    ``key`` is ``campaign:<id>`` for a campaign's rolls, ``channel:<snowflake>`` for rolls made
    outside any campaign. Rolls lock this row while they append (``UPDATE ... RETURNING``), so
    numbers and links are handed out one at a time on PostgreSQL as on SQLite.
    """

    __tablename__ = "ledger_chains"

    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    scope_id: Mapped[int] = mapped_column(BigInteger)
    last_number: Mapped[int] = mapped_column(BigInteger)
    head: Mapped[str] = mapped_column(String(64))
    #: A roll's row salt between its bump and its INSERT (SQLite: a trigger files it in
    #: ``ledger_salts`` and moves ``head``, migration 0024); NULL once it is committed.
    pending_salt: Mapped[str | None] = mapped_column(String(64), nullable=True)


class LedgerStub(Base):
    """Where a hidden roll's public stub was posted, so /verify can read the commitment that
    was published rather than the one stored beside the result (docs/secret-rolls.md, "Reveal
    and verify")."""

    __tablename__ = "ledger_stubs"

    ledger_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("ledger.id", ondelete="CASCADE"), primary_key=True
    )
    channel_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int] = mapped_column(BigInteger)


class LogCheckpoint(Base):
    """The last point of a campaign's chain that ``/verify log`` found intact, and the public
    message that shows its head: the next check walks on from there, after reading the head
    back from that message, so a database edit alone cannot move the checkpoint."""

    __tablename__ = "log_checkpoints"

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(BigInteger)
    head: Mapped[str] = mapped_column(String(64))
    channel_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int] = mapped_column(BigInteger)
    checked_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class BotState(Base):
    """Small facts the bot keeps across restarts and shares between shard processes.

    For example the digest of the last synced command tree, so restarts skip an unchanged
    sync (Discord rate-limits them).
    """

    __tablename__ = "bot_state"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ScheduledJob(Base):
    """A durable job of the game clock (bot/services/table/scheduler.py): a request's deadline or
    reminder, a turn's deadline. Created in the transaction of what it belongs to; run by
    whichever shard process claims it first, its effects and ``done`` in one transaction.

    ``guild_id`` places it on a shard (Discord's ``(guild_id >> 22) % shard_count``);
    ``key`` names what it belongs to (``request:7:deadline``), to move or cancel it.
    """

    __tablename__ = "scheduled_jobs"
    __table_args__ = (
        Index("ix_scheduled_jobs_state_due_at", "state", "due_at"),
        Index("ix_scheduled_jobs_key", "key"),
        CheckConstraint(sql_in("state", list(JobState)), name="state"),
        CheckConstraint("length(kind) >= 1", name="kind"),
        CheckConstraint("attempts >= 0", name="attempts"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    key: Mapped[str | None] = mapped_column(String(80))
    payload: Mapped[Any] = mapped_column(JSON)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    state: Mapped[str] = mapped_column(String(10), default=JobState.PENDING)
    attempts: Mapped[int] = mapped_column(SmallInteger, default=0)
    #: The exception's class name of the last failed attempt (never its message: it may quote
    #: a hidden roll).
    last_error: Mapped[str | None] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: What became of what the job posts: ``delivered``, ``undelivered`` (then a row in
    #: ``undelivered_notices`` says where and why), None while pending or when it posts nothing.
    delivery: Mapped[str | None] = mapped_column(String(12))


class NotifySetting(Base):
    """A player's ``/me notify`` choice (absent: ``channel``)."""

    __tablename__ = "notify_settings"
    __table_args__ = (CheckConstraint(sql_in("mode", list(NotifyMode)), name="mode"),)

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    mode: Mapped[str] = mapped_column(String(8))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class TurnOrder(Base):
    """A round of turns in one campaign channel or thread (``/turns``); at most one open per
    channel. ``entries`` is the order, each ``{"character_id", "name", "user_id", "roll"}``;
    ``held`` the positions skipped this round at their players' request."""

    __tablename__ = "turn_orders"
    __table_args__ = (
        Index(
            "uq_turn_orders_one_open",
            "channel_id",
            unique=True,
            sqlite_where=text("ended_at IS NULL"),
            postgresql_where=text("ended_at IS NULL"),
        ),
        CheckConstraint("position >= 0", name="position"),
        CheckConstraint("round >= 1", name="round"),
        CheckConstraint("turn_seconds IS NULL OR turn_seconds >= 60", name="turn_seconds"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    order_kind: Mapped[str] = mapped_column(String(12))
    entries: Mapped[Any] = mapped_column(JSON)
    held: Mapped[Any] = mapped_column(JSON)
    position: Mapped[int] = mapped_column(SmallInteger, default=0)
    round: Mapped[int] = mapped_column(Integer, default=1)
    turn_seconds: Mapped[int | None] = mapped_column(Integer)
    turn_started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


#: The tables, typed as :class:`Table` for Core statements in the services' hot paths.
campaigns = cast(Table, Campaign.__table__)
characters = cast(Table, Character.__table__)
character_scores = cast(Table, CharacterScore.__table__)
character_proficiencies = cast(Table, CharacterProficiency.__table__)
character_saves = cast(Table, CharacterSave.__table__)
pending_modifiers = cast(Table, PendingModifier.__table__)
ledger = cast(Table, LedgerRow.__table__)
ledger_chains = cast(Table, LedgerChain.__table__)
ledger_salts = cast(Table, LedgerSalt.__table__)
ledger_names = cast(Table, LedgerName.__table__)
ledger_stubs = cast(Table, LedgerStub.__table__)
log_checkpoints = cast(Table, LogCheckpoint.__table__)
bot_state = cast(Table, BotState.__table__)
scheduled_jobs = cast(Table, ScheduledJob.__table__)
notify_settings = cast(Table, NotifySetting.__table__)
turn_orders = cast(Table, TurnOrder.__table__)
