"""Provably fair dice of the commands that draw several dice or an order: pre-rolls (sealed,
then applied by the GM), roll-under's shared die of a roll request, ability generation,
initiative and a random turn order, contests. Each: roll, rotate, /verify ✅, a changed die
❌, and the export checks with tools/verify_fair.py (docs/fair-dice.md). SQLite and PG."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.db.engine import Database
from bot.dice import fair
from bot.dice.fair import FairDice
from bot.rules.systems.base import CheckOptions
from bot.services.kit.context import Caller
from bot.services.rolling import generation, groups, prerolls
from bot.services.store.campaigns import CampaignView, setup_campaign
from bot.services.store.characters import CharacterView, create_character, party_add, set_score
from bot.services.store.ledger import find_number_in, latest_rolls
from bot.services.table import requests, turns
from bot.services.trust import export, fairness
from bot.words import RuleSystem
from tests.dice.test_fair_docs import verifier
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GM_USER, GUILD, gm_caller

NOW = datetime(2024, 5, 1, 12, tzinfo=UTC)


def _caller(user: int, channel: int = CHANNEL) -> Caller:
    roles = frozenset({GM_ROLE}) if user == GM_USER else frozenset()
    return Caller(user_id=user, channel_id=channel, guild_id=GUILD, role_ids=roles)


def _key(text: str, campaign_id: int) -> str:
    """The key a player's rolls record in a campaign: their seed's key, salted for its scope."""
    return fair.scoped_key(fair.player_key(text), f"campaign:{campaign_id}").hex()


async def _row(db: Database, campaign_id: int, number: int) -> Any:
    async with db.sessionmaker() as session:
        row = await find_number_in(session, number, campaign_id=campaign_id)
    assert row is not None
    return row


async def _party(db: Database, system: RuleSystem, channel: int, ability: str) -> CampaignView:
    campaign = await setup_campaign(db, GUILD, channel, system, gm_role_ids=[GM_ROLE])
    await fairness.show(db, _caller(GM_USER, channel), campaign)  # as at /campaign setup
    for user, name in ((ALICE, "Ann"), (BOB, "Bo")):
        character = await create_character(db, campaign.id, user, name)
        await set_score(db, character.id, ability, 10)
        await party_add(db, character.id)
    return campaign


async def _rotate(db: Database, campaign: CampaignView, channel: int = CHANNEL) -> str:
    rotation = await fairness.rotate(db, _caller(GM_USER, channel), campaign)
    assert rotation.revealed.seed is not None
    return rotation.revealed.seed


async def _export(db: Database, campaign_id: int) -> dict[str, Any]:
    """The GM's export (/campaign export): what a player checks with the verifier."""
    return await export.export_campaigns(db, campaign_id=campaign_id, redact_private=True)


def _report(data: dict[str, Any]) -> str:
    out = io.StringIO()
    verifier().check(json.loads(export.dumps(data)), out)
    return out.getvalue()


def _export_checks(data: dict[str, Any], recomputed: int) -> None:
    out = io.StringIO()
    assert verifier().check(json.loads(export.dumps(data)), out) == 0, out.getvalue()
    assert f"{recomputed} rolls recomputed and matching, 0 wrong" in out.getvalue()


def _tampered_fails(data: dict[str, Any], number: int, change: Any) -> None:
    changed = json.loads(export.dumps(data))
    row = next(r for r in changed["campaigns"][0]["tables"]["ledger"] if r["number"] == number)
    change(row)
    out = io.StringIO()
    assert verifier().check(changed, out) == 1
    assert f"BAD roll #{number}" in out.getvalue()


def _bump(row: dict[str, Any]) -> None:
    row["dice"][-1] = row["dice"][-1] % 20 + 1


# --- pre-rolls ------------------------------------------------------------------------------


async def test_a_preroll_is_a_hidden_draw_and_the_check_using_it_recomputes_from_it(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    """Each sealed die is its own blinded draw with the sealing player's seed; nothing of it
    is checkable until the GM applies it, and then both the pre-roll and the GM's check
    recompute from that draw (the check's dice, whoever rolls it, are the player's)."""
    await set_score(db, hero.id, "DEX", 12)
    await fairness.set_player_seed(db, _caller(ALICE), "sealed by Ann")
    sealed = await prerolls.seal(db, FairDice(), _caller(ALICE), 3, "/preroll count:3")
    first = await _row(db, pd_campaign.id, sealed.dice[0].number)
    record = first.outcome["fair"]
    assert record["dice"] == "d20" and record["blind"]  # a hidden roll's blinding value
    assert record["player"] == _key("sealed by Ann", pd_campaign.id)
    await _rotate(db, pd_campaign)
    # Still sealed: the seed is revealed, the die is not (nor its blinding value).
    hidden = await fairness.verify_roll(db, _caller(BOB), sealed.dice[0].number)
    assert hidden.matched is None and "hidden" in hidden.reason

    options = CheckOptions("DEX", advantage=True)
    done = await prerolls.perform_gm_check(
        db, FairDice(), gm_caller(), hero.name, options, "/gm check preroll:next"
    )
    check = await _row(db, pd_campaign.id, done.result.number)
    assert [p["draw"] for p in check.outcome["fair"]["parts"]] == [
        (await _row(db, pd_campaign.id, d.number)).outcome["fair"]["draw"] for d in sealed.dice[:2]
    ]
    for number in (done.result.number, sealed.dice[0].number, sealed.dice[1].number):
        verdict = await fairness.verify_roll(db, _caller(BOB), number)
        assert verdict.matched is True, verdict.reason
    # The unused third die stays sealed.
    third = await fairness.verify_roll(db, _caller(BOB), sealed.dice[2].number)
    assert third.matched is None

    revealed = (await fairness.verify_roll(db, _caller(BOB), done.result.number)).seed
    assert revealed is not None and revealed.seed is not None
    seeds = {record["seed_hash"]: revealed.seed}
    dice = list(check.dice)
    assert fairness.recompute_parts(seeds, check.outcome["fair"], dice) is True
    dice[0] = dice[0] % 20 + 1
    assert fairness.recompute_parts(seeds, check.outcome["fair"], dice) is False

    data = await _export(db, pd_campaign.id)
    _export_checks(data, 3)  # the check and its two pre-rolls; the sealed third is left out
    assert "1 without dice seeds" in _report(data)
    _tampered_fails(data, done.result.number, _bump)


async def test_a_preroll_sealed_before_a_rotation_waits_for_its_seed(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    """A check whose pre-rolls came from a seed not yet revealed says "not yet"."""
    await set_score(db, hero.id, "DEX", 12)
    sealed = await prerolls.seal(db, FairDice(), _caller(ALICE), 1, "/preroll")
    done = await prerolls.perform_gm_check(
        db, FairDice(), gm_caller(), hero.name, CheckOptions("DEX"), "/gm check preroll:next"
    )
    waiting = await fairness.verify_roll(db, _caller(BOB), done.result.number)
    assert waiting.matched is None and "not revealed yet" in waiting.reason
    await _rotate(db, pd_campaign)
    assert (await fairness.verify_roll(db, _caller(BOB), done.result.number)).matched is True
    assert (await fairness.verify_roll(db, _caller(BOB), sealed.dice[0].number)).matched is True


# --- roll requests: roll-under's one shared die -----------------------------------------------


async def test_a_requests_shared_die_is_drawn_with_the_first_answerers_seed(db: Database) -> None:
    channel = CHANNEL + 600
    campaign = await _party(db, RuleSystem.ROLL_UNDER, channel, "AGI")
    gm = _caller(GM_USER, channel)
    made = await requests.create(db, gm, "AGI", "/gm request roll ability:AGI")
    await fairness.set_player_seed(db, _caller(BOB, channel), "Bo clicks first")
    await requests.answer(db, FairDice(), _caller(BOB, channel), made.id, "Roll button")
    await requests.answer(db, FairDice(), _caller(ALICE, channel), made.id, "Roll button")
    numbers = {
        row.character_name: (row.number, row.outcome.get("fair"), row.dice)
        for row in await latest_rolls(db, campaign.id, limit=10)
        if row.character_name
    }
    number, record, dice = numbers["Bo"]
    assert record["player"] == _key("Bo clicks first", campaign.id) and len(dice) == 1
    assert numbers["Ann"][1] is None and numbers["Ann"][2] == []  # compares with Bo's die
    await _rotate(db, campaign, channel)
    assert (await fairness.verify_roll(db, _caller(ALICE, channel), number)).matched is True
    data = await _export(db, campaign.id)
    _export_checks(data, 1)
    _tampered_fails(data, number, _bump)


# --- ability generation ------------------------------------------------------------------------


async def test_ability_generation_draws_its_d6s_from_one_draw(
    db: Database, pd_campaign: CampaignView
) -> None:
    result = await generation.roll_scores(
        db, FairDice(), gm_caller(), [(ALICE, "Ann"), (BOB, "Bo")], "/abilities roll"
    )
    row = await _row(db, pd_campaign.id, result.number)
    assert row.outcome["fair"]["dice"] == "d6" and len(row.dice) == 24
    seed = await _rotate(db, pd_campaign)
    assert (await fairness.verify_roll(db, _caller(ALICE), result.number)).matched is True
    dice = list(row.dice)
    assert fairness.recompute(seed, row.outcome["fair"], dice)
    dice[5] = dice[5] % 6 + 1
    assert not fairness.recompute(seed, row.outcome["fair"], dice)
    data = await _export(db, pd_campaign.id)
    _export_checks(data, 1)
    _tampered_fails(data, result.number, lambda r: r["dice"].__setitem__(0, r["dice"][0] % 6 + 1))


# --- initiative and a random order --------------------------------------------------------------


@pytest.mark.parametrize(
    ("system", "ability"),
    [
        (RuleSystem.ROLL_UNDER, "AGI"),
        (RuleSystem.D20_CHECK, "DEX"),
        (RuleSystem.PEN_AND_DAGGER, "DEX"),
        (RuleSystem.THRESHOLD, "DEX"),
    ],
)
async def test_initiative_recomputes_in_the_order_shown(
    db: Database, system: RuleSystem, ability: str
) -> None:
    """The row lists the d20s in initiative order; ``at`` says where each was drawn, so
    ties re-rolled (roll-under) and the sorting still recompute."""
    channel = CHANNEL + 700
    campaign = await _party(db, system, channel, ability)
    for name in ("Cy", "Di", "Ed", "Flo"):  # more members, more ties to re-roll
        character = await create_character(db, campaign.id, ALICE, name)
        await set_score(db, character.id, ability, 10)
        await party_add(db, character.id)
    gm = _caller(GM_USER, channel)
    await turns.start(db, FairDice(), gm, None, "initiative", None, NOW)
    row = await _latest(db, campaign.id)
    record = row.outcome["fair"]
    assert record["dice"] == "d20" and len(record["at"]) == len(row.dice) >= 6
    seed = await _rotate(db, campaign, channel)
    assert (await fairness.verify_roll(db, _caller(BOB, channel), row.number)).matched is True
    swapped = list(row.dice)
    if len(set(swapped)) > 1:  # the same faces in another order must fail too
        swapped = swapped[1:] + swapped[:1]
        assert not fairness.recompute(seed, record, swapped)
    data = await _export(db, campaign.id)
    _export_checks(data, 1)
    _tampered_fails(data, row.number, _bump)


async def test_a_random_turn_order_is_a_recomputable_shuffle(db: Database) -> None:
    channel = CHANNEL + 800
    campaign = await _party(db, RuleSystem.D20_CHECK, channel, "DEX")
    for name in ("Cy", "Di", "Ed"):
        await party_add(db, (await create_character(db, campaign.id, ALICE, name)).id)
    gm = _caller(GM_USER, channel)
    await turns.start(db, FairDice(), gm, None, "random", None, NOW)
    row = await _latest(db, campaign.id)
    record = row.outcome["fair"]
    assert record["dice"] == "shuffle" and sorted(record["from"]) == sorted(row.outcome["order"])
    seed = await _rotate(db, campaign, channel)
    assert (await fairness.verify_roll(db, _caller(BOB, channel), row.number)).matched is True
    other = {**row.outcome, "order": list(reversed(row.outcome["order"]))}
    assert not fairness.recompute(seed, record, [], other)

    def reorder(r: dict[str, Any]) -> None:
        r["outcome"]["order"] = list(reversed(r["outcome"]["order"]))

    data = await _export(db, campaign.id)
    _export_checks(data, 1)
    _tampered_fails(data, row.number, reorder)


async def _latest(db: Database, campaign_id: int) -> Any:
    (row,) = [r for r in await latest_rolls(db, campaign_id, limit=5) if "fair" in r.outcome]
    return row


# --- contests -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("system", "ability"), [(RuleSystem.ROLL_UNDER, "AGI"), (RuleSystem.D20_CHECK, "DEX")]
)
async def test_a_contests_rows_recompute_from_one_draw(
    db: Database, system: RuleSystem, ability: str
) -> None:
    """The contest row and each member's row (its own dice) recompute from the draw of
    whoever started the contest."""
    channel = CHANNEL + 900
    campaign = await _party(db, system, channel, ability)
    await fairness.set_player_seed(db, _caller(ALICE, channel), "Ann contests")
    done = await groups.contest(
        db, FairDice(), _caller(ALICE, channel), ability, "Ann, Bo", "/contest"
    )
    contest_row = await _row(db, campaign.id, done.number)
    members = [await _row(db, campaign.id, n) for n in contest_row.outcome["member_rolls"]]
    assert contest_row.outcome["fair"]["player"] == _key("Ann contests", campaign.id)
    seed = await _rotate(db, campaign, channel)
    for number in [done.number, *(m.number for m in members)]:
        verdict = await fairness.verify_roll(db, _caller(BOB, channel), number)
        assert verdict.matched is True, (number, verdict.reason)
    dice = list(members[1].dice)
    dice[0] = dice[0] % 20 + 1
    assert not fairness.recompute(seed, members[1].outcome["fair"], dice)
    data = await _export(db, campaign.id)
    _export_checks(data, 3)
    _tampered_fails(data, members[0].number, _bump)
