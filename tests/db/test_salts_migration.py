"""Migration 0008 on a database with rolls: salts move to ``ledger_salts``, older rows
keep verifying, and erasing a player who rolled before it leaves the log intact."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

from sqlalchemy import inspect, text

from bot.db.engine import Database, create_database
from bot.db.migrate import _migrate, downgrade_to, upgrade_to_head
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.rolling import rolls
from bot.services.store import campaigns
from bot.services.trust import gamelog, privacy, secrecy

GUILD, CHANNEL = 1_100_000_000_000_011, 2_200_000_000_000_022
SYBIL = 4_700_000_000_000_007
OTHER = 4_900_000_000_000_009


async def _format_1_rolls_before_0007(database: Database) -> None:
    """A campaign with a revealed blind roll (format 1 commitment) and two public rolls whose
    results name a character, as stored before migration 0007."""
    salt = "ab" * 32
    request = "/check ability:WIT character:Sybilla secret:blind"
    encoding = cm.legacy_encoding(
        roll_id=1,
        campaign_id=1,
        user_id=SYBIL,
        request=request,
        dice=[17],
        outcome={"roll": 17, "name": "Sybilla"},
        salt=salt,
    )
    revealed: object = "2026-01-03 00:00:00"
    if database.dialect == "postgresql":
        revealed = datetime(2026, 1, 3, tzinfo=UTC)
    truth = "TRUE" if database.dialect == "postgresql" else "1"
    false = "FALSE" if database.dialect == "postgresql" else "0"
    async with database.engine.begin() as connection:
        await connection.execute(
            text(
                "INSERT INTO campaigns (guild_id, channel_id, system, gm_role_ids,"
                " gm_user_ids, fortune_boon_default, crit_rules, tier_very_easy, tier_easy,"
                " tier_moderate, tier_hard, tier_very_hard, ability_names, created_at)"
                f" VALUES (:guild, :channel, 'roll-under', '[]', '[]', {false}, {false}, 3, 7,"
                ' 12, 17, 20, \'["STR", "AGI", "WIT"]\', \'2026-01-02 03:04:05\')'
            ),
            {"guild": GUILD, "channel": CHANNEL},
        )
        await connection.execute(
            text(
                "INSERT INTO characters (campaign_id, user_id, name, name_key, level, fortune,"
                f" double_fortune, in_party, is_active, created_at) VALUES (1, :user, 'Sybilla',"
                f" 'sybilla', 1, 0, {false}, {false}, {truth}, '2026-01-02 03:04:05')"
            ),
            {"user": SYBIL},
        )
        rows = [
            (SYBIL, request, "blind", json.dumps({"roll": 17, "name": "Sybilla"}), True),
            (
                SYBIL,
                "/roll dice:1d20 label:Sybilla runs",
                "public",
                json.dumps({"total": 4, "label": "Sybilla runs"}),
                False,
            ),
            (OTHER, "/roll dice:1d20", "public", json.dumps({"total": 9, "label": None}), False),
        ]
        for user, typed, visibility, outcome, hidden in rows:
            await connection.execute(
                text(
                    "INSERT INTO ledger (campaign_id, guild_id, channel_id, user_id, kind,"
                    " request, dice, outcome, visibility, created_at, commitment, salt,"
                    " revealed_at) VALUES (1, :guild, :channel, :user, 'check', :request,"
                    " '[17]', :outcome, :visibility, '2026-01-02 03:04:06', :commitment, :salt,"
                    " :revealed)"
                ),
                {
                    "guild": GUILD,
                    "channel": CHANNEL,
                    "user": user,
                    "request": typed,
                    "outcome": outcome,
                    "visibility": visibility,
                    "commitment": cm.sha256_hex(encoding) if hidden else None,
                    "salt": salt if hidden else None,
                    "revealed": revealed if hidden else None,
                },
            )


async def _format_2_rolls(database: Database) -> None:
    """At 0007: a blind roll of Sybil's, revealed, and a public one with her name in its label,
    sealed and chained as at migration 0007 (format 2: one ``who`` salt, results in clear)."""
    async with database.engine.begin() as connection:
        key = "campaign:1"
        head, last = (
            await connection.execute(
                text("SELECT head, last_number FROM ledger_chains WHERE key = :k"), {"k": key}
            )
        ).one()
        at = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
        for offset, (visibility, outcome) in enumerate(
            [("blind", {"roll": 5, "name": "Sybilla"}), ("public", {"label": "Sybilla hides"})]
        ):
            number = last + 1 + offset
            who_salt, salt = f"{offset}c" * 32, f"{offset}d" * 32
            request = "/check ability:WIT character:Sybilla"
            who = cm.who_digest(SYBIL, "Sybilla", request, who_salt)
            identity = cm.Identity(number, CHANNEL, GUILD, CHANNEL, at)
            commitment = None
            if visibility != "public":
                commitment = cm.sha256_hex(
                    cm.commitment_encoding(
                        identity, kind="check", who=who, dice=[5], outcome=outcome, salt=salt
                    )
                )
            entry = cm.entry_encoding(
                identity,
                kind="check",
                visibility=visibility,
                who=who,
                commitment=commitment,
                dice=[5],
                outcome=outcome,
            )
            head = cm.link(head, entry)
            await connection.execute(
                text(
                    "INSERT INTO ledger (campaign_id, character_name, guild_id, channel_id,"
                    " user_id, kind, request, dice, outcome, visibility, created_at, commitment,"
                    " salt, revealed_at, scope_id, number, who, who_salt, chain, format) VALUES"
                    " (1, 'Sybilla', :guild, :channel, :user, 'check', :request, '[5]', :outcome,"
                    " :visibility, :at, :commitment, :salt, :at, :channel, :number, :who,"
                    " :who_salt, :chain, 2)"
                ),
                {
                    "guild": GUILD,
                    "channel": CHANNEL,
                    "user": SYBIL,
                    "request": request,
                    "outcome": json.dumps(outcome),
                    "visibility": visibility,
                    "at": at if database.dialect == "postgresql" else at.replace(tzinfo=None),
                    "commitment": commitment,
                    "salt": salt if commitment else None,
                    "number": number,
                    "who": who,
                    "who_salt": who_salt,
                    "chain": head,
                },
            )
        await connection.execute(
            text("UPDATE ledger_chains SET head = :h, last_number = :n WHERE key = :k"),
            {"h": head, "n": last + 2, "k": key},
        )


async def test_format_1_and_2_rows_verify_after_0008_and_say_so_once_erased(empty_url: str) -> None:
    await _migrate(empty_url, "0006_ids_never_reused", downgrade=False)
    database = create_database(empty_url)
    try:
        await _format_1_rolls_before_0007(database)
        await _migrate(database.engine, "0007_ledger_chain", downgrade=False)
        await _format_2_rolls(database)
        await upgrade_to_head(database.engine)
        campaign = await campaigns.campaign_for_channel(database, GUILD, CHANNEL)
        assert (await gamelog.check_campaign_log(database, campaign)).intact
        player = Caller(user_id=OTHER, channel_id=CHANNEL, guild_id=GUILD)
        found = await secrecy.verify(database, player, 4)
        assert found.access.row.format == cm.WHO_FORMAT
        assert found.matches and found.who_ok is True  # its who salt moved with it

        done = await privacy.erase_user(database, SYBIL, GUILD)

        assert done.older_rows == 4
        log = await gamelog.check_campaign_log(database, campaign)
        assert log.intact and log.rolls == 5
        erased = await secrecy.verify(database, player, 4)
        assert erased.erased and not erased.matches
        async with database.engine.connect() as connection:
            rows = (await connection.execute(text("SELECT * FROM ledger"))).all()
        assert not [r for r in rows if "Sybilla" in repr(r) or str(SYBIL) in repr(r)]
    finally:
        await database.dispose()


async def _columns(database: Database, table: str) -> set[str]:
    async with database.engine.connect() as connection:
        found = await connection.run_sync(lambda c: inspect(c).get_columns(table))
    return {column["name"] for column in found}


async def test_salts_move_out_of_the_ledger_and_older_rows_survive_an_erasure(
    empty_url: str,
) -> None:
    await _migrate(empty_url, "0006_ids_never_reused", downgrade=False)
    database = create_database(empty_url)
    try:
        await _format_1_rolls_before_0007(database)
        await _migrate(database.engine, "0007_ledger_chain", downgrade=False)
        async with database.engine.connect() as connection:
            who_salts = dict(
                (await connection.execute(text("SELECT id, who_salt FROM ledger"))).all()
            )
        assert len(who_salts) == 3 and all(who_salts.values())

        await upgrade_to_head(database.engine)
        assert "who_salt" not in await _columns(database, "ledger")
        async with database.engine.connect() as connection:
            moved = dict(
                (
                    await connection.execute(
                        text("SELECT ledger_id, salt FROM ledger_salts WHERE field = '*'")
                    )
                ).all()
            )
        assert moved == who_salts
        campaign = await campaigns.campaign_for_channel(database, GUILD, CHANNEL)
        assert (await gamelog.check_campaign_log(database, campaign)).intact
        player = Caller(user_id=OTHER, channel_id=CHANNEL, guild_id=GUILD)
        found = await secrecy.verify(database, player, 1)
        assert found.matches and found.who_ok is None  # format 1 binds the roller directly
        # A roll made since is format 3 and chains on.
        sybil = Caller(user_id=SYBIL, channel_id=CHANNEL, guild_id=GUILD, interaction_id=77)
        await rolls.roll_dice(
            database, random.Random(1), sybil, "1d20", label="Sybilla again", request="/roll"
        )

        done = await privacy.erase_user(database, SYBIL, GUILD)

        assert done.rolls_erased == 3 and done.older_rows == 2
        log = await gamelog.check_campaign_log(database, campaign)
        assert log.intact and log.rolls == 4
        erased = await secrecy.verify(database, player, 1)
        assert erased.erased and not erased.matches
        async with database.engine.connect() as connection:
            texts = [
                json.dumps([str(v) for v in row])
                for table in ("ledger", "ledger_salts", "characters")
                for row in (await connection.execute(text(f"SELECT * FROM {table}"))).all()
            ]
            other = (
                await connection.execute(
                    text("SELECT request, outcome FROM ledger WHERE user_id = :u"), {"u": OTHER}
                )
            ).one()
        assert not [t for t in texts if "Sybilla" in t or str(SYBIL) in t]
        assert other[0] == "/roll dice:1d20"
    finally:
        await database.dispose()


async def test_0008_goes_down_again_while_no_roll_needs_it(empty_url: str) -> None:
    await _migrate(empty_url, "0006_ids_never_reused", downgrade=False)
    database = create_database(empty_url)
    try:
        await _format_1_rolls_before_0007(database)
        await _migrate(database.engine, "0007_ledger_chain", downgrade=False)
        async with database.engine.connect() as connection:
            before = (await connection.execute(text("SELECT id, who_salt FROM ledger"))).all()
        await upgrade_to_head(database.engine)
        await downgrade_to(database.engine, "0007_ledger_chain")
        async with database.engine.connect() as connection:
            after = (await connection.execute(text("SELECT id, who_salt FROM ledger"))).all()
        assert sorted(after) == sorted(before)
        assert "ledger_salts" not in await _tables(database)
    finally:
        await database.dispose()


async def _tables(database: Database) -> set[str]:
    async with database.engine.connect() as connection:
        return set(await connection.run_sync(lambda c: inspect(c).get_table_names()))
