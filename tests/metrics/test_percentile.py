"""`cells.percentile` gives `np.percentile`'s value to the last bit, and `cells.mean`
`np.mean`'s (a latency or a diagnostic is published as a float, so any difference would change
results.json)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ledgerrate.metrics.cells import mean, percentile

latencies = st.lists(
    st.one_of(
        st.floats(min_value=0, max_value=1e6, allow_nan=False),
        st.sampled_from([0.0, -0.0, 0.1, 0.2, 1.5, 2.0, 1e-300, 7e5]),
    ),
    min_size=1,
    max_size=40,
)


@given(latencies, st.sampled_from([0, 10, 25, 50, 90, 99, 100]))
def test_the_same_bits_as_numpy(values: list[float], q: int) -> None:
    expected = float(np.percentile(np.asarray(values, float), q))
    found = percentile(values, q)
    assert found.hex() == expected.hex()


def test_the_edges() -> None:
    for values in ([3.0], [1.0, 2.0], [0.1] * 15, [2.0, 1.0, float("inf")], [float("nan"), 1.0]):
        for q in (50, 90):
            with np.errstate(invalid="ignore"):  # inf - inf, as numpy computes it too
                expected = float(np.percentile(np.asarray(values, float), q))
            found = percentile(values, q)
            assert found.hex() == expected.hex() or (found != found and expected != expected)


@given(
    st.lists(
        st.one_of(
            st.floats(min_value=-1e300, max_value=1e300),  # a sum that stays finite
            st.integers(min_value=-(2**60), max_value=2**60).map(float),
        ),
        min_size=1,
        max_size=300,
    )
)
def test_a_mean_has_the_same_bits_as_numpy(values: list[float]) -> None:
    """`cells.mean` (a diagnostic's mean) is `np.mean`, without its wrapper."""
    assert mean(values).hex() == float(np.mean(values)).hex()
