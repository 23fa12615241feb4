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
from decimal import Decimal

import pandas as pd

from ledgerrate.schema import RevisionGradingCost


def grading_cost_by_revision(grades: pd.DataFrame) -> list[RevisionGradingCost]:
    """Judge calls paid and their cost, per revision, oldest first; revisions that paid for no
    call are left out."""
    if grades.empty:
        return []
    usd: dict[int, Decimal] = defaultdict(Decimal)
    calls: dict[int, int] = defaultdict(int)
    seen: set[tuple[str, str]] = set()
    ordered = grades.sort_values(["revision", "graded_at", "run_id"], kind="stable")
    for run_id, revision, held in zip(
        ordered["run_id"], ordered["revision"], ordered["judge_calls"], strict=True
    ):
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
