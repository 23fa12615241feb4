"""The one money formatter: four significant digits, never a run of zeros, exact on request."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledgerrate.usd import exact, job_and_item, reading, usd

D = Decimal


@pytest.mark.parametrize(
    ("amount", "unit", "text"),
    [
        ("0", "", "$0"),
        ("0.42", "", "$0.42"),
        ("0.039", "", "$0.039"),
        ("12.345", "", "$12.34"),
        ("1234.5", "", "$1,234"),
        ("0.00000001228", "jobs", "$12.28 per billion jobs"),
        ("0.00002697", "jobs", "$26.97 per million jobs"),
        ("0.0000001294", "outcomes", "$129.4 per billion outcomes"),
        ("0.000000001", "outcomes", "$1 per billion outcomes"),
        ("0.0000001", "", "under $0.01"),
    ],
)
def test_reads(amount: str, unit: str, text: str) -> None:
    assert usd(D(amount), unit) == text


def test_sub_cent_rate_is_not_under_a_cent_with_a_tail_of_zeros() -> None:
    # Was: "under $0.01 ($0.00000001228)" on the card.
    shown = reading(D("0.00000001228"), "jobs")
    assert shown.text == "$12.28 per billion jobs"
    assert shown.exact == "$0.00000001228"


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
def test_four_significant_digits_at_most_and_never_a_run_of_zeros(amount: Decimal) -> None:
    text = usd(amount, "outcomes")
    figure = text.split(" ")[0].lstrip("$").replace(",", "")
    assert len(figure.replace(".", "").lstrip("0")) <= 4, text
    assert not figure.startswith("0.00"), text
    assert float(figure) > 0, text
