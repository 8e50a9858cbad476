"""Erasing a person changes only what is theirs or names them by id, and leaves no residue, on
SQLite and PostgreSQL (docs/privacy.md, "Erasing your data").

- A character named after a word everyone types ("Dex", "True", "Blind", "Stealth") erases
  nobody else's commands.
- Another player's post bound to a roll that names the erased character ("helped by
  Zephyrine") loses those copies, and the post's digest of its text goes with them; the log
  still verifies and the post can still be edited.
- No unsalted digest of erased text is left (a post's ``sha256``), and on SQLite the erased
  text is in no byte of the database's files.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import RuleSystem, ledger, ledger_names
from bot.db.post_models import post_rolls, post_versions
from bot.db.schema import metadata
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.rolling import checks, rolls
from bot.services.store.campaigns import CampaignView, setup_campaign
from bot.services.store.characters import create_character, set_proficiency, set_score
from bot.services.table import posts
from bot.services.trust import gamelog, privacy
from tests.scripted import ScriptedRandom
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GM_USER, GUILD

_ids = itertools.count(7_100_000_000_000_000)
ZEPH = "Zephyrine"
AYLA = "Ayla"


def caller(user_id: int) -> Caller:
    roles = frozenset({GM_ROLE}) if user_id == GM_USER else frozenset()
    return Caller(
        user_id=user_id,
        channel_id=CHANNEL,
        guild_id=GUILD,
        role_ids=roles,
        interaction_id=next(_ids),
        display_name={ALICE: "Alice", BOB: "Bob", GM_USER: "Gemma"}[user_id],
    )


async def rows_of(db: Database, user_id: int) -> list[dict[str, Any]]:
    async with db.sessionmaker() as session:
        stmt = select(ledger).where(ledger.c.user_id == user_id).order_by(ledger.c.id)
        return [dict(r._mapping) for r in await session.execute(stmt)]


async def every_value(db: Database) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    async with db.sessionmaker() as session:
        for table in metadata.sorted_tables:
            for row in await session.execute(select(table)):
                for value in row:
                    if value is not None:
                        found.append((table.name, json.dumps(value, default=str)))
    return found


@pytest.mark.parametrize("name", ["Dex", "True", "Blind", "Stealth", "Check", "Alice"])
async def test_a_name_everyone_types_erases_nobody_elses_commands(
    db: Database, d20_campaign: CampaignView, name: str
) -> None:
    # Bob names his character after a word of everyone's commands, or after Alice; Alice
    # rolls with that word in her command, her label and her note; Bob erases his data.
    ayla = await create_character(db, d20_campaign.id, ALICE, AYLA)
    bob = await create_character(db, d20_campaign.id, BOB, name)
    for hero in (ayla, bob):
        await set_score(db, hero.id, "DEX", 14)
    await set_proficiency(db, ayla.id, "Stealth", degree=1)
    await checks.perform_check(
        db,
        ScriptedRandom(then=12),
        caller(ALICE),
        checks.CheckOptions(ability="DEX", proficiency="Stealth"),
        "/check ability:DEX proficiency:Stealth secret:blind",
    )
    await rolls.roll_dice(
        db,
        ScriptedRandom(then=12),
        caller(ALICE),
        "1d20 # true blind luck",
        label=f"{name} watches",
        request=f"/roll dice:1d20 label:{name} watches",
    )
    await checks.perform_check(
        db, ScriptedRandom(then=9), caller(BOB), checks.CheckOptions(ability="DEX"), "/check"
    )
    alice_rows = await rows_of(db, ALICE)

    await privacy.erase_user(db, BOB, GUILD, names=["Bob"])

    assert await rows_of(db, ALICE) == alice_rows
    assert (await gamelog.check_campaign_log(db, d20_campaign)).intact


async def test_a_bound_copy_in_another_players_post_names_nobody_after_erasure(
    db: Database, d20_campaign: CampaignView
) -> None:
    ayla = await create_character(db, d20_campaign.id, ALICE, AYLA)
    zeph = await create_character(db, d20_campaign.id, BOB, ZEPH)
    for hero in (ayla, zeph):
        await set_score(db, hero.id, "DEX", 14)
    words = f"Ayla waves to {ZEPH} and picks the lock: "
    text_ = f"{words}[[check DEX helper:{ZEPH}]] then [[1d6]]."
    post = await posts.create_post(db, caller(ALICE), text_, ScriptedRandom(then=11))
    async with db.sessionmaker() as session:
        bound = [
            r.detail
            for r in await session.execute(
                select(post_rolls.c.detail).where(post_rolls.c.post_id == post.id)
            )
        ]
        named = list(await session.execute(select(ledger_names.c.user_id, ledger_names.c.name)))
    assert any(ZEPH in d for d in bound)  # the copy names her: "helped by Zephyrine"
    assert (BOB, ZEPH) in [tuple(n) for n in named]  # and the roll names Bob by id

    await privacy.erase_user(db, BOB, GUILD)

    async with db.sessionmaker() as session:
        copies = list(
            await session.execute(
                select(post_rolls.c.position, post_rolls.c.source, post_rolls.c.detail)
                .where(post_rolls.c.post_id == post.id)
                .order_by(post_rolls.c.position)
            )
        )
        versions = list(
            await session.scalars(
                select(post_versions.c.text).where(post_versions.c.post_id == post.id)
            )
        )
    assert next((c.source, c.detail) for c in copies) == (cm.TOMBSTONE, cm.TOMBSTONE)
    assert copies[1].source == "1d6"  # her other roll's copy is hers and stays
    # Her own words stay hers; the [[...]] that named Zephyrine does not.
    assert versions == [f"{words}[[{cm.TOMBSTONE}]] then [[1d6]]."]
    # The roll names nobody; the post's digest of its old text is gone too.
    leftovers = [
        (t, v)
        for t, v in await every_value(db)
        if ZEPH in v and not (t == "post_versions" and v == json.dumps(versions[0]))
    ]
    assert leftovers == []
    digest = hashlib.sha256(text_.encode()).hexdigest()
    assert [v for _, v in await every_value(db) if digest in v] == []
    assert (await gamelog.check_campaign_log(db, d20_campaign)).intact
    # Alice can still edit her post (its rolls kept as they are).
    edited = await posts.edit_post(
        db, caller(ALICE), post.id, f"Later: [[{cm.TOMBSTONE}]] then [[1d6]]!"
    )
    assert edited.version == 2


async def test_no_unsalted_digest_of_an_erased_post_is_left(
    db: Database, d20_campaign: CampaignView
) -> None:
    await create_character(db, d20_campaign.id, BOB, ZEPH)
    text_ = "Zephyrine slips away into the night, the letter in her sleeve."
    post = await posts.create_post(db, caller(BOB), text_, ScriptedRandom(then=11))
    edit = "Zephyrine slips away, the letter burnt."
    await posts.edit_post(db, caller(BOB), post.id, edit)
    for words in (text_, edit):
        digest = hashlib.sha256(words.encode()).hexdigest()
        assert [t for t, v in await every_value(db) if digest in v]  # there before

    await privacy.erase_user(db, BOB, GUILD)

    for words in (text_, edit):
        digest = hashlib.sha256(words.encode()).hexdigest()
        assert [t for t, v in await every_value(db) if digest in v] == []
    assert (await gamelog.check_campaign_log(db, d20_campaign)).intact


async def test_sqlite_forgets_erased_text_in_its_files(database_url: str, tmp_path: Path) -> None:
    """``secure_delete`` on every connection, whatever the build's default, and the
    write-ahead log truncated: the erased words are in no byte of the database's files."""
    from bot.db.engine import create_database

    db = create_database(database_url)
    try:
        async with db.engine.connect() as connection:
            assert (await connection.exec_driver_sql("PRAGMA secure_delete")).scalar() == 1
        campaign = await setup_campaign(
            db, GUILD, CHANNEL, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE]
        )
        secret_name = "Quillonrexa"
        words = "The-unmistakable-words-of-a-post-nobody-must-read-again"
        label = "a-label-only-bob-wrote"
        hero = await create_character(db, campaign.id, BOB, secret_name)
        await set_score(db, hero.id, "DEX", 12)
        await posts.create_post(db, caller(BOB), f"{words} [[1d20]]", ScriptedRandom(then=3))
        await rolls.roll_dice(
            db, ScriptedRandom(then=4), caller(BOB), "1d20", label=label, request="/roll"
        )
        await privacy.erase_user(db, BOB, GUILD)
        # Read while the bot still runs (closing the last connection would checkpoint).
        path = Path(database_url.removeprefix("sqlite+aiosqlite:///"))
        files = [p for p in path.parent.iterdir() if p.name.startswith(path.name)]
        blob = b"".join(p.read_bytes() for p in files)
    finally:
        await db.dispose()
    for erased in (secret_name, words, label):
        assert erased.encode() not in blob, erased


async def test_show_counts_the_rolls_of_others_that_name_them(
    db: Database, d20_campaign: CampaignView
) -> None:
    await create_character(db, d20_campaign.id, ALICE, AYLA)
    zeph = await create_character(db, d20_campaign.id, BOB, ZEPH)
    await set_score(db, zeph.id, "DEX", 12)
    await checks.perform_gm_check(
        db,
        ScriptedRandom(then=5),
        caller(GM_USER),
        ZEPH,
        checks.CheckOptions(ability="DEX"),
        f"/gm check character:{ZEPH} ability:DEX",
    )
    (here,) = (await privacy.stored_data(db, BOB)).servers
    assert here.named_in == 1 and here.rolls == 0
    (before,) = await rows_of(db, GM_USER)
    await privacy.erase_user(db, BOB, GUILD)
    (after,) = await rows_of(db, GM_USER)
    # The GM's row keeps its author, dice and result; the name it named Bob by goes (and the
    # character's id, as every row's does when a character is deleted).
    assert after["character_name"] == cm.TOMBSTONE and after["request"] == cm.TOMBSTONE
    assert after["outcome"]["name"] == cm.TOMBSTONE
    assert tombstoned_only(before["outcome"], after["outcome"])
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {"character_name", "request", "outcome", "character_id"}
    assert (await privacy.stored_data(db, BOB)).empty


def tombstoned_only(before: Any, after: Any) -> bool:
    """``after`` is ``before`` with some strings replaced by the tombstone, nothing else."""
    if isinstance(before, dict) and isinstance(after, dict):
        return before.keys() == after.keys() and all(
            tombstoned_only(before[k], after[k]) for k in before
        )
    if isinstance(before, list) and isinstance(after, list):
        return len(before) == len(after) and all(
            tombstoned_only(b, a) for b, a in zip(before, after, strict=True)
        )
    return before == after or (isinstance(before, str) and after == cm.TOMBSTONE)
