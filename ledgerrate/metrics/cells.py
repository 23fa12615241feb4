"""Per-cell figures (workload × model × mode) of the published sitting.

`assemble_cell` picks the records that count; `cell_result` turns them into every figure of
ARCHITECTURE.md §5. Spend is the model + compute spend of every counted run, model failures
included: a refusal or a malformed answer was paid for, so leaving it out would flatter a model
that fails expensively. Infra-excluded attempts and judge spend are reported beside, never inside.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import pandas as pd

from ledgerrate.metrics.billed import billed_check
from ledgerrate.metrics.intervals import DEFAULT_REPS, bootstrap_cpo, keyed_rng, wilson_interval
from ledgerrate.metrics.load import GRADE_COLUMNS, CellKey, call_seconds
from ledgerrate.metrics.money import cpo, per_attempt, time_cost
from ledgerrate.metrics.protocol import judge_protocol
from ledgerrate.metrics.rows import Rows, is_missing
from ledgerrate.metrics.sittings import (
    INFRA,
    choose_sitting,
    counted_attempts,
    latest_grades,
    superseded_attempts,
)
from ledgerrate.schema import (
    STANDARD_N,
    CellCostBasis,
    CellResult,
    CostBasis,
    Mode,
    Outcome,
    RevisionGradingCost,
    RunStatus,
    TimePriced,
    TokenTotals,
    UsageBasis,
)

QUALITY_BAR = 0.80
# Not an outcome on disk: a completed run that has no grade record yet.
UNGRADED = "ungraded"
TOKEN_FIELDS = ("input", "cached_input", "cache_write", "output", "reasoning")


@dataclass(frozen=True)
class CellData:
    """The records one cell's figures are computed from.

    `items` holds one row per counted attempt with its grade joined on: `outcome` is an
    `Outcome` (a model failure is `fail`) or `UNGRADED` (completed, no grade record yet).
    Each set of rows is read as columns (metrics/rows.py).
    """

    key: CellKey
    n_expected: int
    sitting: int
    other_sittings: int
    items: Rows
    infra: Rows
    superseded: int
    all_runs: Rows
    tokens: TokenTotals | None = None
    """`token_totals(items)`, when the grouped pass (metrics/grouped.py) has summed it."""
    infra_tokens: TokenTotals | None = None
    """`token_totals(infra)`, likewise."""


def money_sum(values: pd.Series | Iterable[Decimal]) -> Decimal:
    return sum((Decimal(v) for v in values), Decimal(0))


def assemble_cell(
    key: CellKey, runs: pd.DataFrame, grades: pd.DataFrame, n_expected: int
) -> CellData:
    """Select the published sitting's counted attempts of one cell and join their grades."""
    sitting, others = choose_sitting(runs, n_expected)
    in_sitting = runs[runs["sitting"] == sitting]
    counted = counted_attempts(in_sitting)
    live = latest_grades(grades[grades["run_id"].isin(counted["run_id"])])
    joined = counted.merge(
        live[["run_id", *(c for c in GRADE_COLUMNS if c not in counted.columns)]],
        on="run_id",
        how="left",
    )
    joined["outcome"] = [
        Outcome.failed
        if status == RunStatus.model_failure
        else (UNGRADED if pd.isna(o) else Outcome(o))
        for status, o in zip(joined["status"], joined["outcome"], strict=True)
    ]
    return CellData(
        key=key,
        n_expected=n_expected,
        sitting=sitting,
        other_sittings=others,
        items=Rows.of(joined),
        infra=Rows.of(in_sitting[in_sitting["status"] == INFRA]),
        superseded=superseded_attempts(in_sitting),
        all_runs=Rows.of(runs),
    )


@dataclass(frozen=True)
class TimeRate:
    """How a cell is priced by time: `self-hosted` (each call's server time) or `compute` (a
    reference baseline's CPU time), at a frozen hourly rate."""

    basis: str
    hour_usd: Decimal


def column_sum(rows: Rows, column: str) -> int:
    """A count column's total as pandas' `sum()` gives it (missing values skipped), summed on
    the column's values as a list: a cell holds ~15 rows, and a pandas reduction per column
    cost more than the cell's other figures together."""
    return int(sum(v for v in rows[column] if not is_missing(v)))


def token_totals(rows: Rows) -> TokenTotals:
    return TokenTotals(**{f: column_sum(rows, f) for f in TOKEN_FIELDS})


def _seconds(rows: Rows, basis: str) -> Decimal:
    if basis == "self-hosted":
        return money_sum(call_seconds(v) for v in rows["call_latencies"] if not is_missing(v))
    return money_sum(v for v in rows["cpu_seconds"] if not is_missing(v))


def time_priced(
    rate: TimeRate, items: Rows, spend: Decimal, infra: Rows, infra_usd: Decimal
) -> TimePriced:
    """The seconds behind a time-priced cell's spend, and what per-call rounding added, so that
    seconds × rate ÷ 3600 (rounded once) + that rounding is the spend exactly."""
    seconds = _seconds(items, rate.basis)
    infra_seconds = _seconds(infra, rate.basis)
    return TimePriced(
        basis=rate.basis,
        hour_usd=rate.hour_usd,
        seconds=seconds,
        rounding_usd=spend - time_cost(seconds, rate.hour_usd),
        infra_excluded_seconds=infra_seconds,
        infra_excluded_rounding_usd=infra_usd - time_cost(infra_seconds, rate.hour_usd),
    )


def cost_basis(items: Rows, is_reference: bool) -> CellCostBasis:
    """`measured` only when every counted run's usage was provider-reported and priced.

    A run labelled measured whose usage was estimated is read as an estimate: the label follows
    the evidence, not the other way round.
    """
    if items.empty:
        return CellCostBasis.none
    # Each distinct (cost, usage) label pair read once: a cell's ~15 rows hold one or two.
    pairs = set(zip(items["cost_basis"], items["usage_basis"], strict=True))
    bases = {
        CostBasis.estimated if UsageBasis(usage) == UsageBasis.estimated else CostBasis(basis)
        for basis, usage in pairs
    }
    if bases == {CostBasis.measured}:
        return CellCostBasis.measured
    if is_reference or bases == {CostBasis.compute}:
        return CellCostBasis.compute
    if CostBasis.estimated in bases:
        return CellCostBasis.estimated
    return CellCostBasis.mixed


def mean_diagnostics(items: Rows) -> dict[str, float]:
    """Mean of each numeric diagnostic over the graded runs that report it.

    Booleans and strings are left out: a mean of labels is not a figure.
    """
    values: dict[str, list[float]] = {}
    for diag in items["diagnostics"]:
        if not isinstance(diag, dict):
            continue
        for name, value in diag.items():
            # The reader gives exactly int, float, str or bool: the type's identity answers
            # for those at once, the full test for anything else.
            kind = type(value)
            if (
                kind is float
                or kind is int
                or (isinstance(value, (int, float)) and not isinstance(value, bool))
            ):
                values.setdefault(name, []).append(float(value))
    return {name: mean(v) for name, v in sorted(values.items())}


def mean(values: list[float]) -> float:
    """`float(np.mean(values))`: numpy's sum (`add.reduce`, pairwise) divided by the count, as
    `np.mean` does it, without the Python wrapper around it that cost more than the sum on a
    cell's 15 values (tests/metrics/test_cells.py holds the two equal)."""
    return float(np.add.reduce(np.array(values, dtype=float))) / len(values)


def failures_coded(statuses: Sequence[object], failures: Sequence[object], code: str) -> int:
    """Model failures whose reason opens with `code` (`truncated`, `context_exceeded`): the
    runner writes the reason code first, so a reader can tell a cut-off or an over-long request
    from a bad answer."""
    return sum(
        status == RunStatus.model_failure
        and isinstance(failure, str)
        and failure.split(":", 1)[0] == code
        for status, failure in zip(statuses, failures, strict=True)
    )


def _latency(latencies: Sequence[float], q: int) -> float | None:
    return None if not latencies else percentile([float(v) for v in latencies], q)


def percentile(values: list[float], q: int) -> float:
    """`float(np.percentile(values, q))`, its default (linear) method step by step in floats:
    the same IEEE operations in the same order, so the same bits. numpy's call costs ~100 µs on
    a cell's 15 values, twice per cell (0.5 s of a 215-model edition's figures).
    tests/metrics/test_percentile.py holds the two equal. Values with a NaN or a negative zero
    (whose place after numpy's partition a sort does not fix) are left to numpy."""
    ordered = sorted(values)
    if any(v != v or (v == 0 and math.copysign(1.0, v) < 0) for v in ordered):
        return float(np.percentile(np.asarray(values, float), q))
    n = len(ordered)
    virtual = (n - 1) * (q / 100)
    below = math.floor(virtual)
    above = below + 1
    if virtual >= n - 1:  # numpy takes the last value twice
        below = above = -1
    if virtual < 0:
        below = above = 0
    gamma = virtual - below
    a, b = ordered[below], ordered[above]
    diff = b - a
    # numpy's _lerp: a + diff·t, or b - diff·(1 - t) from t = 0.5 on.
    return b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma


def _own_flags(
    data: CellData, outcomes: Sequence[object], outside_window: Sequence[object]
) -> list[str]:
    flags = []
    pending = sum(o == Outcome.pending_judge for o in outcomes)
    if pending:
        flags.append(
            f"{pending} runs pending judge: pass rate and CPO are withheld until every run "
            "has its grade"
        )
    ungraded = sum(o == UNGRADED for o in outcomes)
    if ungraded:
        flags.append(f"{ungraded} completed runs have no grade record yet")
    if data.superseded:
        flags.append(
            f"{data.superseded} attempts that were not infrastructure exclusions were "
            "superseded by a later attempt; only the last counts, but the protocol allows "
            "re-runs only after infrastructure exclusions"
        )
    # bool() of each value, as pandas' astype(bool) reads them (a missing float is true).
    outside = sum(bool(v) for v in outside_window)
    if outside:
        flags.append(f"{outside} counted runs started outside the edition window")
    return flags


def cell_result(
    data: CellData,
    *,
    is_reference: bool,
    seed: int,
    reps: int = DEFAULT_REPS,
    void_reasons: Sequence[str] = (),
    flags: Sequence[str] = (),
    judge_same_family: bool = False,
    judged: bool = False,
    grading_by_revision: Sequence[RevisionGradingCost] = (),
    time_rate: TimeRate | None = None,
) -> CellResult:
    """Every figure of one cell. CPO = spend ÷ passes; null when there is no pass.

    A judged cell qualifies only when the judged-task protocol is met as well (see
    metrics/protocol.py); `judge_same_family` says the judge shares the model's vendor family,
    and `judged` that the cell is of a judged workload in an edition that names a judge (it
    then always carries its `judge_protocol` block). `grading_by_revision` is all of the
    cell's grading spend (metrics/grading_cost.py), reported beside the figures.
    `time_rate` says the cell is priced by time (seconds × an hourly rate), not by tokens.
    """
    workload, model, mode = data.key
    items = data.items
    n = len(items)
    # Columns as lists (metrics/rows.py): a cell holds ~15 rows, on which some 40 pandas
    # operations cost ~4 ms (11 s of a 215-model edition's figures); the same arithmetic on
    # lists gives the same figures.
    outcomes = items["outcome"]
    statuses = items["status"]
    spends = items["spend_usd"]
    passed = [o == Outcome.passed for o in outcomes]
    passes = sum(passed)
    pending = sum(o == Outcome.pending_judge for o in outcomes)
    graded = sum(o == Outcome.passed or o == Outcome.failed for o in outcomes)
    spend = money_sum(spends)
    # A run pending its judge is neither pass nor fail, so a pass rate or CPO over a cell with
    # such runs would state something not yet measured: both are withheld until every counted
    # run has its grade (the cell says how many are pending).
    settled_grades = n > 0 and graded == n
    cell_cpo = cpo(spend, passes) if settled_grades else None
    # A cell without a pass has no CPO to bootstrap (`bootstrap_cpo` gives None before any
    # draw), so its keyed generator, a tenth of the figures' time, is not made.
    boot = (
        bootstrap_cpo(
            np.array([float(v) for v in spends]),
            np.array(passed, dtype=bool),
            keyed_rng(seed, "cpo", workload, model, mode),
            reps,
        )
        if settled_grades and passes
        else None
    )
    pass_rate = passes / n if settled_grades else None
    missing = max(data.n_expected - n, 0)
    settled = n > 0 and missing == 0 and graded == n
    protocol = judge_protocol(items, same_family=judge_same_family, judged=judged)
    failure_reasons = items["failure"] if "failure" in items else [None] * n
    latencies = items["latency_s"]
    infra_usd = money_sum(data.infra["spend_usd"])
    qualifying = (
        settled
        and n >= STANDARD_N  # §3 is binding: a smaller sample is shown, never qualifies
        and pass_rate is not None
        and pass_rate >= QUALITY_BAR
        and (protocol is None or not protocol.missing)
    )
    return CellResult(
        workload=workload,
        model=model,
        mode=Mode(mode),
        sitting=data.sitting,
        other_sittings=data.other_sittings,
        is_reference=is_reference,
        n=n,
        completed=sum(s == RunStatus.completed for s in statuses),
        model_failures=sum(s == RunStatus.model_failure for s in statuses),
        truncated=failures_coded(statuses, failure_reasons, "truncated"),
        context_exceeded=failures_coded(statuses, failure_reasons, "context_exceeded"),
        missing=missing,
        passes=passes,
        pending_judge=pending,
        pass_rate=pass_rate,
        pass_rate_ci=wilson_interval(passes, n) if pass_rate is not None else None,
        spend_usd=spend,
        cpo_usd=cell_cpo,
        cpo_ci=boot.interval if boot else None,
        cpo_ci_dropped_share=boot.dropped_share if boot else None,
        cost_per_attempt_usd=per_attempt(spend, n),
        tokens=data.tokens if data.tokens is not None else token_totals(items),
        latency_median_s=_latency(latencies, 50),
        latency_p90_s=_latency(latencies, 90),
        infra_excluded_attempts=len(data.infra),
        infra_excluded_usd=infra_usd,
        infra_excluded_tokens=(
            data.infra_tokens if data.infra_tokens is not None else token_totals(data.infra)
        ),
        time_priced=(
            None
            if time_rate is None
            else time_priced(time_rate, items, spend, data.infra, infra_usd)
        ),
        infra_excluded_unpriced_calls=column_sum(data.infra, "unpriced_calls"),
        grading_cost_usd=money_sum(v for v in items["judge_usd"] if not is_missing(v)),
        grading_cost_by_revision=list(grading_by_revision),
        cost_basis=cost_basis(items, is_reference),
        billed=billed_check(items),
        qualifying=qualifying,
        void=bool(void_reasons),
        void_reasons=list(void_reasons),
        diagnostics=mean_diagnostics(items),
        flags=[*flags, *_own_flags(data, outcomes, items["outside_window"])],
        judge_protocol=protocol,
    )
