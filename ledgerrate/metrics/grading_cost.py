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

Pure: the grade frame's `judge_costs` column (metrics/load.py) holds the cost of each call a
record holds, and `judge_json` its judge block as written. Only a run graded more than once can
hold a carried block, so only its blocks are read by the schema to be compared (`judge_calls`);
every call of a run graded once is its own.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import pandas as pd

from ledgerrate.metrics.load import judge_calls
from ledgerrate.schema import JudgeBlock, RevisionGradingCost

# (run id, revision, cost of each judge call, the judge block as written or None)
Row = tuple[str, int, tuple, bytes | None]

ORDER = ["revision", "graded_at", "run_id"]


def grading_cost_by_revision(grades: pd.DataFrame) -> list[RevisionGradingCost]:
    """Judge calls paid and their cost, per revision, oldest first; revisions that paid for no
    call are left out."""
    if grades.empty:
        return []
    ordered = grades.sort_values(ORDER, kind="stable")
    return _by_revision(
        zip(  # noqa: B905
            ordered["run_id"].tolist(),
            ordered["revision"].tolist(),
            ordered["judge_costs"].tolist(),
            ordered["judge_json"].tolist(),
        )
    )


def grading_costs_by_cell(grades: pd.DataFrame) -> dict[tuple[str, str], list[RevisionGradingCost]]:
    """`grading_cost_by_revision` of every (model, mode) of one workload's grades at once.

    One stable sort of the whole frame: a cell's rows keep, among themselves, the order a
    stable sort of that cell alone gives them (ties in the order read), so each cell's
    revisions are the same; a sort per cell cost some 2 ms, 6 s of a 215-model edition."""
    if grades.empty:
        return {}
    ordered = grades.sort_values(ORDER, kind="stable")
    rows: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for model, mode, run_id, revision, costs, block in zip(  # noqa: B905
        ordered["model"].tolist(),
        ordered["mode"].tolist(),
        ordered["run_id"].tolist(),
        ordered["revision"].tolist(),
        ordered["judge_costs"].tolist(),
        ordered["judge_json"].tolist(),
    ):
        rows[(model, mode)].append((run_id, revision, costs, block))
    return {cell: _by_revision(found) for cell, found in rows.items()}


def _held(costs: tuple, block: bytes | None, graded_again: bool) -> Iterable[tuple[object, Any]]:
    """(identity, cost) of each judge call of a record; a block is read by the schema only when
    its run was graded again, since a carried block can only be in a later grade of one run."""
    if not graded_again or block is None:
        return enumerate(costs)
    return judge_calls(JudgeBlock.model_validate_json(block))


def _by_revision(rows: Iterable[Row]) -> list[RevisionGradingCost]:
    usd: dict[int, Decimal] = defaultdict(Decimal)
    calls: dict[int, int] = defaultdict(int)
    seen: set[tuple[str, object]] = set()
    rows = list(rows)
    grades_of = Counter(run_id for run_id, *_ in rows)
    for run_id, revision, costs, block in rows:
        for key, cost in _held(costs, block, grades_of[run_id] > 1):
            if (run_id, key) in seen:
                continue  # carried forward from an earlier revision: paid there
            seen.add((run_id, key))
            usd[int(revision)] += cost
            calls[int(revision)] += 1
    return [
        RevisionGradingCost(revision=revision, judge_calls=calls[revision], usd=usd[revision])
        for revision in sorted(calls)
    ]
