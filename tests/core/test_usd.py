"""The one money formatter: four significant digits, never a run of zeros, exact on request."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledgerrate.core.usd import exact, job_and_item, plain, reading, usd

D = Decimal


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        ("0", "$0"),
        ("0.42", "$0.42"),
        ("0.039", "$0.039"),
        ("12.345", "$12.34"),
        ("1234.5", "$1,234"),
        ("0.0000001", "under $0.01"),
        ("-0.0000001", "-under $0.01"),
    ],
)
def test_a_total_reads(amount: str, text: str) -> None:
    assert usd(D(amount)) == text


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        ("0.00000001228", "$0.0000000123"),
        ("0.00002697", "$0.0000270"),
        ("0.0000001294", "$0.000000129"),
        ("0.42", "$0.42"),
        ("1234.5", "$1,234"),
    ],
)
def test_a_cost_per_unit_reads_in_plain_dollars_never_per_billion(amount: str, text: str) -> None:
    # Was: "$12.28 per billion jobs", "$26.97 per million jobs" on the card and the pages.
    assert plain(D(amount)) == text
    assert reading(D(amount)).exact == exact(D(amount))


def test_a_cpo_reads_per_job_and_per_item_with_its_interval_per_item() -> None:
    # Was: "$97.07 [$75.44, $132] per billion outcomes" on the results tables and the CLI.
    text = job_and_item(D("0.00000009707"), 1000, D("0.00000007544"), D("0.000000132"))
    assert text == "$0.0000971 per job · $0.0000000971 per item [$0.0000000754, $0.000000132]"
    assert job_and_item(D("0.00000015662"), 1000) == "$0.000157 per job · $0.000000157 per item"
    assert job_and_item(D("12.346"), 1) == "$12.35 per job · $12.35 per item"


def test_exact_keeps_every_digit() -> None:
    assert exact(D("0.000000011485000")) == "$0.000000011485"
    assert exact(D("1234567.5")) == "$1,234,567.5"


@given(st.decimals(min_value=D("1e-12"), max_value=D("99.99"), places=12))
def test_a_cost_per_unit_keeps_three_significant_digits_however_small(amount: Decimal) -> None:
    text = plain(amount)
    figure = D(text.lstrip("$").replace(",", ""))
    digits = text.lstrip("$").replace(",", "").replace(".", "").lstrip("0")
    assert figure > 0 and " " not in text, text
    if amount < D("0.01"):
        assert len(digits) <= 3, text
        assert abs(figure - amount) <= amount * D("0.005"), text
