"""Sealed pre-rolls (docs/prerolls.md): a player seals d20s nobody sees; the GM applies the
oldest to a check (`/gm check ... preroll:next`), which shows when it was sealed, and /verify
proves it.

Tests bot/cogs/preroll.py and bot/render/prerolls.py.
"""

from __future__ import annotations

import re

import pytest

from bot.services.rolling.prerolls import MAX_SEALED
from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import (
    Table,
    answered_ephemeral,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)

SCORES = {
    "pen-and-dagger": {"DEX": 12},
    "roll-under": {"AGI": 14},
    "threshold": {"DEX": 2},
    "d20-check": {"DEX": 14},
}
ABILITY = {"pen-and-dagger": "DEX", "roll-under": "AGI", "threshold": "DEX", "d20-check": "DEX"}
#: Options each system's check needs besides the ability.
NEEDS = {"threshold": {"dc": 12}}


async def _setup(table: Table, system: str = "d20-check") -> None:
    await start_campaign(table, system)
    await make_character(table, table.alice, "Ayla", SCORES[system])


async def _rows(table: Table) -> list[ledger.RollView]:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return list(reversed(await ledger.latest_rolls(table.bot.db, campaign.id, limit=100)))


_NOISE = re.compile(r"[0-9a-f]{64}|#\d+|roll:\d+|<t:\d+(:\w)?>")


def _shows_face(text: str, face: int) -> bool:
    """Whether ``face`` appears in ``text`` as a number of its own (digests, roll numbers
    and timestamps left out)."""
    return re.search(rf"\b{face}\b", _NOISE.sub(" ", text)) is not None


def _numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"#(\d+)", text)]


async def test_sealed_die_applied_by_the_gm_then_verified(table: Table) -> None:
    await _setup(table)
    table.dice(17)
    sealed = await table.alice.slash(table.table, "preroll")
    stub = message_text(final_answer(sealed))
    assert not answered_ephemeral(sealed)
    assert "Ayla seals 1 d20" in stub and re.search(r"`[0-9a-f]{64}`", stub)
    assert not _shows_face(stub, 17)
    (row,) = [r for r in await _rows(table) if r.kind == "preroll"]
    assert row.dice == [17] and row.revealed_at is None

    # Before it is applied: /verify shows only the commitment, to anyone, the roller included.
    for member in (table.alice, table.gm, table.bob):
        asked = await member.slash(table.table, "verify", roll=row.number)
        early = message_text(final_answer(asked))
        assert "sealed pre-roll" in early and row.commitment is not None
        assert row.commitment in early and not _shows_face(early, 17)

    table.dice(3)  # a fresh die would show 3: the check must use the sealed 17
    check = await table.gm.slash(
        table.table, "gm check", character="Ayla", ability="DEX", dc=15, preroll="next"
    )
    shown = message_text(final_answer(check))
    assert not answered_ephemeral(check)
    assert "Success" in shown and "**17**" in shown
    assert f"roll **#{row.number}**" in shown and "before this check was chosen" in shown
    assert row.commitment in shown
    rows = await _rows(table)
    applied = rows[-1]
    assert applied.kind == "check" and applied.dice == [17]
    assert applied.outcome["prerolls"] == [row.number]
    assert applied.visibility.value == "public"
    assert list(table.bot.rng.faces) == [3]  # type: ignore[attr-defined]  # no fresh die

    verified = message_text(
        final_answer(await table.bob.slash(table.table, "verify", roll=row.number))
    )
    assert "the commitment matches" in verified
    assert "the commitment in the stub message" in verified  # compared with the stub as shown

    # Used once: no pre-roll is left.
    again = await table.gm.slash(
        table.table, "gm check", character="Ayla", ability="DEX", dc=15, preroll="next"
    )
    assert answered_ephemeral(again)
    assert "no sealed pre-roll left" in message_text(final_answer(again))


@pytest.mark.parametrize("system", list(SCORES))
async def test_every_systems_check_takes_the_sealed_die(table: Table, system: str) -> None:
    """Each system's check is a d20, so a pre-roll stands for it: the same result as a fresh
    check on the same forced die."""
    await _setup(table, system)
    ability = ABILITY[system]
    needs = NEEDS.get(system, {})
    # An ordinary face: no critical, so no carry-over to the next test (threshold).
    table.dice(14)
    fresh = await table.gm.slash(
        table.table, "gm check", character="Ayla", ability=ability, secret="public", **needs
    )
    table.dice(14)
    await table.alice.slash(table.table, "preroll")
    table.dice(1)  # would be a fumble if drawn
    sealed = await table.gm.slash(
        table.table, "gm check", character="Ayla", ability=ability, preroll="next", **needs
    )
    rows = await _rows(table)
    fresh_row, sealed_row = rows[0], rows[-1]
    assert sealed_row.dice == fresh_row.dice == [14]
    assert {k: v for k, v in sealed_row.outcome.items() if k != "prerolls"} == fresh_row.outcome
    fresh_embed = final_answer(fresh).embeds[0]
    sealed_embed = final_answer(sealed).embeds[0]
    assert sealed_embed.description == fresh_embed.description  # the same result line
    assert "Sealed pre-roll" in message_text(final_answer(sealed))


async def test_advantage_uses_the_next_two_sealed_dice_oldest_first(table: Table) -> None:
    await _setup(table)
    table.dice(4, 18, 9)
    sealed = await table.alice.slash(table.table, "preroll", count=3)
    stub = message_text(final_answer(sealed))
    first, second, third = _numbers(stub.split("commitments (SHA-256)")[1])[:3]
    assert not any(_shows_face(stub, face) for face in (4, 18, 9))
    check = await table.gm.slash(
        table.table, "gm check", character="Ayla", ability="DEX", advantage=True, preroll="next"
    )
    shown = message_text(final_answer(check))
    assert "Sealed pre-rolls (the next two)" in shown
    assert f"#{first}" in shown and f"#{second}" in shown and f"#{third}" not in shown
    applied = (await _rows(table))[-1]
    assert applied.dice == [4, 18] and applied.outcome["prerolls"] == [first, second]
    # One die is left: advantage needs two, so it is refused and nothing changes.
    refused = await table.gm.slash(
        table.table, "gm check", character="Ayla", ability="DEX", disadvantage=True, preroll="next"
    )
    assert answered_ephemeral(refused)
    text = message_text(final_answer(refused))
    assert "1 sealed pre-roll left" in text and "uses the next two" in text
    rows = await _rows(table)
    assert rows[-1].id == applied.id
    (left,) = [r for r in rows if r.kind == "preroll" and r.revealed_at is None]
    assert left.number == third


async def test_nobody_may_reveal_a_sealed_pre_roll_by_hand(table: Table) -> None:
    await _setup(table)
    table.dice(11)
    await table.alice.slash(table.table, "preroll")
    (row,) = [r for r in await _rows(table) if r.kind == "preroll"]
    for member, command in ((table.alice, "reveal"), (table.gm, "reveal")):
        refused = await member.slash(table.table, command, roll=row.number)
        assert "sealed pre-roll" in message_text(final_answer(refused))
    (row,) = [r for r in await _rows(table) if r.kind == "preroll"]
    assert row.revealed_at is None
    # The roller's own history shows it hidden, with its commitment only.
    history = message_text(final_answer(await table.alice.slash(table.table, "history")))
    assert "preroll · hidden" in history and "dice 11" not in history


async def test_refusals_change_nothing(table: Table) -> None:
    await _setup(table)
    await make_character(table, table.bob, "Bram", {"DEX": 10})
    none_left = await table.gm.slash(
        table.table, "gm check", character="Ayla", ability="DEX", preroll="next"
    )
    assert "no sealed pre-roll left" in message_text(final_answer(none_left))
    table.dice(12)
    await table.alice.slash(table.table, "preroll")
    # A player cannot apply one (theirs or another's).
    for player in (table.alice, table.bob):
        refused = await player.slash(
            table.table, "gm check", character="Ayla", ability="DEX", preroll="next"
        )
        assert answered_ephemeral(refused)
        assert "GM" in message_text(final_answer(refused))
    # A hidden check with a pre-roll is refused, with the reason.
    hidden = await table.gm.slash(
        table.table, "gm check", character="Ayla", ability="DEX", preroll="next", secret="blind"
    )
    assert "is public" in message_text(final_answer(hidden))
    # Another character's dice are theirs: Bram has none.
    other = await table.gm.slash(
        table.table, "gm check", character="Bram", ability="DEX", preroll="next"
    )
    assert "Bram has no sealed pre-roll left" in message_text(final_answer(other))
    rows = await _rows(table)
    assert [r.kind for r in rows] == ["preroll"] and rows[0].revealed_at is None


async def test_at_most_ten_wait_per_character_and_the_list_shows_them(table: Table) -> None:
    await _setup(table)
    await make_character(table, table.bob, "Bram", {"DEX": 10})
    await table.alice.slash(table.table, "preroll", count=MAX_SEALED - 2)
    over = await table.alice.slash(table.table, "preroll", count=3)
    assert answered_ephemeral(over)
    text = message_text(final_answer(over))
    assert "already holds 8 sealed pre-rolls" in text and "Seal at most 2 now" in text
    await table.alice.slash(table.table, "preroll", count=2)
    full = await table.alice.slash(table.table, "preroll")
    assert "Nothing was sealed" in message_text(final_answer(full))
    await table.bob.slash(table.table, "preroll")
    listed = await table.carol.slash(table.table, "preroll-list")
    assert answered_ephemeral(listed)
    shown = message_text(final_answer(listed))
    assert "Ayla: 10" in shown and "Bram: 1" in shown
    rows = await _rows(table)
    assert sum(r.kind == "preroll" for r in rows) == MAX_SEALED + 1


async def test_a_player_without_a_character_is_told_how(table: Table) -> None:
    await start_campaign(table, "d20-check")
    refused = await table.bob.slash(table.table, "preroll")
    assert answered_ephemeral(refused)
    assert "/character create" in message_text(final_answer(refused))


async def test_a_name_with_markdown_renders_as_text(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await table.alice.slash(table.table, "character create", name="**@everyone**")
    await table.alice.slash(table.table, "character set", ability="DEX", value=10)
    sealed = await table.alice.slash(table.table, "preroll")
    stub = final_answer(sealed)
    text = message_text(stub)
    escaped = "\\*\\*@\u200beveryone\\*\\*"  # as bot/quoting.py escapes it
    assert escaped in text and "**@everyone**" not in text
    check = await table.gm.slash(
        table.table, "gm check", character="**@everyone**", ability="DEX", preroll="next"
    )
    shown = message_text(final_answer(check))
    assert escaped in shown and "**@everyone**" not in shown
