"""/stats: the incomplete gamma function against closed forms and tables, and the per-player
figures against a hand computation, counting only rolls the viewer may see."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from bot.db.engine import Database
from bot.db.models import RuleSystem, Visibility
from bot.rules import roll_under
from bot.services.kit.context import Caller
from bot.services.kit.sql import transaction
from bot.services.rolling import groups, stats
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView, setup_campaign
from bot.services.store.characters import create_character, party_add, set_score
from bot.services.table import requests
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GUILD, origin

CAROL = 4_000_000_000_000_003
GM = 4_000_000_000_000_009


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.0, 10.0, 40.0])
def test_q_matches_closed_forms(x: float) -> None:
    # Q(1, x) = e^-x; Q(2, x) = e^-x (1 + x); Q(1/2, x) = erfc(sqrt x).
    assert stats.regularized_gamma_q(1.0, x) == pytest.approx(math.exp(-x), rel=1e-10)
    assert stats.regularized_gamma_q(2.0, x) == pytest.approx(math.exp(-x) * (1 + x), rel=1e-10)
    assert stats.regularized_gamma_q(0.5, x) == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-9)


@pytest.mark.parametrize(
    ("statistic", "df", "p"),
    [
        # Critical values from a standard chi-square table.
        (3.841459, 1, 0.05),
        (30.14353, 19, 0.05),
        (36.19087, 19, 0.01),
        (43.82020, 19, 0.001),
        (18.33765, 19, 0.5),
        (10.11701, 19, 0.95),
    ],
)
def test_chi_square_tail_matches_the_table(statistic: float, df: int, p: float) -> None:
    assert stats.chi_square_sf(statistic, df) == pytest.approx(p, rel=1e-4)


def test_edges() -> None:
    assert stats.chi_square_sf(0.0, 19) == 1.0
    with pytest.raises(ValueError):
        stats.regularized_gamma_q(0, 1)


def test_verdicts_in_plain_words() -> None:
    assert stats.verdict(0.4) == "consistent with fair dice"
    assert "very unlikely" in stats.verdict(0.0001)
    few = stats.face_stats(ALICE, [20] * 99)
    assert few.p_value is None and "not enough rolls" in few.verdict


async def _check(
    db: Database, campaign: CampaignView, user: int, face: int, mode: Visibility
) -> None:
    async with transaction(db) as session:
        await ledger.record_in(
            session,
            ledger.NewRoll(
                origin=origin(user),
                kind="check",
                request="/check ability:STR",
                dice=[face],
                outcome={"kept": face},
                visibility=mode,
                campaign_id=campaign.id,
            ),
        )


async def test_figures_match_a_hand_computation_and_hidden_faces_stay_out(
    db: Database, pd_campaign: CampaignView
) -> None:
    # Alice: faces 1-19 five times each and 24 natural 20s (119 rolls), all public.
    for face in range(1, 20):
        for _ in range(5):
            await _check(db, pd_campaign, ALICE, face, Visibility.PUBLIC)
    for _ in range(24):
        await _check(db, pd_campaign, ALICE, 20, Visibility.PUBLIC)
    # Bob: two public 3s and one blind 20 that only the GM may count.
    await _check(db, pd_campaign, BOB, 3, Visibility.PUBLIC)
    await _check(db, pd_campaign, BOB, 3, Visibility.PUBLIC)
    await _check(db, pd_campaign, BOB, 20, Visibility.BLIND)

    expected = Fraction(119, 20)
    hand = 19 * (5 - expected) ** 2 / expected + (24 - expected) ** 2 / expected
    viewer = Caller(user_id=ALICE, channel_id=CHANNEL, guild_id=GUILD)
    seen = await stats.campaign_stats(db, viewer)
    alice, bob = seen.players
    assert alice.user_id == ALICE and alice.rolls == 119
    assert alice.counts == (5,) * 19 + (24,)
    assert alice.chi_square == pytest.approx(float(hand))  # 57.64
    assert alice.p_value is not None and alice.p_value < 0.001
    assert alice.mean == pytest.approx((5 * sum(range(1, 20)) + 24 * 20) / 119)
    assert (bob.rolls, bob.counts[2], bob.counts[19]) == (2, 2, 0)
    assert seen.hidden_skipped == 1
    gm = Caller(user_id=5, channel_id=CHANNEL, guild_id=GUILD, role_ids=frozenset({GM_ROLE}))
    by_gm = await stats.campaign_stats(db, gm, BOB)
    assert [(p.user_id, p.rolls, p.counts[19]) for p in by_gm.players] == [(BOB, 3, 1)]


async def test_shared_and_group_dice_count_once_for_the_player_who_rolled_them(
    db: Database,
) -> None:
    # Roll-under: a GM group save (one d20 for three members), a roll request answered by
    # three players (one shared d20, rolled by the first click), and a contest Alice starts.
    campaign = await setup_campaign(
        db, GUILD, CHANNEL, RuleSystem.ROLL_UNDER, gm_role_ids=[GM_ROLE]
    )
    for user, name in ((ALICE, "Ann"), (BOB, "Bo"), (CAROL, "Cy")):
        character = await create_character(db, campaign.id, user, name)
        await set_score(db, character.id, "AGI", 10)
        await party_add(db, character.id)
    rng = random.Random(3)
    gm = Caller(user_id=GM, channel_id=CHANNEL, guild_id=GUILD, role_ids=frozenset({GM_ROLE}))

    saved = await groups.group_save(db, rng, gm, "AGI", "/groupsave ability:AGI")
    made = await requests.create(db, gm, "AGI", "/gm request roll ability:AGI")
    for clicker in (BOB, ALICE, CAROL):  # Bob's click rolls the group's one d20
        player = Caller(user_id=clicker, channel_id=CHANNEL, guild_id=GUILD)
        await requests.answer(db, rng, player, made.id, "Roll button")
    request = await requests.load(db, made.id)
    alice = Caller(user_id=ALICE, channel_id=CHANNEL, guild_id=GUILD)
    contest = await groups.contest(db, rng, alice, "AGI", "Ann, Bo", "/contest")
    assert isinstance(contest.outcome, roll_under.ContestOutcome)

    # By hand: every physical d20 once, for whoever's command or click rolled it.
    assert saved.shared_roll is not None and request.shared_roll is not None
    expected = {
        GM: [saved.shared_roll],
        BOB: [request.shared_roll],
        ALICE: [r.roll for rnd in contest.outcome.rounds for r in rnd.rolls],
    }
    seen = await stats.campaign_stats(db, gm)
    got = {p.user_id: p for p in seen.players}
    assert set(got) == set(expected)  # Carol rolled nothing
    for user, faces in expected.items():
        assert got[user].rolls == len(faces)
        assert got[user].counts == tuple(faces.count(f) for f in range(1, 21))
