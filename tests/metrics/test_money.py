from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledgerrate.metrics.money import CPO_QUANTUM, cpo, rate, ratio

spends = st.decimals(min_value="0", max_value="10000", places=12, allow_nan=False)
passes = st.integers(min_value=1, max_value=1000)


@given(spends, passes)
def test_cpo_times_passes_is_spend_within_the_rounding_of_each_pass(spend, k) -> None:
    # CPO is rounded once to the 1e-12 quantum, so k × CPO is off by at most k half-quanta.
    value = cpo(spend, k)
    assert value is not None
    assert abs(value * k - spend) <= k * CPO_QUANTUM / 2
    assert value.as_tuple().exponent == CPO_QUANTUM.as_tuple().exponent


@given(spends, passes)
def test_one_more_pass_at_equal_spend_never_raises_cpo(spend, k) -> None:
    assert cpo(spend, k + 1) <= cpo(spend, k)  # type: ignore[operator]


@given(spends, st.integers(min_value=0, max_value=1000))
def test_cpo_is_undefined_exactly_when_nothing_passed(spend, k) -> None:
    assert (cpo(spend, k) is None) == (k == 0)


def test_cpo_is_never_zero_or_infinite_for_no_pass() -> None:
    assert cpo(Decimal("1.23"), 0) is None
    with pytest.raises(ValueError):
        cpo(Decimal("1"), -1)


def test_rate_is_cpo_times_volume_to_the_cent_half_even() -> None:
    assert rate(Decimal("0.01234567"), 1000) == Decimal("12.35")
    assert rate(Decimal("0.00001250"), 1000) == Decimal("0.01")  # 0.0125 → half-even → 0.01
    assert rate(Decimal("0.00001500"), 1000) == Decimal("0.02")  # 0.015 → half-even → 0.02


def test_ratio_is_null_when_either_side_is() -> None:
    assert ratio(None, Decimal(1)) is None
    assert ratio(Decimal(1), None) is None
    assert ratio(Decimal(3), Decimal(2)) == 1.5
