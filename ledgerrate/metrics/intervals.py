"""Confidence intervals: Wilson for pass rates, a seeded percentile bootstrap for CPO.

Every random draw comes from a generator keyed by the edition's seed and the cell's name, so a
reader with the raw logs recomputes the very same bounds (`verify` does), and a cell's interval
does not change when another cell is added to the edition.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from ledgerrate.metrics.money import usd_from_float
from ledgerrate.schema import Interval

CONFIDENCE = 0.95
DEFAULT_REPS = 10_000
WILSON_METHOD = "wilson-95"
BOOTSTRAP_METHOD = "bootstrap-percentile-95"


def _digest32(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16)


def edition_seed(edition_id: str) -> int:
    """The edition's bootstrap seed: derived from its id, so nobody chooses (or re-rolls) it."""
    return _digest32(f"ledgerrate-bootstrap|{edition_id}")


def keyed_rng(seed: int, *key: str) -> np.random.Generator:
    """A generator for one named computation (a cell, a routing pair) under the edition seed."""
    return np.random.default_rng(np.random.SeedSequence([seed, _digest32("|".join(key))]))


# The quantile of the published confidence, as `scipy.special.ndtri` computes it, so that
# `results` does not import scipy (0.2-0.3 CPU-seconds) for one number. The test holds it
# equal to scipy.stats' norm.ppf bit for bit, like every other value `z_quantile` returns.
KNOWN_QUANTILES = {0.95: 1.959963984540054}


@cache
def z_quantile(confidence: float) -> float:
    """The two-sided normal quantile of `confidence`, from scipy (the stdlib's NormalDist
    differs in the last bit for most arguments, and the published bounds are bit-exact).

    `scipy.special.ndtri` is what `scipy.stats.norm.ppf` computes (times a scale of 1, plus a
    location of 0: the same bits, tests/metrics/test_intervals.py), without importing
    scipy.stats, which costs about 0.6 CPU-seconds more. Imported here, not at the top, so a
    command that loads the metrics without computing an interval pays neither, and not at all
    for the published confidence (`KNOWN_QUANTILES`). Code that computes intervals in forked
    workers calls this first, so they inherit the import."""
    if confidence in KNOWN_QUANTILES:
        return KNOWN_QUANTILES[confidence]
    return ndtri_quantile(confidence)


def ndtri_quantile(confidence: float) -> float:
    """`z_quantile` without its table: scipy's value, always."""
    from scipy.special import ndtri

    return float(ndtri(1 - (1 - confidence) / 2))


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials.

    Chosen over the normal (Wald) interval because it stays inside [0, 1] and keeps its
    coverage at n = 15 and at rates near 0 or 1, where our cells live. It always contains k/n.
    """
    if n <= 0:
        raise ValueError("n must be positive")
    if not 0 <= k <= n:
        raise ValueError("k must be between 0 and n")
    z = z_quantile(confidence)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # Clamp float noise only: at k = 0 or k = n the exact bound is 0 or 1.
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return lo, hi


def wilson_interval(k: int, n: int) -> Interval | None:
    if n <= 0:
        return None
    lo, hi = wilson(k, n)
    return Interval(lo=lo, hi=hi, method=WILSON_METHOD)


@dataclass(frozen=True)
class CpoBootstrap:
    """A CPO interval and how much of the resampling it rests on."""

    interval: Interval
    reps: int
    dropped_share: float


def resample_indices(rng: np.random.Generator, n: int, reps: int) -> np.ndarray:
    """`reps` resamples of n item positions, drawn with replacement (shape reps × n)."""
    return rng.integers(0, n, size=(reps, n))


def bootstrap_cpo(
    costs: np.ndarray, passes: np.ndarray, rng: np.random.Generator, reps: int = DEFAULT_REPS
) -> CpoBootstrap | None:
    """Percentile bootstrap of CPO = Σcost ÷ Σpass, resampling items.

    Items are the unit because the standard draws one attempt per distinct item: the spread we
    report is the spread over item difficulty. A resample that happens to hold no pass has no
    CPO; it is dropped rather than counted as 0 or ∞, and the dropped share is reported so a
    reader sees how much of the interval rests on the surviving draws (a large share means the
    point estimate itself rests on very few passes).

    None when the cell has no pass (CPO undefined) or no item. The percentile interval of a
    ratio is not guaranteed to contain the point estimate; it is reported as computed, never
    widened to include it.
    """
    costs = np.asarray(costs, dtype=float)
    passes = np.asarray(passes, dtype=float)
    if costs.shape != passes.shape or costs.ndim != 1:
        raise ValueError("costs and passes must be one value per item")
    n = costs.size
    if n == 0 or passes.sum() == 0:
        return None
    idx = resample_indices(rng, n, reps)
    spent = costs[idx].sum(axis=1)
    won = passes[idx].sum(axis=1)
    kept = won > 0
    ratios = spent[kept] / won[kept]
    lo, hi = np.percentile(ratios, [2.5, 97.5])
    interval = Interval(lo=usd_from_float(lo), hi=usd_from_float(hi), method=BOOTSTRAP_METHOD)
    return CpoBootstrap(interval=interval, reps=reps, dropped_share=float(1 - kept.mean()))
