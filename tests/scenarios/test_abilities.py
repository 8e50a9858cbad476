"""/abilities roll | assign: Pen & Dagger ruling 8, every die attributed to its roller.

Tests bot/cogs/abilities.py.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from typing import Any

import pytest

from bot.services.kit.errors import InvalidValue
from bot.services.store import characters
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import (
    Table,
    answered_ephemeral,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)

#: One die as shown: "alice 5", struck through when dropped ("~~gm (GM) 2~~").
_DIE = re.compile(r"(~~)?([^·~]+?) (\d)(?:~~)?(?: · |$)")


def _scores(text: str) -> list[tuple[int, list[tuple[int, str, bool]]]]:
    """Each score's total and its dice as (value, roller, dropped)."""
    found = []
    for line in text.splitlines():
        if not line.startswith("Score "):
            continue
        _, total, value = line.split(": ", 2)
        parsed = [(int(m.group(3)), m.group(2), bool(m.group(1))) for m in _DIE.finditer(value)]
        found.append((int(total), parsed))
    return found


async def _members(table: Table, count: int) -> list[Any]:
    players = [table.alice, table.bob, table.carol]
    for n in range(len(players), count):
        players.append(table.guild.add_member(table.env.create_user(f"p{n + 1}")))
    return players[:count]


@pytest.mark.parametrize(
    ("count", "dice_each"),
    [(1, {"alice": 12, "gm (GM)": 12}), (3, None), (5, None), (8, None)],
)
async def test_group_generation_attributes_every_die(
    table: Table, count: int, dice_each: dict[str, int] | None
) -> None:
    await start_campaign(table, "pen-and-dagger")
    players = await _members(table, count)
    mentions = " ".join(p.mention for p in players)
    refused = await table.alice.slash(table.table, "abilities roll", players=mentions)
    assert answered_ephemeral(refused)
    assert "Only the campaign's GM" in final_answer(refused).content
    result = await table.gm.slash(table.table, "abilities roll", players=mentions)
    assert result.response is not None and not result.ephemeral
    text = message_text(result.response)
    scores = _scores(text)
    assert len(scores) == 6
    # One label per die: never "4 (gm (GM))".
    assert not re.search(r"\([^()]*\(", text), text
    rollers: Counter[str] = Counter()
    for total, dice in scores:
        assert len(dice) == 4 and sum(1 for d in dice if d[2]) == 1
        kept = sorted(v for v, _, dropped in dice if not dropped)
        dropped = next(v for v, _, d in dice if d)
        assert dropped <= min(kept) and total == sum(kept)
        rollers.update(name for _, name, _ in dice)
    names = [p.user.name for p in players]
    gm = "gm (GM)"
    expected_rollers = names + ([gm] if count % 2 else [])
    assert set(rollers) == set(expected_rollers)
    if count == 1:  # 2 rollers: each rolls 2d6 of every score
        assert rollers == Counter(dice_each)
    elif count == 3:  # 4 rollers: each rolls 1d6 of every score
        assert all(rollers[n] == 6 for n in expected_rollers)
        for _, dice in scores:
            assert [name for _, name, _ in dice] == expected_rollers
    elif count == 5:  # 6 rollers: each rolls all four dice of one score
        for n, (_, dice) in enumerate(scores):
            assert {name for _, name, _ in dice} == {expected_rollers[n]}
    else:  # 8 players: two halves of 4, three dice each, scores 1-3 by the first half
        assert all(rollers[n] == 3 for n in expected_rollers)
        first = {name for _, dice in scores[:3] for _, name, _ in dice}
        assert first == set(expected_rollers[:4])
    assert "Turn order: " + ", ".join(expected_rollers) in text


async def test_assign_sets_exactly_the_group_scores(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Ann", {})
    await table.gm.slash(
        table.table, "abilities roll", players=f"{table.alice.mention} {table.bob.mention}"
    )
    text = message_text(table.table.history()[-1])
    values = [total for total, _ in _scores(text)]
    order = dict(zip(["str", "dex", "con", "int", "wis", "cha"], values, strict=True))
    wrong = dict(order, cha=values[5] % 18 + 3 if values.count(values[5] % 18 + 3) == 0 else 3)
    if sorted(wrong.values()) != sorted(values):
        bad = await table.alice.slash(table.table, "abilities assign", **wrong)
        assert bad.ephemeral and "exactly once" in bad.response.content
    stranger = await table.carol.slash(table.table, "abilities assign", **order)
    assert stranger.ephemeral
    done = await table.alice.slash(table.table, "abilities assign", **order)
    assert done.response is not None and not done.ephemeral
    sheet = await table.alice.slash(table.table, "character show")
    sheet_text = message_text(sheet.response)
    for ability, value in order.items():
        assert f"**{ability.upper()}** {value} (" in sheet_text


async def test_generation_is_pen_and_dagger_only_and_needs_mentions(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    typo = await table.gm.slash(table.table, "abilities roll", players="alice bob")
    assert typo.ephemeral and "is not a mention" in typo.response.content
    ghost = await table.gm.slash(table.table, "abilities roll", players="<@999999999999>")
    assert answered_ephemeral(ghost)
    assert "not a member of this server" in final_answer(ghost).content


async def test_generation_is_refused_outside_pen_and_dagger(table: Table) -> None:
    await start_campaign(table, "d20-check")
    result = await table.gm.slash(table.table, "abilities roll", players=table.alice.mention)
    assert answered_ephemeral(result)
    assert "/abilities roll is for Pen & Dagger" in final_answer(result).content


async def _eighteens(table: Table) -> dict[str, int]:
    """A generation whose six scores are all 18 (every d6 a 6), for Ann (level 1)."""
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Ann", {})
    table.dice(*[6] * 24)
    rolled = await table.gm.slash(
        table.table, "abilities roll", players=f"{table.alice.mention} {table.bob.mention}"
    )
    assert rolled.response is not None
    assert [total for total, _ in _scores(message_text(rolled.response))] == [18] * 6
    return {"str": 18, "dex": 18, "con": 18, "int": 18, "wis": 18, "cha": 18}


async def test_a_racial_adjustment_that_hits_the_first_level_cap(table: Table) -> None:
    # "at 1st level no ability score can exceed 19" after racial adjustments: 18 + 2 = 20.
    scores = await _eighteens(table)
    over = await table.alice.slash(table.table, "abilities assign", racial="STR+2, DEX-1", **scores)
    assert over.ephemeral and over.response is not None
    assert "STR would be 20 after racial adjustments" in over.response.content
    assert "at 1st level no ability score can exceed 19" in over.response.content
    sheet = await table.alice.slash(table.table, "character show")
    assert "not set: STR, DEX, CON, INT, WIS, CHA" in message_text(sheet.response)
    # +1 reaches the cap exactly: 19 is allowed; the −1 applies too.
    done = await table.alice.slash(table.table, "abilities assign", racial="STR+1 DEX-1", **scores)
    assert done.response is not None and not done.ephemeral
    assert "After racial adjustments (STR+1, DEX−1): STR 19, DEX 17, CON 18" in (
        done.response.content
    )
    sheet = await table.alice.slash(table.table, "character show")
    text = message_text(sheet.response)
    assert "**STR** 19 (" in text and "**DEX** 17 (" in text
    assert "Level: 1 (no score above 19 at 1st level)" in text


async def test_a_bad_racial_adjustment_is_refused(table: Table) -> None:
    scores = await _eighteens(table)
    bad = await table.alice.slash(table.table, "abilities assign", racial="STR plus 2", **scores)
    assert bad.ephemeral and bad.response is not None
    assert "is not a racial adjustment: write them like STR+2, DEX-1" in bad.response.content


async def test_character_set_refuses_over_19_at_level_1(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Ann", {"STR": 19})
    refused = await table.alice.slash(table.table, "character set", ability="STR", value=25)
    assert refused.ephemeral and refused.response is not None
    assert "at 1st level no ability score can exceed 19" in refused.response.content
    sheet = await table.alice.slash(table.table, "character show")
    assert "**STR** 19 (" in message_text(sheet.response)
    # At level 2 the cap is gone; back to level 1 is refused while STR is above it.
    await table.alice.slash(table.table, "character level", value=2)
    done = await table.alice.slash(table.table, "character set", ability="STR", value=25)
    assert done.response is not None and "Score saved" in done.response.content
    back = await table.alice.slash(table.table, "character level", value=1)
    assert back.ephemeral and back.response is not None
    assert "Ann has STR 25" in back.response.content


async def test_level_1_and_a_score_over_its_cap_at_once_never_both_land(table: Table) -> None:
    # Pen & Dagger: at 1st level no score exceeds 19. /character level 1 and /character set
    # STR 25 at the same moment on a level-2 character: one of them is refused, never a
    # level-1 character with STR 25.
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Ann", {"STR": 15})
    await table.alice.slash(table.table, "character level", value=2)
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    ann = await characters.get_character(table.bot.db, campaign.id, "Ann")
    for attempt in range(5):
        await characters.set_level(table.bot.db, ann.id, 2)
        await characters.set_score(table.bot.db, ann.id, "STR", 15)
        results = await asyncio.gather(
            characters.set_level(table.bot.db, ann.id, 1),
            characters.set_score(table.bot.db, ann.id, "STR", 25),
            return_exceptions=True,
        )
        refused = [r for r in results if isinstance(r, InvalidValue)]
        assert len(refused) == 1, (attempt, results)
        after = await characters.get_character_by_id(table.bot.db, ann.id)
        assert not (after.level == 1 and after.scores["STR"] > 19)
