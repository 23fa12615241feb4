"""§3 of the standard is binding: 15 items per cell. A cell registered with fewer items (an
edition may, with a reason) is published with its true n but never qualifies, however well it
did; and every place that says why a cell does not qualify names the short sample."""

from __future__ import annotations

from ledgerrate.metrics.cells import cell_result
from ledgerrate.metrics.console import _short_status, _status
from ledgerrate.metrics.indices import cheapest_qualifying, flagship_note
from ledgerrate.schema import STANDARD_N

SEED = 12345


def _cell(build, passed: int, n: int):
    runs, grades = build.graded_cell(passed, n=n, usd="0.01")
    return cell_result(build.assemble(runs, grades, n), is_reference=False, seed=SEED, reps=200)


def test_five_of_five_does_not_qualify_where_fifteen_of_fifteen_does(build) -> None:
    full = _cell(build, STANDARD_N, STANDARD_N)
    short = _cell(build, 5, 5)
    assert full.qualifying is True  # the same cell at the standard's n qualifies
    assert short.n == 5 and short.pass_rate == 1.0 and short.missing == 0
    assert short.qualifying is False
    assert short.cpo_usd is not None  # still published with its figures


def test_a_short_cell_is_never_the_cheapest_qualifying_and_says_why(build) -> None:
    short = _cell(build, 5, 5)
    assert cheapest_qualifying([short]) is None
    assert "n = 5, short of the standard's 15" in _status(short)
    assert "n = 5" in _short_status(short)
    note = flagship_note(short, {short.model})
    assert note is not None and "n = 5, short of the standard's 15" in note
