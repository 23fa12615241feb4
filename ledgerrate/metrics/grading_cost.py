"""All grading spend of a cell, by grade revision: every judge call paid, once.

`grading_cost_usd` is the judge spend of the grades a cell's figures rest on (each counted run's
latest revision). A regrade writes a new revision for every run, so the calls paid under the
earlier revisions (a judge whose replies were unusable, a grader corrected later) would be in no
figure. This adds them up per revision, over every grade record of the cell (every sitting and
attempt, counted or not).

A regrade that carries a judge's verdict forward (grade/carry.py) copies its block, cost
included, without calling the judge: a block identical to one the same run already holds in an
earlier revision is that earlier call, paid once, where it first appears. The second opinion is
matched on its own (a regrade may drop it while carrying the first).

Pure: the grade frame's `judge_calls` column (metrics/load.py) holds each record's calls.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

import pandas as pd

from ledgerrate.schema import RevisionGradingCost

ORDER = ["revision", "graded_at", "run_id"]


def grading_cost_by_revision(grades: pd.DataFrame) -> list[RevisionGradingCost]:
    """Judge calls paid and their cost, per revision, oldest first; revisions that paid for no
    call are left out."""
    if grades.empty:
        return []
    ordered = grades.sort_values(ORDER, kind="stable")
    return _by_revision(zip(ordered["run_id"], ordered["revision"], ordered["judge_calls"]))  # noqa: B905


def grading_costs_by_cell(grades: pd.DataFrame) -> dict[tuple[str, str], list[RevisionGradingCost]]:
    """`grading_cost_by_revision` of every (model, mode) of one workload's grades at once.

    One stable sort of the whole frame: a cell's rows keep, among themselves, the order a
    stable sort of that cell alone gives them (ties in the order read), so each cell's
    revisions are the same; a sort per cell cost some 2 ms, 6 s of a 215-model edition."""
    if grades.empty:
        return {}
    ordered = grades.sort_values(ORDER, kind="stable")
    rows: dict[tuple[str, str], list[tuple[str, int, tuple]]] = defaultdict(list)
    for model, mode, run_id, revision, held in zip(  # noqa: B905
        ordered["model"].tolist(),
        ordered["mode"].tolist(),
        ordered["run_id"].tolist(),
        ordered["revision"].tolist(),
        ordered["judge_calls"].tolist(),
    ):
        rows[(model, mode)].append((run_id, revision, held))
    return {cell: _by_revision(found) for cell, found in rows.items()}


def _by_revision(rows: Iterable[tuple[str, int, tuple]]) -> list[RevisionGradingCost]:
    usd: dict[int, Decimal] = defaultdict(Decimal)
    calls: dict[int, int] = defaultdict(int)
    seen: set[tuple[str, str]] = set()
    for run_id, revision, held in rows:
        for block, cost in held:
            if (run_id, block) in seen:
                continue  # carried forward from an earlier revision: paid there
            seen.add((run_id, block))
            usd[int(revision)] += cost
            calls[int(revision)] += 1
    return [
        RevisionGradingCost(revision=revision, judge_calls=calls[revision], usd=usd[revision])
        for revision in sorted(calls)
    ]
