"""Money arithmetic of the figures: exact Decimal, quantized once, at the end.

Spend is summed exactly from the run records. Only the published ratios are rounded: CPO to
1e-12 USD, the quantum of compute costs (a reference baseline's CPO can be a billionth of a
dollar, and a coarser quantum rounded real figures to zero), and a
rate-card rate to the cent. Banker's rounding (ROUND_HALF_EVEN) so that rounding carries no
systematic bias across many cells.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

CPO_QUANTUM = Decimal("0.000000000001")
RATE_QUANTUM = Decimal("0.01")


def quantize_cpo(value: Decimal) -> Decimal:
    return value.quantize(CPO_QUANTUM, rounding=ROUND_HALF_EVEN)


def cpo(spend: Decimal, passes: int) -> Decimal | None:
    """Cost per successful outcome: spend ÷ passes.

    None when there is no pass: "no successful outcome" is neither free (0) nor infinitely
    expensive (∞), and showing either would be a number we did not measure.
    """
    if passes < 0:
        raise ValueError("passes cannot be negative")
    if passes == 0:
        return None
    return quantize_cpo(spend / Decimal(passes))


def per_attempt(spend: Decimal, attempts: int) -> Decimal | None:
    return None if attempts == 0 else quantize_cpo(spend / Decimal(attempts))


def rate(cpo_usd: Decimal, volume: int) -> Decimal:
    """Rate-card price of `volume` units at this CPO, to the cent."""
    return (cpo_usd * Decimal(volume)).quantize(RATE_QUANTUM, rounding=ROUND_HALF_EVEN)


def time_cost(seconds: Decimal, hour_usd: Decimal) -> Decimal:
    """Seconds at an hourly rate, rounded half-even to 1e-12 USD as `cost.py` rounds a call."""
    return quantize_cpo(seconds * hour_usd / Decimal(3600))


def usd_from_float(value: float) -> Decimal:
    """A bootstrap bound (computed in floats) as money on the CPO quantum."""
    return quantize_cpo(Decimal(repr(float(value))))


def ratio(numerator: Decimal | None, denominator: Decimal | None) -> float | None:
    """A dimensionless index (multiplier, premium); None when either side is undefined."""
    if numerator is None or denominator is None or denominator == 0:
        return None
    return float(numerator / denominator)
