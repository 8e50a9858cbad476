"""Provably fair dice end to end through the services (docs/fair-dice.md), SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.fair_models import fair_seeds, player_seed_changes, player_seeds
from bot.db.types import utcnow
from bot.dice import fair
from bot.dice import roll as dice_roll
from bot.dice.fair import FairDice
from bot.rules.systems.base import CheckOptions
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NotAllowed
from bot.services.kit.sql import core_transaction
from bot.services.rolling import checks, groups
from bot.services.rolling.inline import roll_text_in
from bot.services.rolling.rolls import roll_dice
from bot.services.store import ledger as ledger_store
from bot.services.store.campaigns import CampaignView, setup_campaign
from bot.services.store.characters import (
    CharacterView,
    create_character,
    party_add,
    set_score,
)
from bot.services.store.ledger import find_number_in, latest_rolls
from bot.services.table import requests
from bot.services.trust import export, fairness, privacy, secrecy
from bot.words import RuleSystem, Visibility
from tests.dice.test_fair_docs import verifier
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GM_USER, GUILD, gm_caller

OUTSIDE = CHANNEL + 77


def _alice(channel: int = CHANNEL) -> Caller:
    return Caller(user_id=ALICE, channel_id=channel, guild_id=GUILD)


def _bob() -> Caller:
    return Caller(user_id=BOB, channel_id=CHANNEL, guild_id=GUILD)


async def _roll(db: Database, caller: Caller, text: str = "4d6e6+1d20", **kw: object) -> int:
    rolled = await roll_dice(db, FairDice(), caller, text, request=text, **kw)  # type: ignore[arg-type]
    return rolled.number


def _in(campaign: CampaignView, key: str) -> str:
    """A player key as the campaign's rolls record it (salted with the campaign's scope)."""
    return fair.scoped_key(bytes.fromhex(key), f"campaign:{campaign.id}").hex()


async def _row(db: Database, campaign_id: int | None, number: int) -> dict[str, object]:
    async with db.sessionmaker() as session:
        if campaign_id is None:
            row = await find_number_in(session, number, scope_ids=(OUTSIDE,))
        else:
            row = await find_number_in(session, number, campaign_id=campaign_id)
    assert row is not None
    return {"outcome": row.outcome, "dice": row.dice}


async def test_a_roll_is_checkable_only_after_its_seed_is_revealed(
    db: Database, pd_campaign: CampaignView
) -> None:
    shown = await fairness.show(db, _alice(), pd_campaign)
    number = await _roll(db, _alice())
    row = await _row(db, pd_campaign.id, number)
    record = row["outcome"]["fair"]  # type: ignore[index]
    assert record["seed_hash"] == shown.seed_hash  # drawn from the seed published before
    # Alice's no-seed key, salted with the campaign: unrelated to the same key elsewhere.
    assert record["player"] == _in(pd_campaign, fair.no_seed_key(ALICE).hex())
    before = await fairness.verify_roll(db, _bob(), number)
    assert before.matched is None and "not revealed yet" in before.reason

    rotation = await fairness.rotate(db, gm_caller(), pd_campaign)
    assert rotation.revealed.seed_hash == shown.seed_hash
    assert rotation.revealed.seed is not None
    assert hashlib.sha256(bytes.fromhex(rotation.revealed.seed)).hexdigest() == shown.seed_hash
    assert fairness.seed_matches(rotation.revealed.seed, shown.seed_hash)
    assert not fairness.seed_matches(rotation.revealed.seed, rotation.current.seed_hash)
    assert rotation.current.generation == shown.generation + 1
    assert rotation.current.seed is None  # the new seed stays secret, its hash is public

    after = await fairness.verify_roll(db, _bob(), number)
    assert after.matched is True


async def test_changed_faces_do_not_recompute(db: Database, pd_campaign: CampaignView) -> None:
    number = await _roll(db, _alice(), "3d20")
    rotation = await fairness.rotate(db, gm_caller(), pd_campaign)
    row = await _row(db, pd_campaign.id, number)
    record = row["outcome"]["fair"]  # type: ignore[index]
    terms = row["dice"]
    assert rotation.revealed.seed is not None
    assert fairness.recompute(rotation.revealed.seed, record, terms)  # type: ignore[arg-type]
    face = terms[0]["dice"][0]["face"]  # type: ignore[index]
    terms[0]["dice"][0]["face"] = face % 20 + 1  # type: ignore[index]
    assert not fairness.recompute(rotation.revealed.seed, record, terms)  # type: ignore[arg-type]


async def test_only_the_gm_rotates_a_campaigns_seed(
    db: Database, pd_campaign: CampaignView
) -> None:
    before = await fairness.show(db, _alice(), pd_campaign)
    with pytest.raises(NotAllowed):
        await fairness.rotate(db, _alice(), pd_campaign)
    assert (await fairness.show(db, _alice(), pd_campaign)).seed_hash == before.seed_hash


async def test_each_roll_takes_the_next_draw_number(
    db: Database, pd_campaign: CampaignView
) -> None:
    draws = []
    for _ in range(3):
        number = await _roll(db, _alice(), "1d6")
        draws.append((await _row(db, pd_campaign.id, number))["outcome"]["fair"]["draw"])  # type: ignore[index]
    assert draws == [1, 2, 3]


async def test_a_players_draw_numbers_are_their_own(
    db: Database, pd_campaign: CampaignView
) -> None:
    """A player's n-th roll from a seed is draw n whatever anyone else rolls, so no one (an
    operator who knows the seed included) can use up draws to choose which one they get; the
    inline rolls of a check and a pre-roll path draw the same way, and all recompute."""
    await fairness.set_player_seed(db, _alice(), "alice's own words")
    await fairness.set_player_seed(db, _bob(), "bob's own words")
    first = await _roll(db, _alice(), "1d20")
    others = [await _roll(db, _bob(), "1d20") for _ in range(3)]
    second = await _roll(db, _alice(), "1d20")
    draws = [
        (await _row(db, pd_campaign.id, n))["outcome"]["fair"]["draw"]  # type: ignore[index]
        for n in (first, second, *others)
    ]
    assert draws == [1, 2, 1, 2, 3]
    await fairness.rotate(db, gm_caller(), pd_campaign)
    for n in (first, second, *others):
        assert (await fairness.verify_roll(db, _bob(), n)).matched is True


@pytest.mark.parametrize("seeds", [False, True])
async def test_two_players_never_share_draws_with_or_without_seeds(
    db: Database, pd_campaign: CampaignView, seeds: bool
) -> None:
    """Players who never set a seed have keys of their own too (from their user ids): each
    one's first roll is draw 1 under their own key, so nobody's rolls use up anyone else's."""
    if seeds:
        await fairness.set_player_seed(db, _alice(), "same words")
        await fairness.set_player_seed(db, _bob(), "other words")
    numbers = [await _roll(db, who, "1d20") for who in (_alice(), _bob(), _alice())]
    records = [
        (await _row(db, pd_campaign.id, n))["outcome"]["fair"]  # type: ignore[index]
        for n in numbers
    ]
    assert [r["draw"] for r in records] == [1, 1, 2]
    assert records[0]["player"] == records[2]["player"] != records[1]["player"]
    await fairness.rotate(db, gm_caller(), pd_campaign)
    for n in numbers:
        assert (await fairness.verify_roll(db, _bob(), n)).matched is True


async def test_hidden_roll_needs_its_blinding_as_well(
    db: Database, pd_campaign: CampaignView
) -> None:
    """A revealed seed alone does not recompute a hidden roll: its blinding is secret, kept
    with its result, and a player the roll is hidden from cannot check it."""
    number = await _roll(db, _alice(), "10d20", visibility=Visibility.SELF)
    rotation = await fairness.rotate(db, gm_caller(), pd_campaign)
    row = await _row(db, pd_campaign.id, number)
    record = dict(row["outcome"]["fair"])  # type: ignore[index]
    assert len(record["blind"]) == 64
    assert rotation.revealed.seed is not None
    assert fairness.recompute(rotation.revealed.seed, record, row["dice"])  # type: ignore[arg-type]
    del record["blind"]
    assert not fairness.recompute(rotation.revealed.seed, record, row["dice"])  # type: ignore[arg-type]
    hidden = await fairness.verify_roll(db, _bob(), number)
    assert hidden.matched is None and "hidden" in hidden.reason
    await secrecy.reveal(db, _alice(), number)
    assert (await fairness.verify_roll(db, _bob(), number)).matched is True


async def test_player_seed_enters_every_roll_and_changes_are_logged(
    db: Database, pd_campaign: CampaignView
) -> None:
    first = await fairness.set_player_seed(db, _alice(), "owlbear at dawn")
    assert first.key == fair.player_key("owlbear at dawn").hex()
    n1 = await _roll(db, _alice(), "2d6")
    second = await fairness.set_player_seed(db, _alice(), None)  # random
    assert second.text and second.key != first.key
    n2 = await _roll(db, _alice(), "2d6")
    keys = [
        (await _row(db, pd_campaign.id, n))["outcome"]["fair"]["player"]  # type: ignore[index]
        for n in (n1, n2)
    ]
    assert keys == [_in(pd_campaign, first.key), _in(pd_campaign, second.key)]
    shown = await fairness.player_seed(db, _alice())
    assert (shown.text, shown.key) == (second.text, second.key)
    # Bob's seed is his own: Alice's choice never touches it.
    assert (await fairness.player_seed(db, _bob())).key == fair.no_seed_key(BOB).hex()
    async with db.sessionmaker() as session:
        logged: list[str] = list(
            (
                await session.execute(
                    select(player_seed_changes.c.key)
                    .where(player_seed_changes.c.user_id == ALICE)
                    .order_by(player_seed_changes.c.id)
                )
            ).scalars()
        )
        assert logged == [first.key, second.key]


@pytest.mark.parametrize("text", ["   ", "x" * 201])
async def test_bad_player_seed_changes_nothing(db: Database, text: str) -> None:
    await fairness.set_player_seed(db, _alice(), "kept")
    with pytest.raises(InvalidValue):
        await fairness.set_player_seed(db, _alice(), text)
    assert (await fairness.player_seed(db, _alice())).text == "kept"


async def test_erasing_the_seed_text_keeps_rolls_checkable(
    db: Database, pd_campaign: CampaignView
) -> None:
    await fairness.set_player_seed(db, _alice(), "my cat's name")
    number = await _roll(db, _alice(), "4d6kh3")
    shown = await privacy.stored_data(db, ALICE)  # /privacy show lists it
    assert (shown.seed, shown.seed_changes) == ("my cat's name", 1)
    await privacy.erase_user(db, ALICE)
    assert (await privacy.stored_data(db, ALICE)).seed is None
    async with db.sessionmaker() as session:
        assert (await session.execute(select(player_seeds))).first() is None
        assert (await session.execute(select(player_seed_changes))).first() is None
    await fairness.rotate(db, gm_caller(), pd_campaign)
    assert (await fairness.verify_roll(db, _bob(), number)).matched is True


async def test_rolls_outside_a_campaign_use_the_channels_seed(db: Database) -> None:
    caller = _alice(OUTSIDE)
    shown = await fairness.show(db, caller, None)
    assert shown.scope == f"channel:{OUTSIDE}"
    number = await _roll(db, caller, "1d100")
    await fairness.rotate(db, replace(caller, manage_channels=True), None)
    assert (await fairness.verify_roll(db, caller, number)).matched is True


async def test_seed_rotates_on_its_own_before_reuse_and_after_its_period(
    db: Database, pd_campaign: CampaignView, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fairness, "MAX_USES", 2)
    first = await fairness.show(db, _alice(), pd_campaign)
    quiet = await roll_dice(db, FairDice(), _alice(), "1d6", request="1d6")
    assert quiet.rotation is None
    last = await roll_dice(db, FairDice(), _alice(), "1d6", request="1d6")
    # The second draw is the seed's last: drawn from it, then the seed is revealed and the
    # next one's hash announced before any die comes from it.
    assert last.rotation is not None
    assert last.rotation.revealed.seed_hash == first.seed_hash
    assert last.rotation.current.generation == first.generation + 1
    record = (await _row(db, pd_campaign.id, last.number))["outcome"]["fair"]  # type: ignore[index]
    assert (record["seed_hash"], record["draw"]) == (first.seed_hash, 2)
    after = await roll_dice(db, FairDice(), _alice(), "1d6", request="1d6")
    record = (await _row(db, pd_campaign.id, after.number))["outcome"]["fair"]  # type: ignore[index]
    assert record["seed_hash"] == last.rotation.current.seed_hash
    monkeypatch.setattr(fairness, "MAX_USES", 1000)

    with pytest.raises(NotAllowed):
        await fairness.set_period(db, _alice(), pd_campaign, 24)
    with pytest.raises(InvalidValue):
        await fairness.set_period(db, gm_caller(), pd_campaign, 0)
    await fairness.set_period(db, gm_caller(), pd_campaign, 24)
    later = utcnow() + timedelta(hours=25)
    monkeypatch.setattr(fairness, "utcnow", lambda: later)
    before = await fairness.show(db, _alice(), pd_campaign)
    rotated = await roll_dice(db, FairDice(), _alice(), "1d6", request="1d6")
    assert rotated.rotation is not None
    assert rotated.rotation.revealed.seed_hash == before.seed_hash
    assert rotated.rotation.current.period_s == 24 * 3600  # the GM's period carries on


async def test_a_seed_is_drawn_once_under_concurrency(
    db: Database, pd_campaign: CampaignView
) -> None:
    """Many rolls and rotations at once: one current seed, no generation twice, no draw
    number twice within a seed."""

    async def roll_one() -> int:
        await asyncio.sleep(0)
        return await _roll(db, _alice(), "1d20")

    async def rotate_one() -> None:
        await asyncio.sleep(0)
        await fairness.rotate(db, gm_caller(), pd_campaign)

    rolled = asyncio.gather(*(roll_one() for _ in range(12)))
    numbers, _, _ = await asyncio.gather(rolled, rotate_one(), rotate_one())
    async with db.sessionmaker() as session:
        seeds = (
            await session.execute(
                select(fair_seeds.c.generation, fair_seeds.c.revealed_at).where(
                    fair_seeds.c.scope_key == f"campaign:{pd_campaign.id}"
                )
            )
        ).all()
    generations = sorted(int(row.generation) for row in seeds)
    assert generations == list(range(1, len(generations) + 1))
    assert sum(1 for row in seeds if row.revealed_at is None) == 1
    assert len(generations) == 3  # two rotations, each one new seed
    used = set()
    for n in numbers:
        record = (await _row(db, pd_campaign.id, n))["outcome"]["fair"]  # type: ignore[index]
        used.add((record["seed_hash"], record["draw"]))
    assert len(used) == 12


async def test_an_export_checks_end_to_end_without_the_bot(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    """tools/verify_fair.py recomputes every roll of an export from its revealed seeds, finds a
    changed face, and an import keeps the rolls checkable with /verify."""
    await fairness.set_player_seed(db, _alice(), "export me")
    numbers = [await _roll(db, _alice(), text) for text in ("4d6kh3", "1d20+5; 2d8", "3dF")]
    await _roll(db, _bob(), "10d10e10", visibility=Visibility.GM)
    await set_score(db, hero.id, "DEX", 14)
    advantage = CheckOptions(ability="DEX", advantage=True)
    await checks.perform_check(db, FairDice(), _alice(), advantage, "/check")
    await fairness.rotate(db, gm_caller(), pd_campaign)
    waiting = await _roll(db, _alice(), "1d4")  # its seed is still secret
    data = await export.export_campaigns(db, campaign_id=pd_campaign.id)
    assert all(s["seed"] for s in data["campaigns"][0]["fair_seeds"])
    assert len(data["campaigns"][0]["fair_seeds"]) == 1  # the current seed never leaves
    tool = verifier()
    out = io.StringIO()
    assert tool.check(json.loads(export.dumps(data)), out) == 0
    assert "5 rolls recomputed and matching, 0 wrong, 1 waiting" in out.getvalue()

    changed = json.loads(export.dumps(data))
    rows = changed["campaigns"][0]["tables"]["ledger"]
    row = next(r for r in rows if r["number"] == numbers[0])
    die = row["dice"][0]["dice"][0]
    die["face"] = die["face"] % 6 + 1
    out = io.StringIO()
    assert tool.check(changed, out) == 1
    assert f"BAD roll #{numbers[0]}" in out.getvalue()

    (imported,) = await export.import_campaigns(db, data, channel_id=CHANNEL + 5)
    moved = Caller(user_id=BOB, channel_id=CHANNEL + 5, guild_id=GUILD)
    assert (await fairness.verify_roll(db, moved, numbers[1])).matched is True
    assert (await fairness.verify_roll(db, moved, waiting)).matched is None
    assert imported.campaign_id != pd_campaign.id


async def test_inline_rolls_in_a_post_draw_fair_dice_in_order(
    db: Database, pd_campaign: CampaignView
) -> None:
    """Every [[…]] dice roll of a text takes its own draw number, and each recomputes."""
    async with core_transaction(db) as session:
        rolled = await roll_text_in(
            session, _alice(), "I swing [[2d6+3]] and [[roll 1d20e20]].", FairDice()
        )
    numbers = [r.number for r in rolled.rolls]
    records = [(await _row(db, pd_campaign.id, n))["outcome"]["fair"] for n in numbers]  # type: ignore[index]
    assert [r["draw"] for r in records] == [1, 2]
    await fairness.rotate(db, gm_caller(), pd_campaign)
    for n in numbers:
        assert (await fairness.verify_roll(db, _bob(), n)).matched is True


@pytest.mark.parametrize(
    "options", [CheckOptions(ability="DEX"), CheckOptions(ability="DEX", advantage=True)]
)
async def test_checks_and_luck_draw_fair_d20s_that_recompute(
    db: Database, pd_campaign: CampaignView, hero: CharacterView, options: CheckOptions
) -> None:
    """A check (with advantage: two d20s) and a luck roll draw their d20s from the seeds, as
    the rules draw them, and /verify recomputes them."""
    await set_score(db, hero.id, "DEX", 14)
    numbers = []
    for _ in range(10):
        done = await checks.perform_check(db, FairDice(), _alice(), options, "/check")
        numbers.append(done.number)
    luck = await checks.perform_luck(db, FairDice(), _alice(), "/luck")
    numbers.append(luck.number)
    hidden = await checks.perform_check(
        db, FairDice(), _alice(), options, "/check", visibility=Visibility.GM
    )
    rows = [await _row(db, pd_campaign.id, n) for n in numbers]
    assert all(r["outcome"]["fair"]["dice"] == "d20" for r in rows)  # type: ignore[index]
    await fairness.rotate(db, gm_caller(), pd_campaign)
    for n in numbers:
        assert (await fairness.verify_roll(db, _bob(), n)).matched is True
    assert (await fairness.verify_roll(db, _bob(), hidden.number)).matched is None
    assert (await fairness.verify_roll(db, _alice(), hidden.number)).matched is True
    row = await _row(db, pd_campaign.id, numbers[0])
    record = row["outcome"]["fair"]  # type: ignore[index]
    dice = list(row["dice"])  # type: ignore[call-overload]
    seed = (await fairness.verify_roll(db, _bob(), numbers[0])).seed
    assert seed is not None and seed.seed is not None
    dice[0] = dice[0] % 20 + 1
    assert not fairness.recompute(seed.seed, record, dice)


@pytest.mark.parametrize(
    ("system", "ability"),
    [(RuleSystem.ROLL_UNDER, "AGI"), (RuleSystem.THRESHOLD, "DEX"), (RuleSystem.D20_CHECK, "DEX")],
)
async def test_every_systems_check_recomputes(
    db: Database, system: RuleSystem, ability: str
) -> None:
    channel = CHANNEL + 300
    campaign = await setup_campaign(db, GUILD, channel, system, gm_role_ids=[GM_ROLE])
    await fairness.show(db, gm_caller(), campaign)  # published, as at /campaign setup
    character = await create_character(db, campaign.id, ALICE, "Wren")
    await set_score(db, character.id, ability, 12 if system is RuleSystem.ROLL_UNDER else 2)
    caller = _alice(channel)
    numbers = []
    twice = system is RuleSystem.D20_CHECK  # the others' /check has no advantage
    for advantage in (False, twice) * 5:
        dc = 12 if system is RuleSystem.THRESHOLD else None
        options = CheckOptions(ability=ability, advantage=advantage, dc=dc)
        done = await checks.perform_check(db, FairDice(), caller, options, "/check")
        numbers.append(done.number)
    gm = Caller(user_id=GM_USER, channel_id=channel, guild_id=GUILD, role_ids=frozenset({GM_ROLE}))
    await fairness.rotate(db, gm, campaign)
    for n in numbers:
        assert (await fairness.verify_roll(db, caller, n)).matched is True


async def test_a_seed_falling_due_mid_post_rotates_after_its_last_roll(
    db: Database, pd_campaign: CampaignView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every roll of one text draws from the seed whose hash was shown before the text."""
    first = await fairness.show(db, _alice(), pd_campaign)
    monkeypatch.setattr(fairness, "MAX_USES", 1)
    async with core_transaction(db) as session:
        rolled = await roll_text_in(session, _alice(), "[[1d20]] [[2d6]] [[1d4]]", FairDice())
    records = [
        (await _row(db, pd_campaign.id, r.number))["outcome"]["fair"]  # type: ignore[index]
        for r in rolled.rolls
    ]
    assert [r["seed_hash"] for r in records] == [first.seed_hash] * 3
    after = await fairness.show(db, _alice(), pd_campaign)
    assert after.generation == first.generation + 1  # rotated once, after the text


@pytest.mark.parametrize("system", [RuleSystem.ROLL_UNDER, RuleSystem.D20_CHECK])
async def test_group_saves_draw_each_members_die_with_their_own_seed(
    db: Database, system: RuleSystem
) -> None:
    """Per-member d20s (d20 check) use each player's seed; roll-under's one shared d20 is in
    the first member's row. Every member row recomputes."""
    channel = CHANNEL + 400
    campaign = await setup_campaign(db, GUILD, channel, system, gm_role_ids=[GM_ROLE])
    await fairness.show(db, gm_caller(), campaign)  # published, as at /campaign setup
    ability = "AGI" if system is RuleSystem.ROLL_UNDER else "DEX"
    for user, name in ((ALICE, "Ann"), (BOB, "Bo")):
        character = await create_character(db, campaign.id, user, name)
        await set_score(db, character.id, ability, 10)
        await party_add(db, character.id)
    await fairness.set_player_seed(db, _alice(channel), "Ann's seed")
    gm = Caller(user_id=GM_USER, channel_id=channel, guild_id=GUILD, role_ids=frozenset({GM_ROLE}))
    dc = None if system is RuleSystem.ROLL_UNDER else 12
    saved = await groups.group_save(db, FairDice(), gm, ability, "/groupsave", dc=dc)
    rows = {m.user_id: await _row(db, campaign.id, m.number) for m in saved.members}
    fair_of = {user: row["outcome"].get("fair") for user, row in rows.items()}  # type: ignore[attr-defined]
    if system is RuleSystem.D20_CHECK:
        ann, bo = fair_of[ALICE]["player"], fair_of[BOB]["player"]  # type: ignore[index]
        assert ann == _in(campaign, fair.player_key("Ann's seed").hex())
        assert bo == _in(campaign, fair.no_seed_key(BOB).hex())
    else:
        assert [f is not None for f in fair_of.values()].count(True) == 1
    await fairness.rotate(db, gm, campaign)
    for member in saved.members:
        if fair_of[member.user_id] is not None:
            check = await fairness.verify_roll(db, _alice(channel), member.number)
            assert check.matched is True


async def test_group_members_sharing_a_key_take_consecutive_draws_in_party_order(
    db: Database,
) -> None:
    """One player's two characters, and two players who typed the same seed text, draw under
    one key: numbers one after another in the party's order, as one roll after another would
    take them, continued by the next roll; every member row recomputes after the rotation."""
    channel = CHANNEL + 410
    campaign = await setup_campaign(db, GUILD, channel, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE])
    await fairness.show(db, gm_caller(), campaign)
    carol = BOB + 1
    for user, name in ((ALICE, "Ann"), (BOB, "Bo"), (ALICE, "Ada"), (carol, "Cy")):
        character = await create_character(db, campaign.id, user, name)
        await set_score(db, character.id, "DEX", 10)
        await party_add(db, character.id)
    same = "lucky"
    await fairness.set_player_seed(db, _alice(channel), same)
    await fairness.set_player_seed(db, Caller(user_id=carol, channel_id=channel), same)
    gm = Caller(user_id=GM_USER, channel_id=channel, guild_id=GUILD, role_ids=frozenset({GM_ROLE}))
    saved = await groups.group_save(db, FairDice(), gm, "DEX", "/groupsave", dc=12)
    records = {
        m.name: (await _row(db, campaign.id, m.number))["outcome"]["fair"]  # type: ignore[index]
        for m in saved.members
    }
    lucky = _in(campaign, fair.player_key(same).hex())
    order = [m.name for m in saved.members]
    shared = [name for name in order if records[name]["player"] == lucky]
    assert sorted(shared) == ["Ada", "Ann", "Cy"]
    assert [records[name]["draw"] for name in shared] == [1, 2, 3]
    assert (records["Bo"]["player"], records["Bo"]["draw"]) == (
        _in(campaign, fair.no_seed_key(BOB).hex()),
        1,
    )
    alone = await _roll(db, _alice(channel), "1d20")
    assert (await _row(db, campaign.id, alone))["outcome"]["fair"]["draw"] == 4  # type: ignore[index]
    await fairness.rotate(db, gm, campaign)
    for member in [*saved.members]:
        check = await fairness.verify_roll(db, _alice(channel), member.number)
        assert check.matched is True, check.reason


async def test_a_roll_request_answered_later_draws_with_the_players_seed(db: Database) -> None:
    channel = CHANNEL + 500
    campaign = await setup_campaign(db, GUILD, channel, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE])
    await fairness.show(db, gm_caller(), campaign)  # published, as at /campaign setup
    for user, name in ((ALICE, "Ann"), (BOB, "Bo")):
        character = await create_character(db, campaign.id, user, name)
        await set_score(db, character.id, "DEX", 10)
        await party_add(db, character.id)
    gm = Caller(user_id=GM_USER, channel_id=channel, guild_id=GUILD, role_ids=frozenset({GM_ROLE}))
    made = await requests.create(db, gm, "DEX", "/gm request roll ability:DEX", dc=12)
    await fairness.set_player_seed(db, _alice(channel), "hours later")
    await requests.answer(db, FairDice(), _alice(channel), made.id, "Roll button")
    (row,) = [r for r in await latest_rolls(db, campaign.id, limit=5) if "fair" in r.outcome]
    assert row.outcome["fair"]["player"] == _in(campaign, fair.player_key("hours later").hex())
    await fairness.rotate(db, gm, campaign)
    bob = Caller(user_id=BOB, channel_id=channel, guild_id=GUILD)
    assert (await fairness.verify_roll(db, bob, row.number)).matched is True


async def test_hidden_roll_key_is_revealed_only_when_no_hidden_roll_is_secret(
    db: Database, pd_campaign: CampaignView
) -> None:
    """The hidden-roll key's hash is published with the seed's; a rotation reveals the key
    only if every hidden roll drawn from the seed was revealed, and then each revealed
    hidden roll's blinding value is checked against it (by /verify and by the tool)."""
    shown = await fairness.show(db, _alice(), pd_campaign)
    number = await _roll(db, _alice(), "3d20", visibility=Visibility.GM)
    await secrecy.reveal(db, gm_caller(), number)
    rotation = await fairness.rotate(db, gm_caller(), pd_campaign)
    key = rotation.revealed.hidden_key
    assert key is not None
    assert hashlib.sha256(bytes.fromhex(key)).hexdigest() == shown.hidden_hash
    check = await fairness.verify_roll(db, _bob(), number)
    assert (check.matched, check.reason) == (True, "Every face is the one its seeds give.")
    record = dict((await _row(db, pd_campaign.id, number))["outcome"]["fair"])  # type: ignore[call-overload]
    assert fairness.blinding_matches(key, record)
    record["blind"] = "00" * 32
    assert not fairness.blinding_matches(key, record)
    data = await export.export_campaigns(db, campaign_id=pd_campaign.id)
    out = io.StringIO()
    assert verifier().check(json.loads(export.dumps(data)), out) == 0
    assert "1 rolls recomputed and matching" in out.getvalue()

    # A hidden roll still secret at the next rotation keeps that seed's key secret.
    secret = await _roll(db, _alice(), "1d20", visibility=Visibility.SELF)
    kept = await fairness.rotate(db, gm_caller(), pd_campaign)
    assert kept.revealed.hidden_key is None
    await secrecy.reveal(db, _alice(), secret)
    later = await fairness.verify_roll(db, _bob(), secret)
    assert later.matched is True and "still secret" in later.reason


async def test_a_hidden_roll_that_uses_a_seed_up_keeps_the_hidden_key_secret(
    db: Database, pd_campaign: CampaignView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rotation comes before the hidden roll is recorded: its key must not be revealed,
    or the revealed seed and key together would give the hidden roll away."""
    monkeypatch.setattr(fairness, "MAX_USES", 1)
    rolled = await roll_dice(
        db, FairDice(), _alice(), "1d20", request="1d20", visibility=Visibility.BLIND
    )
    assert rolled.rotation is not None
    assert rolled.rotation.revealed.seed is not None
    assert rolled.rotation.revealed.hidden_key is None


# --- a record that is not the roll's own -------------------------------------------------------


async def _forged(db: Database, campaign: CampaignView, caller: Caller, **changes: object) -> int:
    """What a modified bot could record: a 2d6 roll whose faces do follow from the inputs its
    record names, but the inputs are not the roll's own (``changes`` to an honest record)."""
    await fairness.show(db, caller, campaign)  # the campaign's seed, made if it had none
    async with db.sessionmaker() as session:
        seed_row = (
            await session.execute(
                select(fair_seeds.c.seed, fair_seeds.c.seed_hash, fair_seeds.c.uses).where(
                    fair_seeds.c.scope_key == f"campaign:{campaign.id}",
                    fair_seeds.c.revealed_at.is_(None),
                )
            )
        ).one()
    scope = f"campaign:{campaign.id}"
    record: dict[str, object] = {
        "seed_hash": seed_row.seed_hash,
        "scope": scope,
        "draw": int(seed_row.uses) + 1,
        "player": fair.scoped_key(fair.no_seed_key(caller.user_id), scope).hex(),
    } | changes
    rng = fair.FairRandom(
        bytes.fromhex(seed_row.seed),
        str(record["scope"]),
        int(record["draw"]),  # type: ignore[call-overload]
        bytes.fromhex(str(record["player"])),
        bytes.fromhex(str(record.get("blind", ""))),
    )
    rolled = dice_roll("2d6", rng)
    async with core_transaction(db) as session:
        row = await ledger_store.record_in(
            session,
            ledger_store.NewRoll(
                origin=ledger_store.Origin.of(caller),
                kind="roll",
                request="/roll 2d6",
                dice=rolled.to_record()["terms"],
                outcome={"total": rolled.total, "expression": "2d6", "fair": record},
                campaign_id=campaign.id,
            ),
        )
    return row.number


@pytest.mark.parametrize(
    ("forge", "reason"),
    [
        ({"scope": "campaign:999"}, "another place's scope"),
        ({"blind": "00" * 32}, "public roll but records a blinding value"),
        ({"player": fair.scoped_key(fair.player_key("Bob's"), "x").hex()}, "not its roller's"),
        ({"draw": 1}, "draw number (1) was used by roll"),
    ],
)
async def test_verify_refuses_inputs_that_are_not_the_rolls_own(
    db: Database, pd_campaign: CampaignView, forge: dict[str, object], reason: str
) -> None:
    """Faces that follow from the recorded inputs are not enough: the inputs must be the
    roll's own (its place, no blinding on a public roll, its roller's key, a fresh draw)."""
    honest = await _roll(db, _alice(), "2d6")
    forged = await _forged(db, pd_campaign, _alice(), **forge)
    await fairness.rotate(db, gm_caller(), pd_campaign)
    assert (await fairness.verify_roll(db, _bob(), honest)).matched is True
    check = await fairness.verify_roll(db, _bob(), forged)
    assert check.matched is False and reason in check.reason
    # The stand-alone verifier finds the same roll, and only it.
    data = await export.export_campaigns(db, campaign_id=pd_campaign.id)
    out = io.StringIO()
    assert verifier().check(json.loads(export.dumps(data)), out) == 1
    assert f"BAD roll #{forged}" in out.getvalue() and f"#{honest}:" not in out.getvalue()


async def test_an_honest_forged_record_still_verifies(
    db: Database, pd_campaign: CampaignView
) -> None:
    """The forging helper itself makes a roll that checks when nothing is changed (so the
    refusals above are the checks', not the helper's)."""
    number = await _forged(db, pd_campaign, _alice())
    await fairness.rotate(db, gm_caller(), pd_campaign)
    assert (await fairness.verify_roll(db, _bob(), number)).matched is True


async def test_the_roller_key_follows_their_logged_seed_changes(
    db: Database, pd_campaign: CampaignView
) -> None:
    """A roll must record the key of the seed its roller had then: an older seed of theirs,
    or another player's key, does not pass."""
    await fairness.set_player_seed(db, _alice(), "first")
    honest = await _roll(db, _alice(), "2d6")
    scope = f"campaign:{pd_campaign.id}"
    old = fair.scoped_key(fair.no_seed_key(ALICE), scope).hex()  # before "first", long ago?
    async with core_transaction(db) as session:
        # Her change to "first" is older than a minute: the empty seed no longer counts.
        await session.execute(
            player_seed_changes.update()
            .where(player_seed_changes.c.user_id == ALICE)
            .values(changed_at=utcnow() - timedelta(minutes=5))
        )
    stale = await _forged(db, pd_campaign, _alice(), player=old)
    await fairness.rotate(db, gm_caller(), pd_campaign)
    assert (await fairness.verify_roll(db, _bob(), honest)).matched is True
    check = await fairness.verify_roll(db, _bob(), stale)
    assert check.matched is False and "not its roller's" in check.reason


@pytest.mark.parametrize(
    ("ats", "one_draw"),
    [
        ([[0, 1, 2, 3], [0, 1], [2, 3]], True),  # a contest's row and its two members' slices
        ([None, None], False),  # two plain rolls cannot share a draw
        ([[0, 1], None], False),
        ([[0, 1, 2], [0, 1], [1, 2]], False),  # two slices naming one position
        ([[0, 1, 2], [3]], False),  # a slice outside the command's draw
    ],
)
def test_only_one_commands_slices_share_a_draw_in_both_verifiers(
    ats: list[list[int] | None], one_draw: bool
) -> None:
    """A draw number reused by rows that are not one command's disjoint slices of it is
    refused by /verify's order check and by the stand-alone tool alike."""
    rolls = [(10 + i, 7, at) for i, at in enumerate(ats)]
    last = rolls[-1][0]
    assert (fairness.order_problem(rolls, last) is None) is one_draw
    tool = verifier().order_problems({("seed", "key"): list(rolls)})
    assert (not tool) is one_draw
