"""Every later view of a roll says its result in its system's words.

/gm reveal, /verify, /history and /gm log read the ledger row; each system's hidden roll,
once revealed, shows there what the live message showed. Until then a viewer who may not
see it gets a stub that is the same whatever the die was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.services.store import ledger
from bot.services.store.ledger import RollView
from tests.fixtures.table import Table, make_character, message_text, start_campaign
from tests.scenarios.test_secrecy import _latest, private_gm_channel

#: What differs between two rolls' stubs whatever their dice: ids, digests, times, mentions.
_MASK = re.compile(r"[0-9a-f]{64}|<t:\d+:R>|<[@#&]!?\d+>|#\d+|roll:\d+")


def masked(shown: str) -> str:
    return _MASK.sub("_", shown)


@dataclass(frozen=True)
class Case:
    system: str
    scores: dict[str, int]
    command: str
    options: dict[str, Any]
    #: The d20 of each of two hidden rolls (None: a generic roll, not scripted).
    faces: tuple[int | None, int | None]
    #: What an entitled viewer reads of each (None: the total, read from the row).
    words: tuple[str, str] | None
    #: Words this system never uses.
    never: tuple[str, ...] = field(default=())


CASES = {
    "pen-and-dagger attempt": Case(
        "pen-and-dagger",
        {"DEX": 14},
        "check",
        {"ability": "DEX"},
        (15, 3),
        ("d20 **15** · Rank Adept → **Major Success**", "d20 **3** · Rank Adept → **Failure**"),
    ),
    "pen-and-dagger luck": Case(
        "pen-and-dagger",
        {"DEX": 14},
        "luck",
        {},
        (13, 4),
        (
            "d20 **13** (lucky on 10 or higher) → **Lucky**",
            "d20 **4** (lucky on 10 or higher) → **Not lucky**",
        ),
    ),
    "roll-under": Case(
        "roll-under",
        {"AGI": 10},
        "check",
        {"ability": "AGI"},
        (7, 13),
        ("d20 **7** against AGI 10 → **Pass**", "d20 **13** against AGI 10 → **Fail**"),
    ),
    "threshold": Case(
        "threshold",
        {"STR": 2},
        "check",
        {"ability": "STR", "difficulty": "hard"},
        (16, 10),
        (
            "d20 16 +2 STR = **18** · Threshold 17 (Hard) → **Success**",
            "d20 10 +2 STR = **12** · Threshold 17 (Hard) → **Failure**",
        ),
        never=("DC",),
    ),
    "d20-check": Case(
        "d20-check",
        {"DEX": 14},
        "check",
        {"ability": "DEX", "dc": 15},
        (13, 4),
        (
            "d20 13 +2 DEX = **15** · DC 15 → **Success**",
            "d20 4 +2 DEX = **6** · DC 15 → **Failure**",
        ),
    ),
    "generic roll": Case("d20-check", {}, "roll", {"dice": "1d20+1000"}, (None, None), None),
}


async def _table_with_gm_channel(table: Table, case: Case) -> Any:
    await start_campaign(table, case.system)
    gm_channel = private_gm_channel(table)
    done = await table.gm.slash(table.table, "campaign set gm-channel", channel=gm_channel)
    assert done.response is not None and "Setting saved" in done.response.content
    await make_character(table, table.alice, "Ayla", case.scores)
    return gm_channel


async def _ask(table: Table, viewer: Any, command: str, **options: Any) -> str:
    answer = await viewer.slash(table.table, command, **options)
    assert answer.response is not None and answer.ephemeral
    return message_text(answer.response)


def line_of(page: str, row: RollView) -> str:
    """The /history or /gm log line of ``row`` (with its request line in the GM log)."""
    lines = page.splitlines()
    for n, line in enumerate(lines):
        if line.startswith(f"**#{row.number}** "):
            request = lines[n + 1 : n + 2]
            return "\n".join([line, *(r for r in request if r.startswith("  `"))])
    raise AssertionError(f"roll #{row.number} is not on the page:\n{page}")


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
async def test_a_revealed_hidden_roll_shows_its_outcome_in_every_view(
    table: Table, case: Case
) -> None:
    gm_channel = await _table_with_gm_channel(table, case)
    rows: list[RollView] = []
    for face in case.faces:
        if face is not None:
            table.dice(face)
        await table.alice.slash(table.table, case.command, secret="blind", **case.options)
        rows.append(await _latest(table))
    if case.words is None:
        totals = [int(r.outcome["total"]) for r in rows]
        assert totals[0] != totals[1], "the seeded dice give two different totals"
        words = (f"**Total: {totals[0]}**", f"**Total: {totals[1]}**")
    else:
        words = case.words
    live = "\n".join(message_text(m) for m in gm_channel.history())
    for said in words:  # the GM's live copy says the same result words
        assert said.rsplit("→ ", 1)[-1] in live

    # Nobody but the GM may see a blind roll: the roller and a third player get stubs that
    # are the same whatever the die was, and none of the result words.
    shown_to_players: list[str] = []
    for viewer in (table.alice, table.bob):
        page = await _ask(table, viewer, "history")
        stubs = [masked(line_of(page, r)) for r in rows]
        assert stubs[0] == stubs[1] and "hidden (blind)" in stubs[0], page
        verified = [masked(await _ask(table, viewer, "verify", roll=r.number)) for r in rows]
        assert verified[0] == verified[1] and "still hidden" in verified[0]
        shown_to_players += [page, *verified]
    for said in words:
        assert not any(said in shown for shown in shown_to_players)

    log = await _ask(table, table.gm, "gm log")
    for row, said in zip(rows, words, strict=True):
        assert said in line_of(log, row), log

    revealed = await table.gm.slash(table.table, "reveal", roll=rows[0].number)
    assert revealed.response is not None and not revealed.ephemeral
    views = {"reveal": message_text(revealed.response)}
    views["verify"] = await _ask(table, table.bob, "verify", roll=rows[0].number)
    assert "the commitment matches" in views["verify"]
    page = await _ask(table, table.bob, "history")
    views["history"] = line_of(page, rows[0])
    assert masked(line_of(page, rows[1])) == stubs[1]  # the other one is still a stub
    views["gm log"] = line_of(await _ask(table, table.gm, "gm log"), rows[0])
    for view, shown in views.items():
        assert words[0] in shown, (view, shown)
        assert words[1] not in shown, (view, shown)
        for word in case.never:
            assert not re.search(rf"\b{word}\b", shown), (view, shown)


async def test_the_gm_copy_of_a_hidden_natural_20_offers_no_trade(table: Table) -> None:
    """The choice is the player's, and none is made while the roll is hidden (README)."""
    gm_channel = await _table_with_gm_channel(table, CASES["pen-and-dagger attempt"])
    for mode in ("blind", "gm"):
        table.dice(20)
        await table.alice.slash(table.table, "check", ability="DEX", secret=mode)
    table.dice(20)
    await table.alice.slash(table.table, "luck", secret="blind")
    table.dice(20)
    gm_check = await table.gm.slash(table.table, "gm check", character="Ayla", ability="DEX")
    copies = [message_text(m) for m in gm_channel.history()]
    copies += [message_text(m) for m in gm_check.followups]
    assert len(copies) == 5
    for copy in copies:
        assert "you may" not in copy, copy
        assert "no trade for a fortune die before it is revealed" in copy, copy
    assert sum("A critical while the roll is hidden" in c for c in copies) == 4
    assert sum("Lucky while the roll is hidden" in c for c in copies) == 1


async def test_verify_sends_a_self_roll_to_its_roller_for_reveal(table: Table) -> None:
    await _table_with_gm_channel(table, CASES["d20-check"])
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="self")
    row = await _latest(table)
    total = f"**Total: {row.outcome['total']}**"
    mine = await _ask(table, table.alice, "verify", roll=row.number)
    assert total in mine and "the commitment matches" in mine
    assert f"Show it to the table with /reveal roll:{row.number}" in mine
    assert "/gm reveal" not in mine
    for viewer in (table.gm, table.bob):
        theirs = await _ask(table, viewer, "verify", roll=row.number)
        assert f"until its roller reveals it (/reveal roll:{row.number})" in theirs
        assert "/gm reveal" not in theirs and total not in theirs
    await table.alice.slash(table.table, "reveal", roll=row.number)
    after = await _ask(table, table.bob, "verify", roll=row.number)
    assert total in after and "the commitment matches" in after and "/reveal" not in after


async def test_a_row_of_an_unknown_shape_shows_its_dice(table: Table) -> None:
    """An outcome this version cannot read (an older row's) shows its stored dice; the rest
    of the page stands."""
    await _table_with_gm_channel(table, CASES["pen-and-dagger attempt"])
    table.dice(15)
    await table.alice.slash(table.table, "check", ability="DEX")
    known = await _latest(table)
    for outcome in ({"base_rank": "Adept", "level": 9}, {"success": "great"}):
        await ledger.record(
            table.bot.db,
            ledger.NewRoll(
                origin=ledger.Origin(known.channel_id, known.user_id, known.guild_id),
                kind="attempt",
                request="/check ability:DEX",
                dice=[9],
                outcome=outcome,
                campaign_id=known.campaign_id,
                character_id=known.character_id,
                character_name=known.character_name,
            ),
        )
    page = await _ask(table, table.bob, "history")
    older = [line for line in page.splitlines() if line.endswith("· attempt · dice 9")]
    assert len(older) == 2, page
    assert "d20 **15** · Rank Adept → **Major Success**" in line_of(page, known)
