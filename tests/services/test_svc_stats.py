"""/stats: the incomplete gamma function against closed forms and tables, and the per-player
figures against a hand computation, counting only rolls the viewer may see."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from svc_helpers import ALICE, BOB, CHANNEL, GM_ROLE, GUILD, origin

from bot.db.engine import Database
from bot.db.models import Visibility
from bot.services import ledger, secrecy, stats
from bot.services._sql import transaction
from bot.services.campaigns import CampaignView
from bot.services.context import Caller


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
        await secrecy.record_roll_in(
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
