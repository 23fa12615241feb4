"""The cost-vs-quality Pareto frontier of a workload's cells. Pure, no I/O.

A cell is on the frontier when no other drawn cell is both at least as cheap (CPO) and at least
as good (pass rate), and strictly better in one of the two. Cells without a CPO (no successful
outcome), void or withdrawn cells are not drawn, so they are never on it.
"""

from __future__ import annotations

from ledgerrate.schema import CellResult


def _dominates(a: CellResult, b: CellResult) -> bool:
    ca, cb = a.cpo_usd, b.cpo_usd
    pa, pb = a.pass_rate, b.pass_rate
    assert ca is not None and cb is not None and pa is not None and pb is not None
    return ca <= cb and pa >= pb and (ca < cb or pa > pb)


def pareto_frontier(cells: list[CellResult]) -> list[CellResult]:
    """The non-dominated cells among those with a pass rate and a CPO, cheapest first (so the
    pass rate rises along it); ties of both figures keep every tied cell."""
    priced = [c for c in cells if c.cpo_usd is not None and c.pass_rate is not None]
    front = [c for c in priced if not any(_dominates(o, c) for o in priced if o is not c)]
    return sorted(front, key=lambda c: (c.cpo_usd, -(c.pass_rate or 0.0), c.model, str(c.mode)))
