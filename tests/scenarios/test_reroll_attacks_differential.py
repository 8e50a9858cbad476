"""A hidden attack's reroll shows nothing it hides (docs/secret-rolls.md), its target's sheet
included. Differential test: worlds that differ only in the hidden dice (a miss rerolled into
a miss, a Critical Hit rerolled into a miss, a miss rerolled into a Critical Hit); a member
not entitled to the rolls asks everything that shows table state, the target's AC above all
(his sheet, /odds attack on him, a later public attack on him), and all they can read must be
the same in every world, until the rolls are revealed (then Bram's sheet holds what the
reroll took, which shows the comparison would see it if it leaked)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.services.store.campaigns import campaign_for_channel
from bot.services.store.characters import get_character
from bot.services.store.ledger import latest_rolls
from tests.scenarios import test_secrecy_differential as diff
from tests.scripted import WorldRandom

#: The same fixture: a new migrated database per world, so every world numbers alike.

#: (the attack's two d20s with advantage, the new face of its first die): Brannoc attacks at
#: +5 against Bram's AC 16, crit rules on; a Critical Hit's d8 shows 5 (5 + 3 = 8 lost AC).
WORLDS = {
    "miss, rerolled into a miss": ((5, 4), 6),
    "critical, rerolled into a miss": ((20, 4), 6),
    "miss, rerolled into a critical": ((5, 4), 20),
}
#: What Bram's sheet holds once both rolls are revealed: what the reroll took.
REVEALED_LOSS = {
    "miss, rerolled into a miss": 0,
    "critical, rerolled into a miss": 0,
    "miss, rerolled into a critical": 8,
}


async def play(url: str, mode: str, world: str) -> tuple[list[tuple[str, Any]], int]:
    """One world: what the non-entitled members observe; then Bram's AC loss once revealed."""
    rng = WorldRandom(diff.SEED)
    observed: list[tuple[str, Any]] = []
    async with diff._server(url, rng) as table:
        gm_channel = diff._private_gm_channel(table)
        await table.admin.slash(
            table.table,
            "campaign setup",
            system="d20-check",
            gm_role=table.gm_role,
            gm_channel=gm_channel,
        )
        await table.gm.slash(table.table, "campaign set rerolls", on=True)
        await table.gm.slash(table.table, "campaign set crit-rules", on=True)
        await table.alice.slash(table.table, "character create", name="Brannoc")
        await table.alice.slash(table.table, "character set", ability="STR", value=16)
        await table.bob.slash(table.table, "character create", name="Bram")
        await table.bob.slash(table.table, "character set", ability="DEX", value=14)
        await table.bob.slash(table.table, "character armour", ac=16)

        # Who may not see Alice's hidden rolls: Bob (gm), Alice herself (blind), the GM (self).
        readers = diff._observers(table, table.alice, mode)
        dice, new = WORLDS[world]
        rng.faces.extend(dice)
        rng.byte_faces.append(5)  # the d8 of a Critical Hit's damage, whenever it is rolled
        hidden = await table.alice.slash(
            table.table,
            "attack",
            target="Bram",
            damage="1d8+3",
            advantage=True,
            secret=mode,
        )
        rng.faces.append(new)
        rerolled = await table.alice.slash(table.table, "reroll", die="first")
        if table.alice in readers:  # a blind roll's roller: her own answers, too
            observed.append(("alice: the attack's answer", await diff._result(hidden)))
            observed.append(("alice: the reroll's answer", await diff._result(rerolled)))
        assert not rng.faces
        rng.byte_faces.clear()  # a world without a critical rolled no damage

        for member in readers:
            name = member.user.name
            asks: list[tuple[str, dict[str, Any]]] = [
                ("history", {}),
                ("history", {"kind": "attack"}),
                ("stats", {}),
                ("character show", {"name": "Bram"}),
                ("party show", {}),
                ("catchup", {}),
                ("odds attack", {"ac": 16, "target": "Bram"}),
                ("verify", {"roll": 2}),
            ]
            if member is table.gm:
                asks += [("gm log", {}), ("campaign export", {})]
            for ask, options in asks:
                answer = await member.slash(table.table, ask, **options)
                observed.append((f"{name}: /{ask} {options}", await diff._result(answer)))
        # A later public attack on Bram: against his AC as his sheet holds it now.
        rng.faces.append(10)
        later = await table.alice.slash(table.table, "attack", target="Bram")
        observed.append(("the later public attack", await diff._result(later)))
        for member in [*readers, *([] if table.bob in readers else [table.bob])]:
            observed.append(
                (
                    f"what {member.user.name} can read",
                    await diff._readable(table, gm_channel, member),
                )
            )

        # Revealed (the GM for a gm or blind roll, its roller for a self roll), both rows.
        campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
        rows = await latest_rolls(table.bot.db, campaign.id, kinds=["attack", "d20-reroll"])
        hidden_numbers = sorted(r.number for r in rows if r.visibility.value != "public")
        assert len(hidden_numbers) == 2
        for number in hidden_numbers:
            if mode == "self":
                await table.alice.slash(table.table, "reveal", roll=number)
            else:
                await table.gm.slash(table.table, "reveal", roll=number)
        bram = await get_character(table.bot.db, campaign.id, "Bram")
    return observed, bram.ac_loss


@pytest.mark.parametrize("mode", diff.MODES)
async def test_a_hidden_attacks_reroll_changes_nothing_a_non_entitled_member_observes(
    fresh_database: Callable[[], Awaitable[str]], mode: str
) -> None:
    names = list(WORLDS)
    base, base_loss = await play(await fresh_database(), mode, names[0])
    assert base_loss == REVEALED_LOSS[names[0]]
    for world in names[1:]:
        other, loss = await play(await fresh_database(), mode, world)
        difference = diff._first_difference(base, other)
        assert difference is None, f"{world} vs {names[0]} differs: {difference}"
        # Revealed, the reroll's critical is on Bram's sheet: the comparison above would
        # have seen it there had it leaked.
        assert loss == REVEALED_LOSS[world]
