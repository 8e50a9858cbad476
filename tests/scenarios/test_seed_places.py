"""Provably fair dice outside campaigns (docs/fair-dice.md): a channel without a campaign and
a DM with the bot have their own seed, shown before use with /seed show, rotated by whoever
owns the place (a member with Manage Channels; in a DM its person), and checked with /verify;
/verify roll says where a visible roll was drawn, and nothing about a hidden one.

Tests bot/cogs/seed.py.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import discord
import pytest
from sqlalchemy import select

from bot.db.models import ledger
from tests.fixtures.table import Table, final_answer, message_text, start_campaign

#: Production's dice: these tests check what players would see.
pytestmark = pytest.mark.fair_dice


def _hash(text: str) -> str:
    (found,) = re.findall(r"Dice seed \d+: SHA-256 `([0-9a-f]{64})`", text)
    return str(found)


def _revealed(text: str) -> str:
    (found,) = re.findall(r"revealed: `([0-9a-f]{64})`", text)
    return str(found)


async def _latest(table: Table) -> Any:
    """The newest roll of the bot's ledger, wherever it was made."""
    async with table.bot.db.engine.connect() as conn:
        return (await conn.execute(select(ledger).order_by(ledger.c.id.desc()).limit(1))).one()


async def test_a_dm_seed_is_shown_before_use_rotated_by_its_person_and_verified(
    table: Table,
) -> None:
    alice = table.alice.user
    shown = final_answer(await alice.slash("seed show"))
    assert shown.ephemeral
    published = _hash(shown.content)
    rolled = await alice.slash("roll", dice="3d6")
    row = await _latest(table)
    assert row.outcome["fair"]["seed_hash"] == published  # the hash shown before the roll
    assert not [m for m in rolled.followups if "revealed" in (m.content or "")]
    early = final_answer(await alice.slash("verify", roll=row.number))
    assert "not revealed yet" in message_text(early) and "/seed rotate" in message_text(early)

    rotated = final_answer(await alice.slash("seed rotate"))
    seed = _revealed(rotated.content)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == published
    assert _hash(rotated.content) != published
    checked = message_text(final_answer(await alice.slash("verify", roll=row.number)))
    assert "Fair dice: ✅" in checked
    assert f"`channel:{alice.dm_channel.id}` draw 1" in checked
    good = final_answer(await alice.slash("verify", seed=seed))
    assert "✅" in good.content
    # /seed show now shows the revealed seed too.
    again = final_answer(await alice.slash("seed show"))
    assert seed in again.content and _hash(again.content) == _hash(rotated.content)


async def test_the_first_roll_of_a_fresh_place_reveals_its_seed_and_publishes_the_next(
    table: Table,
) -> None:
    """No hash could be shown before the first roll of a place nobody asked about: its seed
    is revealed right after it, and the next rolls draw from a seed whose hash came first."""
    first = await table.bob.slash(table.table, "roll", dice="1d20")
    row = await _latest(table)
    (notice,) = [m for m in first.followups if "revealed" in (m.content or "")]
    assert not notice.ephemeral and "first roll" in notice.content
    seed = _revealed(notice.content)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == row.outcome["fair"]["seed_hash"]
    following = _hash(notice.content)
    second = await table.carol.slash(table.table, "roll", dice="1d20")
    assert not [m for m in second.followups if "revealed" in (m.content or "")]
    assert (await _latest(table)).outcome["fair"]["seed_hash"] == following
    # The first roll is checkable at once (its seed is revealed).
    checked = message_text(
        final_answer(await table.alice.slash(table.table, "verify", roll=row.number))
    )
    assert "Fair dice: ✅" in checked and f"`channel:{table.table.id}` draw 1" in checked


async def test_a_channel_seed_is_rotated_only_by_a_member_who_manages_the_channel(
    table: Table,
) -> None:
    published = _hash(final_answer(await table.bob.slash(table.table, "seed show")).content)
    await table.bob.slash(table.table, "roll", dice="2d6")
    row = await _latest(table)
    refused = final_answer(await table.bob.slash(table.table, "seed rotate"))
    assert refused.ephemeral and "Manage Channels" in refused.content
    assert _hash(final_answer(await table.bob.slash(table.table, "seed show")).content) == published
    assert "not revealed yet" in message_text(
        final_answer(await table.bob.slash(table.table, "verify", roll=row.number))
    )
    keeper = table.guild.add_member(
        table.env.create_user("dana"),
        roles=[
            table.guild.create_role("Keeper", permissions=discord.Permissions(manage_channels=True))
        ],
    )
    rotated = final_answer(await keeper.slash(table.table, "seed rotate"))
    assert not rotated.ephemeral
    assert hashlib.sha256(bytes.fromhex(_revealed(rotated.content))).hexdigest() == published
    assert "Fair dice: ✅" in message_text(
        final_answer(await table.bob.slash(table.table, "verify", roll=row.number))
    )


async def test_in_a_campaign_seed_rotate_is_the_gms(table: Table) -> None:
    await start_campaign(table, "d20-check")
    published = _hash(final_answer(await table.alice.slash(table.table, "seed show")).content)
    refused = final_answer(await table.alice.slash(table.table, "seed rotate"))
    assert refused.ephemeral and "GM" in refused.content
    rotated = final_answer(await table.gm.slash(table.table, "seed rotate"))
    assert hashlib.sha256(bytes.fromhex(_revealed(rotated.content))).hexdigest() == published


async def test_verify_says_where_a_visible_roll_was_drawn_and_nothing_of_a_hidden_one(
    table: Table,
) -> None:
    await start_campaign(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="1d20")
    public = await _latest(table)
    await table.alice.slash(table.table, "roll", dice="1d20", secret="self")
    hidden = await _latest(table)
    scope = f"campaign:{public.campaign_id}"
    mine = message_text(
        final_answer(await table.bob.slash(table.table, "verify", roll=public.number))
    )
    assert f"`{scope}` draw {public.outcome['fair']['draw']}" in mine
    theirs = message_text(
        final_answer(await table.bob.slash(table.table, "verify", roll=hidden.number))
    )
    assert "Drawn at" not in theirs and scope not in theirs
    own = message_text(
        final_answer(await table.alice.slash(table.table, "verify", roll=hidden.number))
    )
    assert f"`{scope}` draw {hidden.outcome['fair']['draw']}" in own
