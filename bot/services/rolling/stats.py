"""Are my dice cursed? Natural d20 faces per player against a fair die, with a chi-square test.

The p-value uses the regularized upper incomplete gamma function Q(k/2, x/2), written here
(no scipy): a series for x < a + 1 and a continued fraction otherwise (Numerical Recipes,
section 6.2). Only rolls the viewer may see are counted, so statistics never leak hidden faces,
and only rolls made in channels and threads the viewer can read.

Each physical d20 counts once, for the player who rolled it: the user whose command or click
rolled it, which is the ledger row's user. A GM's /groupsave or a contest is the caller's
dice (every member's); in a roll request each player rolls their own, and roll-under's one
shared d20 belongs to the player whose click rolled it. A die is stored in one row's ``dice``
only (the later members of a shared save have none); the summary rows (``group``,
``contest``) repeat their members' dice and are not counted.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.db.engine import Database
from bot.services.kit import budgets, walks
from bot.services.kit.context import Caller
from bot.services.kit.errors import NoCampaign
from bot.services.kit.sql import reading, transaction
from bot.services.store.campaigns import CampaignView, campaign_for_channel_in
from bot.services.store.ledger import RollView, chain_size_in, latest_rolls_in
from bot.services.trust.scope import readable_channels
from bot.services.trust.secrecy import can_see, viewer_is_gm
from bot.words import LedgerKind

FACES = 20
#: Below 100 rolls (5 expected per face, the usual rule of thumb for a chi-square test) there
#: is no verdict, only the counts.
MIN_ROLLS = 100
#: Kinds whose ``dice`` column is the list of natural d20 faces (not the summary rows).
D20_KINDS = frozenset(
    {LedgerKind.CHECK, LedgerKind.SAVE, LedgerKind.ATTEMPT, LedgerKind.LUCK, LedgerKind.TEST}
)

#: Rows per transaction: the most the ledger's reader hands out at once.
PAGE = 100
_EPS = 1e-15
_TINY = 1e-300


def _lower_series(a: float, x: float) -> float:
    """P(a, x) by its series: e^-x x^a / Gamma(a+1) * sum x^n / ((a+1)...(a+n))."""
    term = total = 1.0 / a
    ap = a
    for _ in range(10_000):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Q(a, x) by Lentz's continued fraction."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a), for a > 0, x >= 0."""
    if a <= 0 or x < 0:
        raise ValueError("Q(a, x) needs a > 0 and x >= 0")
    if x == 0:
        return 1.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return min(1.0, _upper_fraction(a, x))


def chi_square_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for a chi-square variable with ``df`` degrees of freedom."""
    return regularized_gamma_q(df / 2.0, statistic / 2.0)


def chi_square_statistic(counts: Sequence[int]) -> float:
    """Pearson's statistic of ``counts`` against equal expected counts."""
    n = sum(counts)
    expected = n / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def verdict(p: float) -> str:
    """The p-value in plain words."""
    if p < 0.001:
        return "very unlikely from fair dice (p < 0.001): worth a look"
    if p < 0.01:
        return "unusual for fair dice (p < 0.01), though streaks do happen"
    if p < 0.05:
        return "a little unusual (p < 0.05), most likely chance"
    return "consistent with fair dice"


@dataclass(frozen=True, slots=True)
class FaceStats:
    """One player's natural d20 faces and the test against a fair die."""

    user_id: int
    counts: tuple[int, ...]  # counts[0] is the number of 1s
    rolls: int
    mean: float | None
    chi_square: float | None
    p_value: float | None

    @property
    def enough(self) -> bool:
        return self.rolls >= MIN_ROLLS

    @property
    def verdict(self) -> str:
        if self.p_value is None:
            return f"not enough rolls yet ({self.rolls} of {MIN_ROLLS} needed for a verdict)"
        return verdict(self.p_value)


def face_stats(user_id: int, faces: Sequence[int]) -> FaceStats:
    """Counts, mean, chi-square statistic and p-value (19 degrees of freedom)."""
    tally = Counter(faces)
    return stats_of_counts(user_id, [tally.get(face, 0) for face in range(1, FACES + 1)])


def stats_of_counts(user_id: int, counts: Sequence[int]) -> FaceStats:
    """:func:`face_stats` from how many times each face came up (``counts[0]``: the 1s)."""
    n = sum(counts)
    mean = sum(face * c for face, c in enumerate(counts, start=1)) / n if n else None
    if n < MIN_ROLLS:
        return FaceStats(user_id, tuple(counts), n, mean, None, None)
    statistic = chi_square_statistic(counts)
    return FaceStats(
        user_id, tuple(counts), n, mean, statistic, chi_square_sf(statistic, FACES - 1)
    )


def natural_d20s(kind: str, dice: Any) -> list[int]:
    """The natural d20 faces a ledger row holds (every d20 rolled, kept or not)."""
    if not isinstance(dice, list):
        return []
    if kind in D20_KINDS:
        return [d for d in dice if isinstance(d, int) and 1 <= d <= FACES]
    if kind == LedgerKind.ROLL:
        faces: list[int] = []
        for term in dice:
            if isinstance(term, dict) and term.get("sides") == FACES:
                for die in term.get("dice", []):
                    if isinstance(die, dict) and isinstance(die.get("face"), int):
                        faces.append(die["face"])
        return faces
    return []


@dataclass(frozen=True, slots=True)
class CampaignStats:
    """Per-player statistics of a campaign, as far as the viewer may see."""

    campaign: CampaignView
    players: list[FaceStats]
    hidden_skipped: int


async def campaign_stats(
    db: Database,
    caller: Caller,
    player_id: int | None = None,
    progress: walks.Progress | None = None,
) -> CampaignStats:
    """Each player's (or one player's) natural d20 faces in this channel's campaign.

    Rows the caller may not see are left out (their number is reported, nothing else); rows
    rolled where the caller cannot read are left out without a trace. Read a page per
    transaction, newest first, and tallied as it goes: memory flat in the length of the game,
    a turn for the event loop between pages (bot/services/kit/walks.py).
    """
    if caller.guild_id is None:
        raise NoCampaign()
    async with transaction(db) as session:
        campaign = await campaign_for_channel_in(
            session, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
        size = await chain_size_in(session, f"campaign:{campaign.id}")
    budgets.charge(caller, budgets.LEDGER_ROW * size)
    gm = viewer_is_gm(campaign, caller)
    tally = _Tally(caller.user_id, gm)
    readable: dict[int, bool] = {}
    async with walks.one_walk(campaign.id, "a /stats count", size):
        await walks.tell(progress, 0, size)
        before: int | None = None
        while True:
            async with reading(db) as session:
                batch = await latest_rolls_in(
                    session,
                    campaign.id,
                    limit=PAGE,
                    user_id=player_id,
                    kinds=[*D20_KINDS, LedgerKind.ROLL],
                    before_id=before,
                )
            # Rolls made where the caller cannot read are left out, not even counted as hidden
            # (docs/secret-rolls.md); asked outside the transaction (it can cost Discord requests),
            # each channel once.
            new = [row for row in batch if row.channel_id not in readable]
            if new:
                found = await readable_channels(caller, new, campaign)
                readable.update({row.channel_id: row.channel_id in found for row in new})
            tally.add(row for row in batch if readable[row.channel_id])
            if len(batch) < PAGE:
                break
            before = batch[-1].id
            await walks.tell(progress, size - batch[-1].number + 1, size)
            await walks.turn()
    return CampaignStats(campaign, tally.players(), tally.skipped)


class _Tally:
    """Each player's natural d20 faces among the rows the viewer may see, counted page by page,
    and how many rows they may not see."""

    def __init__(self, viewer_id: int, gm: bool) -> None:
        self.viewer_id = viewer_id
        self.gm = gm
        self.counts: dict[int, list[int]] = {}
        self.skipped = 0

    def add(self, rows: Iterable[RollView]) -> None:
        for row in rows:
            if not can_see(row, self.viewer_id, self.gm):
                self.skipped += 1
                continue
            for face in natural_d20s(row.kind, row.dice):
                self.counts.setdefault(row.user_id, [0] * FACES)[face - 1] += 1

    def players(self) -> list[FaceStats]:
        return [stats_of_counts(user, counts) for user, counts in sorted(self.counts.items())]
