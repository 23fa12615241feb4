from __future__ import annotations

import subprocess
import sys
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledgerrate.metrics.intervals import (
    KNOWN_QUANTILES,
    bootstrap_cpo,
    edition_seed,
    keyed_rng,
    ndtri_quantile,
    wilson,
    wilson_interval,
    z_quantile,
)


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", table I,
        # method 3 (score interval without continuity correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # The bar of the standard: 12 of 15.
        (12, 15, 0.5481, 0.9295),
        (15, 15, 0.7961, 1.0),
    ],
)
def test_wilson_matches_published_values(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson(k, n)
    assert got == pytest.approx((lo, hi), abs=5e-5)


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_contains_the_point_estimate_and_stays_in_0_1(kn: tuple[int, int]) -> None:
    k, n = kn
    lo, hi = wilson(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_wilson_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson(3, 2)
    assert wilson_interval(0, 0) is None


def test_edition_seed_is_derived_from_the_id() -> None:
    assert edition_seed("2026-07") == edition_seed("2026-07")
    assert edition_seed("2026-07") != edition_seed("2026-08")


costs_and_passes = st.integers(1, 20).flatmap(
    lambda n: st.tuples(
        st.lists(st.decimals("0", "2", places=6), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n).filter(any),
    )
)


@settings(max_examples=40, deadline=None)
@given(costs_and_passes, st.integers(0, 2**32 - 1))
def test_bootstrap_is_reproducible_from_its_seed(data, seed: int) -> None:
    costs, passes = (np.array([float(c) for c in data[0]]), np.array(data[1]))
    first = bootstrap_cpo(costs, passes, keyed_rng(seed, "cpo", "w", "m", "single-shot"), 500)
    again = bootstrap_cpo(costs, passes, keyed_rng(seed, "cpo", "w", "m", "single-shot"), 500)
    assert first == again


@settings(max_examples=40, deadline=None)
@given(costs_and_passes)
def test_bootstrap_bounds_lie_within_what_any_resample_can_give(data) -> None:
    # A resample's CPO is at least the cheapest passing item's cost (its passes alone cost
    # that much each) and at most n × the dearest item (all n draws dear, one pass).
    costs, passes = np.array([float(c) for c in data[0]]), np.array(data[1])
    boot = bootstrap_cpo(costs, passes, keyed_rng(1, "x"), 500)
    assert boot is not None
    lo, hi = Decimal(boot.interval.lo), Decimal(boot.interval.hi)
    floor = Decimal(repr(float(costs[passes].min()))) - Decimal("1e-8")
    ceiling = Decimal(repr(float(costs.max() * len(costs)))) + Decimal("1e-8")
    assert floor <= lo <= hi <= ceiling
    assert 0.0 <= boot.dropped_share < 1.0


def test_bootstrap_of_a_typical_cell_contains_its_point_estimate() -> None:
    # Containment is not guaranteed for a percentile interval of a ratio (see the docstring),
    # so it is checked on a realistic cell rather than asserted for every input.
    rng = np.random.default_rng(0)
    costs = rng.uniform(0.005, 0.05, 15)
    passes = np.array([True] * 12 + [False] * 3)
    boot = bootstrap_cpo(costs, passes, keyed_rng(7, "cell"), 10_000)
    assert boot is not None
    point = costs.sum() / passes.sum()
    assert float(boot.interval.lo) < point < float(boot.interval.hi)
    assert boot.dropped_share == 0.0


def test_identical_items_give_a_degenerate_interval_at_the_point() -> None:
    boot = bootstrap_cpo(np.full(15, 0.02), np.ones(15, dtype=bool), keyed_rng(1, "x"), 200)
    assert boot is not None
    assert boot.interval.lo == boot.interval.hi == Decimal("0.02000000")


def test_no_pass_means_no_interval_and_rare_passes_report_dropped_resamples() -> None:
    costs = np.full(15, 0.01)
    assert bootstrap_cpo(costs, np.zeros(15, dtype=bool), keyed_rng(1, "x")) is None
    one = np.zeros(15, dtype=bool)
    one[0] = True
    boot = bootstrap_cpo(costs, one, keyed_rng(1, "x"), 10_000)
    assert boot is not None
    # P(a resample of 15 misses the one pass) = (14/15)^15 ≈ 0.355.
    assert boot.dropped_share == pytest.approx((14 / 15) ** 15, abs=0.02)


def test_the_normal_quantile_is_scipy_stats_to_the_last_bit() -> None:
    """`z_quantile` reads `ndtri` instead of `norm.ppf`; every Wilson bound rests on it."""
    from scipy.stats import norm

    confidences = [0.95, 0.9, 0.99, 0.8, 0.5, 1e-9, 1 - 1e-9]
    confidences += list(np.random.default_rng(7).random(2000))
    for confidence in confidences:
        z = z_quantile.__wrapped__(confidence)
        assert z.hex() == float(norm.ppf(1 - (1 - confidence) / 2)).hex()
    for confidence, z in KNOWN_QUANTILES.items():  # the table is scipy's value, to the bit
        assert z.hex() == ndtri_quantile(confidence).hex()


def test_the_normal_quantile_does_not_import_scipy_stats() -> None:
    """scipy.stats costs about 0.6 CPU-seconds to import in every `results` and `verify`, and
    the published confidence's quantile needs no scipy at all."""
    code = (
        "import sys\n"
        "from ledgerrate.metrics.intervals import CONFIDENCE, z_quantile\n"
        "z_quantile(CONFIDENCE)\n"
        "assert 'scipy' not in sys.modules, 'scipy imported'\n"
        "z_quantile(0.9)\n"
        "assert 'scipy.special' in sys.modules\n"
        "assert 'scipy.stats' not in sys.modules, 'scipy.stats imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
