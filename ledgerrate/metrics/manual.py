"""The manual arm's cell (workload × `manual` × `by-hand`, ARCHITECTURE.md §12).

Its pass rate and interval are a model cell's, from the same grades. Its cost is itemised from
the recorded sitting (`manual/<workload>/sitting-<n>.json`), never one figure: human time, the
analyst's stopwatch seconds over the counted items × the hourly rate ÷ 3600, then one line per
tool as recorded. A line is a dollar figure (0 when genuinely zero) or unknown; one unknown line
makes the total, and so the CPO, unknown: nothing is filled in. CPO = total ÷ passes, like any
cell. The bootstrap resamples items with each item's cost its own time × rate plus an equal
share of the tool lines (which are per sitting, not per item). The cell's `time_priced` block
(basis `manual`) carries the counted seconds, the recorded rate and the tool lines, so a reader
can re-price it (metrics/reprice.py) to exactly what this recipe gives at their rate.

The published sitting is the latest recorded one, void or not: a later sitting is never passed
over for an earlier, better one, and earlier sittings are counted, never pooled. A void sitting
has no run records; its cell shows no figure, only the reasons.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal, localcontext

import numpy as np
import pandas as pd

from ledgerrate.metrics.cells import CellData, assemble_cell
from ledgerrate.metrics.intervals import bootstrap_cpo, keyed_rng
from ledgerrate.metrics.load import CellKey
from ledgerrate.metrics.money import cpo, per_attempt, time_cost
from ledgerrate.metrics.rows import Rows
from ledgerrate.schema import (
    CellCostBasis,
    CellResult,
    CostItem,
    ManualArm,
    ManualSitting,
    Outcome,
    TimePriced,
)

HUMAN_TIME = "human time"
SECONDS_PER_HOUR = Decimal(3600)
# Enough digits that seconds × rate ÷ 3600 is rounded once, to 1e-12 USD, as re-pricing
# (metrics/reprice.py) and the page's exact BigInt arithmetic round it.
PRECISION = 80


def human_time_usd(counted_seconds: Decimal, rate: Decimal) -> Decimal:
    """The human-time line: the counted items' seconds × the hourly rate ÷ 3600, rounded
    half-even to 1e-12 USD once over the total (not per item)."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return time_cost(counted_seconds, rate)


def seconds(value: object) -> Decimal:
    """A recorded float of seconds as its exact shortest decimal (repr), so the standalone
    verifier sums the same digits."""
    return Decimal(repr(float(value)))  # type: ignore[arg-type]


def manual_data(
    key: CellKey,
    runs: pd.DataFrame,
    grades: pd.DataFrame,
    n: int,
    sittings: Sequence[ManualSitting],
) -> CellData:
    """The records of the latest recorded sitting (none when it is void)."""
    latest = sittings[-1].sitting
    _workload, model, mode = key
    mine = runs[(runs["model"] == model) & (runs["mode"] == mode)]
    own = mine[mine["sitting"] == latest]
    graded = grades[(grades["model"] == model) & (grades["mode"] == mode)]
    data = assemble_cell(key, own, graded, n)
    return replace(data, sitting=latest, other_sittings=len(sittings) - 1, all_runs=Rows.of(mine))


def cost_lines(
    sitting: ManualSitting, counted_seconds: Decimal | None
) -> tuple[list[CostItem], Decimal | None]:
    """The itemised lines and their total (None when any line is unknown)."""
    rate = sitting.hourly_rate_usd
    if counted_seconds is None or rate is None:
        why = "no hourly rate recorded" if rate is None else "elapsed times missing"
        human = CostItem(line=HUMAN_TIME, usd=None, basis=f"unknown: {why}")
    else:
        hours = counted_seconds / SECONDS_PER_HOUR
        human = CostItem(
            line=HUMAN_TIME,
            usd=human_time_usd(counted_seconds, rate),
            basis=f"{hours.normalize():f} h × ${rate}/h ({sitting.rate_basis})",
        )
    lines = [human]
    for tool in sitting.tool_costs:
        usd = None if tool.usd == "unknown" else Decimal(tool.usd)
        basis = tool.basis if usd is not None else f"unknown: {tool.basis}"
        lines.append(CostItem(line=f"tool: {tool.tool}", usd=usd, basis=basis))
    known = all(line.usd is not None for line in lines)
    total = sum((line.usd for line in lines if line.usd is not None), Decimal(0))
    return lines, (total if known else None)


def manual_cell(
    base: CellResult, data: CellData, sittings: Sequence[ManualSitting], *, seed: int, reps: int
) -> CellResult:
    """`base` (the generic figures of the cell's records) with the manual arm's cost, block
    and void reasons."""
    sitting = sittings[-1]
    items = data.items
    n = len(items)
    void = [*sitting.void_reasons, *base.void_reasons]
    counted = (
        sum((seconds(v) for v in items["latency_s"]), Decimal(0))
        if n and not sitting.void_reasons
        else None
    )
    lines, total = cost_lines(sitting, counted)
    known_spend = sum((line.usd for line in lines if line.usd is not None), Decimal(0))
    arm = ManualArm(
        analyst_role=sitting.analyst_role,
        analyst_name=sitting.analyst_name,
        test_fixture=sitting.test_fixture,
        timing_statement=sitting.timing_statement,
        hours=None if counted is None else counted / SECONDS_PER_HOUR,
        hourly_rate_usd=sitting.hourly_rate_usd,
        rate_basis=sitting.rate_basis,
        tools=list(sitting.tools),
        cost_lines=lines,
        total_usd=total,
        sittings=[s.sitting for s in sittings],
    )
    timed = None
    if counted is not None and sitting.hourly_rate_usd is not None:
        # What re-pricing needs (metrics/reprice.py): the seconds behind the human-time line at
        # its recorded rate, and the tool lines, which do not scale with the rate.
        timed = TimePriced(
            basis="manual",
            hour_usd=sitting.hourly_rate_usd,
            seconds=counted,
            rounding_usd=Decimal(0),
            infra_excluded_seconds=Decimal(0),
            infra_excluded_rounding_usd=Decimal(0),
            fixed_usd=sum((line.usd for line in lines[1:] if line.usd is not None), Decimal(0)),
            unknown_lines=[line.line for line in lines[1:] if line.usd is None],
        )
    flags = list(base.flags)
    settled = base.pass_rate is not None
    boot = None
    if total is not None and settled and n:
        rate = sitting.hourly_rate_usd or Decimal(0)
        tools_share = (total - (lines[0].usd or Decimal(0))) / Decimal(n)
        per_item = [
            float(seconds(v) * rate / SECONDS_PER_HOUR + tools_share) for v in items["latency_s"]
        ]
        passed = [o == Outcome.passed for o in items["outcome"]]
        boot = bootstrap_cpo(
            np.array(per_item, dtype=float),
            np.array(passed, dtype=bool),
            keyed_rng(seed, "cpo", *data.key),
            reps,
        )
    if total is None and not void:
        unknown = [line.line for line in lines if line.usd is None]
        flags.append(
            f"cost unknown ({', '.join(unknown)}): spend_usd counts the known lines only, and "
            "the CPO is unknown"
        )
    return base.model_copy(
        update={
            "spend_usd": known_spend,
            "cpo_usd": cpo(total, base.passes) if total is not None and settled else None,
            "cpo_ci": boot.interval if boot else None,
            "cpo_ci_dropped_share": boot.dropped_share if boot else None,
            "cost_per_attempt_usd": per_attempt(total, n) if total is not None else None,
            "cost_basis": CellCostBasis.manual,
            "qualifying": base.qualifying and not void,
            "void": bool(void),
            "void_reasons": void,
            "flags": flags,
            "manual": arm,
            "time_priced": timed,
        }
    )
