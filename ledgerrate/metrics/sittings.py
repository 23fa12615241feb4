"""Which records count: the published sitting, the counted attempt per item, the live grade.

A sitting is one complete pass over a cell; a re-run opens a new one. Sittings are never pooled:
two sittings ran at different times against possibly different provider behaviour, so their
attempts are not interchangeable, and choosing between them item by item would let the better
answer be picked after the fact.
"""

from __future__ import annotations

import pandas as pd

from ledgerrate.schema import RunStatus

INFRA = RunStatus.infra_excluded


def counted_attempts(runs: pd.DataFrame) -> pd.DataFrame:
    """Per item, the last attempt that was not an infrastructure exclusion.

    Infrastructure failures (429, 5xx, timeouts) are re-run and never counted; a model failure
    (bad output, refusal, step cap) is counted as a fail and costs what it cost.
    """
    eligible = runs[runs["status"] != INFRA]
    ordered = eligible.sort_values(["item_id", "attempt", "finished_at", "run_id"], kind="stable")
    return ordered.groupby("item_id", sort=True).tail(1).reset_index(drop=True)


def superseded_attempts(runs: pd.DataFrame) -> int:
    """Non-infra attempts replaced by a later one: the protocol allows none, so we flag them."""
    return int((runs["status"] != INFRA).sum()) - len(counted_attempts(runs))


def choose_sitting(runs: pd.DataFrame, n: int) -> tuple[int, int]:
    """(published sitting, number of other sittings) of one cell's attempts.

    The published sitting is the latest whose n items all have a counted attempt; while none is
    complete, the latest sitting (its missing items are then reported as missing).
    """
    sittings = sorted(int(s) for s in runs["sitting"].unique())
    if not sittings:
        return 1, 0
    complete = [
        s
        for s in sittings
        if counted_attempts(runs[runs["sitting"] == s])["item_id"].nunique() >= n
    ]
    chosen = complete[-1] if complete else sittings[-1]
    return chosen, len(sittings) - 1


def latest_grades(grades: pd.DataFrame) -> pd.DataFrame:
    """Per run, the grade record of the highest revision (re-grades add revisions)."""
    ordered = grades.sort_values(["run_id", "revision", "graded_at"], kind="stable")
    return ordered.groupby("run_id", sort=True).tail(1).reset_index(drop=True)
