"""The "by hand" line of a job on the card and pages (ARCHITECTURE.md §12).

Beside the cheapest qualifying model and the flagship, what the same job cost when an analyst
did it: the manual cell's rate (CPO × volume), pass rate, the hourly rate and its basis, the
timing statement, and the ratio manual CPO ÷ model CPO where both qualify. It is read from the
published manual cell and never ranked: the cheapest qualifying model, premiums and routing are
computed without it (metrics/compute.py). Where no manual arm was recorded the card says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ledgerrate.core.usd import plain
from ledgerrate.schema import MANUAL_MODEL, CellResult, RateLine, WorkloadResult

NO_MANUAL = "no manual arm recorded"
MANUAL_VOID = "void"
COST_UNKNOWN = "cost unknown"
AWAITING_JUDGE = "awaiting judge"
NO_SUCCESS = "no successful outcome"
LEGEND = {
    NO_MANUAL: "no analyst has done this job's items by hand for this edition",
    COST_UNKNOWN: "an itemised cost line of the manual arm is unknown, so its rate is too",
}


def manual_cell(workload: WorkloadResult) -> CellResult | None:
    return next((c for c in workload.cells if c.manual is not None), None)


def ratio(manual: Decimal | None, model: Decimal | None) -> float | None:
    """Manual CPO ÷ model CPO: how many times the model's cost per success doing it by hand
    costs (above 1: the model is cheaper)."""
    if manual is None or model is None or model == 0:
        return None
    return float(manual / model)


def ratio_text(value: float | None) -> str | None:
    if value is None:
        return None
    if value >= 10:
        return f"×{value:,.0f}"
    return f"×{value:.2g}" if value < 1 else f"×{value:.1f}"


@dataclass(frozen=True)
class ByHand:
    workload: str
    role: str
    passes: int
    n: int
    pass_rate: float | None
    cpo: Decimal | None
    volume: int
    status: str | None  # the word when there is no rate; None when priced
    qualifying: bool
    hourly_rate: Decimal | None
    rate_basis: str
    hours: Decimal | None
    timing_statement: str | None
    test_fixture: str | None
    void_reasons: tuple[str, ...]
    sittings: int
    vs_cheapest: float | None  # manual CPO ÷ cheapest qualifying CPO, both qualifying
    vs_flagship: float | None  # manual CPO ÷ flagship CPO, both qualifying

    @property
    def per_job(self) -> str | None:
        return None if self.cpo is None else plain(self.cpo * self.volume)

    @property
    def per_item(self) -> str | None:
        return None if self.cpo is None else plain(self.cpo)

    @property
    def vs_cheapest_text(self) -> str | None:
        return ratio_text(self.vs_cheapest)

    @property
    def vs_flagship_text(self) -> str | None:
        return ratio_text(self.vs_flagship)

    @property
    def rate_text(self) -> str:
        return "rate unknown" if self.hourly_rate is None else f"${self.hourly_rate}/h"


def _status(cell: CellResult) -> str | None:
    if cell.void:
        return MANUAL_VOID
    if cell.pending_judge:
        return AWAITING_JUDGE
    if cell.manual is not None and cell.manual.total_usd is None:
        return COST_UNKNOWN
    if cell.cpo_usd is None:
        return NO_SUCCESS
    return None


def by_hand(
    workload: WorkloadResult, flagship_line: RateLine | None, flagship_qualifies: bool
) -> ByHand | None:
    """The job's by-hand line, or None when no manual arm was recorded."""
    cell = manual_cell(workload)
    if cell is None or cell.manual is None:
        return None
    arm = cell.manual
    status = _status(cell)
    cpo = None if status else cell.cpo_usd
    both = cell.qualifying and cpo is not None
    cheapest = workload.cheapest_qualifying
    return ByHand(
        workload=workload.workload,
        role=arm.analyst_role,
        passes=cell.passes,
        n=cell.n,
        pass_rate=None if cell.void else cell.pass_rate,
        cpo=cpo,
        volume=workload.volume,
        status=status,
        qualifying=cell.qualifying,
        hourly_rate=arm.hourly_rate_usd,
        rate_basis=arm.rate_basis,
        hours=arm.hours,
        timing_statement=arm.timing_statement,
        test_fixture=arm.test_fixture,
        void_reasons=tuple(cell.void_reasons),
        sittings=len(arm.sittings),
        vs_cheapest=ratio(cpo, cheapest.cpo_usd) if both and cheapest else None,
        vs_flagship=(
            ratio(cpo, flagship_line.cpo_usd)
            if both and flagship_line is not None and flagship_qualifies
            else None
        ),
    )


def is_manual(cell: CellResult) -> bool:
    return cell.manual is not None or cell.model == MANUAL_MODEL
