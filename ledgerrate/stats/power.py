"""Power plans: what pass-rate difference n items can detect. A diagnostic, never a verdict."""

from __future__ import annotations

import math

from ledgerrate.schema import PowerPlan


def minimum_detectable_difference(
    n: int, reference_rate: float = 0.8, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Smallest drop from `reference_rate` that two arms of n items each detect, in rate units.

    Uses Cohen's arcsine effect size h = (z_{1-α/2} + z_{power}) · sqrt(2/n), which behaves
    near 0 and 1 where the plain normal approximation does not.
    """
    # scipy takes about a second to import; `ingest`, `inspect eval` and `run` reach this module
    # through the dataset builder without ever computing a power plan.
    from scipy.stats import norm

    h = (norm.ppf(1 - alpha / 2) + norm.ppf(power)) * math.sqrt(2 / n)
    phi = 2 * math.asin(math.sqrt(reference_rate)) - h
    other = math.sin(max(phi, 0.0) / 2) ** 2
    return reference_rate - other


def power_plan(
    n: int, reference_rate: float = 0.8, alpha: float = 0.05, power: float = 0.8
) -> PowerPlan:
    mde = minimum_detectable_difference(n, reference_rate, alpha, power)
    points = round(mde * 100, 1)
    return PowerPlan(
        n=n,
        alpha=alpha,
        power=power,
        reference_rate=reference_rate,
        mde_pp=points,
        statement=(
            f"With n = {n} items per arm, a two-sided test at α = {alpha} has {power:.0%} power "
            f"only for a pass-rate difference of about {points} points from "
            f"{reference_rate:.0%}; smaller differences read as inconclusive, not as no difference."
        ),
    )
