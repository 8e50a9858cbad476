"""A party of 100 never holds the table up: a group save rolls and seals its members' rows a
chunk at a time, and a roll request closing with 100 default rolls rolls them one at a time,
with a turn of the event loop between (counted with another task ticking, never timed), still
in one transaction that records every member."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bot.db.engine import Database
from bot.db.types import utcnow
from bot.dice.fair import FairDice
from bot.services.kit import walks
from bot.services.rolling import groups
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView, setup_campaign
from bot.services.store.characters import create_character, party_add, set_score
from bot.services.table import requests
from bot.words import RuleSystem
from tests.services.helpers import CHANNEL, GM_ROLE, GUILD, gm_caller
from tests.services.test_privacy_scale import ticking

PARTY = 100


def longest_run(events: list[str], kind: str) -> int:
    """The most ``kind`` events with no tick of the other task between them."""
    longest = run = 0
    for event in events:
        if event == "tick":
            run = 0
        elif event == kind:
            run += 1
            longest = max(longest, run)
    return longest


async def _party(db: Database, size: int) -> CampaignView:
    campaign = await setup_campaign(db, GUILD, CHANNEL, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE])
    for n in range(size):
        hero = await create_character(db, campaign.id, 10_000 + n, f"Hero {n:03d}")
        await set_score(db, hero.id, "DEX", 10 + n % 6)
        await party_add(db, hero.id)
    return campaign


def _noting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, events: list[str]) -> None:
    real = getattr(module, name)

    def noted(*args: Any, **kwargs: Any) -> Any:
        events.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, noted)


async def test_a_group_save_of_100_gives_the_loop_turns_while_rolling_and_sealing(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = await _party(db, PARTY)
    events: list[str] = []
    _noting(monkeypatch, groups, "plan_save", events)  # one member's save, rolled
    _noting(monkeypatch, ledger, "_sealed", events)  # one row's hashes and chain link
    async with ticking(events):
        saved = await groups.group_save(db, FairDice(), gm_caller(), "DEX", "/groupsave", dc=12)
    assert len(saved.members) == PARTY
    assert events.count("plan_save") == PARTY and events.count("_sealed") >= PARTY
    assert longest_run(events, "plan_save") <= walks.MEMBERS_PER_TURN
    assert longest_run(events, "_sealed") <= walks.MEMBERS_PER_TURN
    # Every member's row and then the group's, numbered in the party's order.
    assert [m.number for m in saved.members] == list(range(1, PARTY + 1))
    assert saved.number == PARTY + 1 and saved.campaign.id == campaign.id


async def test_closing_a_request_of_100_gives_the_loop_a_turn_between_default_rolls(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = await _party(db, PARTY)
    now = utcnow()
    made = await requests.create(
        db,
        gm_caller(),
        "DEX",
        "/gm request roll",
        dc=12,
        default="roll",
        deadline=timedelta(hours=1),
        now=now,
    )
    events: list[str] = []
    real = requests._roll_target_in

    async def rolled(*args: Any, **kwargs: Any) -> Any:
        events.append("roll")
        return await real(*args, **kwargs)

    monkeypatch.setattr(requests, "_roll_target_in", rolled)
    async with ticking(events):
        closed = await requests.close(db, FairDice(), gm_caller(), made.id, now)
    assert events.count("roll") == PARTY and longest_run(events, "roll") == 1
    assert closed.request.complete and closed.campaign.id == campaign.id
    assert all(t.summary is not None for t in closed.request.targets)
    assert len(await ledger.latest_rolls(db, campaign.id, limit=PARTY)) == PARTY
