"""A chi-square goodness-of-fit assertion for the sampling tests of the rules engine.

The p-value comes from the product's own chi-square survival function
(:func:`bot.services.rolling.stats.chi_square_sf`, which /stats uses and
tests/services/test_stats.py checks against known values), so there is one implementation of the
incomplete gamma.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from fractions import Fraction

from bot.services.rolling.stats import chi_square_sf


def assert_sample_fits(
    counts: Mapping[Hashable, int], odds: Mapping[Hashable, Fraction], p_min: float = 1e-9
) -> None:
    """Chi-square goodness of fit; cells expecting fewer than 5 are pooled.

    ``p_min`` is the false-alarm probability: 1e-9 makes a failure with a fixed seed a real
    disagreement between the sampler and the exact odds, not bad luck.
    """
    n = sum(counts.values())
    assert set(counts) <= {k for k, p in odds.items() if p > 0}, "an impossible outcome occurred"
    cells: list[tuple[float, int]] = []
    pooled_e, pooled_o = 0.0, 0
    for key, p in odds.items():
        expected = n * float(p)
        if expected < 5:
            pooled_e += expected
            pooled_o += counts.get(key, 0)
        else:
            cells.append((expected, counts.get(key, 0)))
    if pooled_e > 0:
        cells.append((pooled_e, pooled_o))
    if len(cells) < 2:
        return
    stat = sum((o - e) ** 2 / e for e, o in cells)
    p = chi_square_sf(stat, len(cells) - 1)
    assert p > p_min, f"χ²={stat:.1f} on {len(cells) - 1} dof (p={p:.3g})"
