"""Provably fair dice through the real commands (docs/fair-dice.md): the hash published at
setup and in /campaign show, /me seed, /campaign seed rotate revealing the seed to the table,
/verify roll recomputing the faces and /verify seed checking the revealed seed.

Tests bot/render/fair.py.
"""

from __future__ import annotations

import hashlib
import re

import pytest

from bot.dice.fair import player_key, scoped_key
from bot.services.trust import fairness
from tests.fixtures.table import (
    Table,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)
from tests.scenarios.test_secrecy import _latest

#: Production's dice, not a scripted source: these tests check what players would.
pytestmark = pytest.mark.fair_dice


def _hash(text: str) -> str:
    (found,) = re.findall(r"Dice seed \d+: SHA-256 `([0-9a-f]{64})`", text)
    return str(found)


async def test_seed_hash_published_rotated_revealed_and_rolls_recomputed(table: Table) -> None:
    setup = await table.admin.slash(
        table.table, "campaign setup", system="d20-check", gm_role=table.gm_role
    )
    assert setup.response is not None
    published = _hash(setup.response.content)
    shown = await table.alice.slash(table.table, "campaign show")
    assert _hash(final_answer(shown).content) == published

    seeded = await table.alice.slash(table.table, "me seed set", text="owlbear at dawn")
    answer = final_answer(seeded)
    assert answer.ephemeral and "owlbear at dawn" in answer.content
    assert player_key("owlbear at dawn").hex() in answer.content
    # A seed is the player's own text: shown quoted and escaped, never as markdown.
    marked = final_answer(await table.alice.slash(table.table, "me seed set", text="`**x**` <@1>"))
    assert "**x**" not in marked.content and "\\*\\*x\\*\\*" in marked.content
    await table.alice.slash(table.table, "me seed set", text="owlbear at dawn")

    rolled = await table.alice.slash(table.table, "roll", dice="4d6kh3")
    assert rolled.response is not None
    row = await _latest(table)
    assert row.outcome["fair"]["seed_hash"] == published
    scope = f"campaign:{row.campaign_id}"
    assert row.outcome["fair"]["player"] == scoped_key(player_key("owlbear at dawn"), scope).hex()

    early = await table.bob.slash(table.table, "verify", roll=row.number)
    assert "not revealed yet" in message_text(final_answer(early))

    refused = await table.alice.slash(table.table, "campaign seed rotate")
    assert "GM" in message_text(final_answer(refused))
    rotated = await table.gm.slash(table.table, "campaign seed rotate")
    text = final_answer(rotated).content
    assert not final_answer(rotated).ephemeral  # the whole table sees the revealed seed
    (seed,) = re.findall(r"revealed: `([0-9a-f]{64})`", text)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == published
    assert _hash(text) != published

    checked = await table.bob.slash(table.table, "verify", roll=row.number)
    assert "Fair dice: ✅" in message_text(final_answer(checked))
    good = await table.bob.slash(table.table, "verify", seed=seed)
    assert "✅" in final_answer(good).content
    bad = await table.bob.slash(table.table, "verify", seed="00" * 32)
    assert "❌" in final_answer(bad).content
    nonsense = await table.bob.slash(table.table, "verify", seed="not a seed")
    assert "64 hexadecimal" in message_text(final_answer(nonsense))


async def test_me_seed_show_and_random(table: Table) -> None:
    await start_campaign(table, "d20-check")
    empty = await table.bob.slash(table.table, "me seed show")
    assert "not set a dice seed" in final_answer(empty).content
    chosen = await table.bob.slash(table.table, "me seed set")
    (key,) = re.findall(r"Your key: `([0-9a-f]{64})`", final_answer(chosen).content)
    again = await table.bob.slash(table.table, "me seed show")
    assert key in final_answer(again).content and final_answer(again).ephemeral


async def test_me_seed_show_gives_the_key_this_campaigns_rolls_record(table: Table) -> None:
    """A player recomputes their own rolls from what /me seed show tells them."""
    await start_campaign(table, "d20-check")
    await table.alice.slash(table.table, "me seed set", text="owlbear at dawn")
    shown = final_answer(await table.alice.slash(table.table, "me seed show")).content
    (here,) = re.findall(r"record \((campaign:\d+)\): `([0-9a-f]{64})`", shown)
    await table.alice.slash(table.table, "roll", dice="2d6")
    row = await _latest(table)
    assert here == (row.outcome["fair"]["scope"], row.outcome["fair"]["player"])
    assert here[1] == scoped_key(player_key("owlbear at dawn"), here[0]).hex()


async def test_a_due_seed_is_revealed_to_the_table_after_the_roll_that_used_it(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fairness, "MAX_USES", 1)
    await start_campaign(table, "d20-check")
    shown = await table.alice.slash(table.table, "campaign show")
    published = _hash(final_answer(shown).content)
    rolled = await table.alice.slash(table.table, "roll", dice="1d20")
    (notice,) = [m for m in rolled.followups if "revealed" in (m.content or "")]
    assert not notice.ephemeral
    (seed,) = re.findall(r"revealed: `([0-9a-f]{64})`", notice.content)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == published
    # A self roll is not announced: the channel does not see it happen.
    hidden = await table.alice.slash(table.table, "roll", dice="1d20", secret="self")
    assert not [m for m in hidden.followups if "revealed" in (m.content or "")]


async def test_a_check_draws_fair_d20s_and_announces_a_due_rotation(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fairness, "MAX_USES", 1)
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    checked = await table.alice.slash(table.table, "check", ability="DEX", advantage=True)
    assert checked.response is not None
    row = await _latest(table)
    assert row.outcome["fair"]["dice"] == "d20" and len(row.dice) == 2
    (notice,) = [m for m in checked.followups if "revealed" in (m.content or "")]
    assert not notice.ephemeral
    verified = await table.bob.slash(table.table, "verify", roll=row.number)
    assert "Fair dice: ✅" in message_text(final_answer(verified))


async def test_a_hidden_fair_attack_stays_hidden_until_revealed(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blind /gm attack draws fair dice; its damage and its blinding value appear nowhere the
    table reads, its seed's reveal included, until the GM reveals it; then it recomputes."""
    monkeypatch.setattr(fairness, "MAX_USES", 1)  # the attack uses its seed up: a rotation
    await start_campaign(table, "d20-check")
    attacked = await table.gm.slash(
        table.table, "gm attack", ac=1, attacker_bonus=5, monster="Ogre", damage="1d4+900"
    )
    assert attacked.response is not None
    row = await _latest(table)
    record = row.outcome["fair"]
    assert record["dice"] == fairness.ATTACK_DRAWS and record["parts"] == ["d20", "damage"]
    damage = str(row.outcome["damage"]["total"])
    public = "\n".join(message_text(m) for m in table.table.history(viewer=table.bob))
    assert record["blind"] not in public
    # Outside the hashes the table reads (seed hashes, commitments: random hex, which holds
    # any three digits now and then), the damage's total appears nowhere.
    assert damage not in re.sub(r"[0-9a-f]{16,}", "<hash>", public)
    refused = await table.bob.slash(table.table, "verify", roll=row.number)
    assert "hidden" in message_text(final_answer(refused))
    await table.gm.slash(table.table, "reveal", roll=row.number)
    checked = await table.bob.slash(table.table, "verify", roll=row.number)
    assert "Fair dice: ✅" in message_text(final_answer(checked))
