"""A sealed pre-roll shows nobody its die, its roller and the GM included, until the
GM applies it. Differential test: worlds that differ only in the sealed die (an ordinary face,
a natural 20, a natural 1); every member asks everything that shows table state, and all they
can read must be the same in every world, until the GM's check uses the die (then it differs,
which shows the comparison would see the die if it leaked)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.scenarios import test_secrecy_differential as diff
from tests.scripted import WorldRandom

#: The same fixture: a new migrated database per world, so every world numbers alike.
FACES = [5, 20, 1]
SCORE = {"pen-and-dagger": 12, "d20-check": 14}


async def play(url: str, system: str, face: int) -> tuple[list[tuple[str, Any]], Any]:
    """One world: what every member observes while the die is sealed, then the applied check."""
    rng = WorldRandom(diff.SEED)
    observed: list[tuple[str, Any]] = []
    async with diff._server(url, rng) as table:
        gm_channel = diff._private_gm_channel(table)
        await table.admin.slash(
            table.table,
            "campaign setup",
            system=system,
            gm_role=table.gm_role,
            gm_channel=gm_channel,
        )
        await table.alice.slash(table.table, "character create", name="Ayla")
        await table.alice.slash(
            table.table, "character set", ability="DEX", value=SCORE[system], character="Ayla"
        )
        rng.faces.extend([face, 8])  # the sealed die, and a second one (oldest is used first)
        sealed = await table.alice.slash(table.table, "preroll", count=2)
        assert not rng.faces
        observed.append(("the stub", await diff._result(sealed)))
        one = await table.alice.slash(table.table, "preroll")  # a single die: its stub recorded
        observed.append(("a one-die stub", await diff._result(one)))
        for member in (table.alice, table.gm, table.bob):
            name = member.user.name
            asks: list[tuple[str, dict[str, Any]]] = [
                ("history", {}),
                ("history", {"kind": "preroll"}),
                ("verify", {"roll": 1}),
                ("verify", {"roll": 3}),
                ("preroll-list", {}),
                ("stats", {}),
                ("catchup", {}),
                ("character show", {"name": "Ayla"}),
                ("reveal", {"roll": 1}),
                ("odds check", {"ability": "DEX"}),
            ]
            if member is table.gm:
                asks += [
                    ("gm log", {}),
                    ("reveal", {"roll": 1}),
                    ("campaign export", {}),
                ]
            for ask, options in asks:
                answer = await member.slash(table.table, ask, **options)
                observed.append((f"{name}: /{ask} {options}", await diff._result(answer)))
        for member in (table.alice, table.gm, table.bob):
            observed.append(
                (
                    f"what {member.user.name} can read",
                    await diff._readable(table, gm_channel, member),
                )
            )
        rng.faces.append(11)  # a fresh die the check must not draw
        applied = await table.gm.slash(
            table.table, "gm check", character="Ayla", ability="DEX", preroll="next"
        )
        after = await diff._result(applied)
        assert list(rng.faces) == [11]
    return observed, after


@pytest.mark.parametrize("system", list(SCORE))
async def test_a_sealed_die_changes_nothing_anyone_observes_until_applied(
    fresh_database: Callable[[], Awaitable[str]], system: str
) -> None:
    base, base_after = await play(await fresh_database(), system, FACES[0])
    for face in FACES[1:]:
        other, after = await play(await fresh_database(), system, face)
        difference = diff._first_difference(base, other)
        assert difference is None, f"sealed {face} vs {FACES[0]} differs: {difference}"
        # Applied, the die is shown: the comparison above would have seen it.
        assert after != base_after
