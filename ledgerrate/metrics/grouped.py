"""Every cell of a workload assembled in one grouped pass over its frames.

`cells.assemble_cell` states the rules for one cell (the published sitting, the counted attempt
per item, the live grade). Applied cell by cell it sorts, groups and merges small frames a few
times per cell, and that per-cell overhead grew to most of the cost of `results` at 40 models.
Here the same rules run once over all of a workload's rows: one sort and one group-by for the
counted attempts of every (cell, sitting, item), one for the latest grade of every run, one
merge. Each cell then gets its slice, rows in the order the per-cell rules give them, so every
figure is the same to the last bit (tests/metrics/test_grouped_cells.py checks the two against
each other). Cells with no counted attempt take the per-cell path: they are few and cheap.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ledgerrate.metrics.cells import TOKEN_FIELDS, UNGRADED, CellData, assemble_cell
from ledgerrate.metrics.load import GRADE_COLUMNS, RUN_COLUMNS, CellKey
from ledgerrate.metrics.rows import Columns, Rows
from ledgerrate.metrics.sittings import INFRA
from ledgerrate.schema import Outcome, RunStatus, TokenTotals

CELL = ["model", "mode"]
# The per-cell sort keys of `counted_attempts` and `latest_grades`, behind the cell's own keys.
ATTEMPT_ORDER = [*CELL, "sitting", "item_id", "attempt", "finished_at", "run_id"]
GRADE_ORDER = [*CELL, "run_id", "revision", "graded_at"]
GRADE_ONLY = [c for c in GRADE_COLUMNS if c not in RUN_COLUMNS]


def _published_sittings(
    runs: pd.DataFrame, counted: pd.DataFrame, n_expected: int
) -> dict[tuple[str, str], tuple[int, int]]:
    """(model, mode) → (published sitting, other sittings), as `sittings.choose_sitting`."""
    items_counted = counted.groupby([*CELL, "sitting"], sort=False).size().to_dict()
    chosen: dict[tuple[str, str], tuple[int, int]] = {}
    # The sittings of each cell, read off the columns as lists: a group-by's `unique` runs a
    # Python function per cell (0.1 CPU-s of a 215-model edition).
    sittings_of: dict[tuple[str, str], set[int]] = {}
    for model, mode, sitting in zip(  # noqa: B905
        runs["model"].tolist(), runs["mode"].tolist(), runs["sitting"].tolist()
    ):
        sittings_of.setdefault((model, mode), set()).add(int(sitting))
    for (model, mode), found in sittings_of.items():
        sittings = sorted(found)
        complete = [s for s in sittings if items_counted.get((model, mode, s), 0) >= n_expected]
        chosen[(model, mode)] = (complete[-1] if complete else sittings[-1], len(sittings) - 1)
    return chosen


def _in_sitting(frame: pd.DataFrame, chosen: dict[tuple[str, str], tuple[int, int]]) -> pd.Series:
    """Rows of `frame` in their cell's published sitting."""
    published = [
        chosen[(model, mode)][0] == sitting
        for model, mode, sitting in zip(
            frame["model"].tolist(), frame["mode"].tolist(), frame["sitting"].tolist(), strict=True
        )
    ]
    return pd.Series(published, index=frame.index, dtype=bool)


def assemble_cells(
    keys: Iterable[CellKey], runs: pd.DataFrame, grades: pd.DataFrame, n_expected: int
) -> dict[CellKey, CellData]:
    """`assemble_cell` for every key of one workload, from that workload's runs and grades."""
    keys = list(keys)
    if runs.empty:
        return {key: assemble_cell(key, runs, grades, n_expected) for key in keys}
    eligible = runs[runs["status"] != INFRA]
    ordered = eligible.sort_values(ATTEMPT_ORDER, kind="stable")
    # Per (cell, sitting, item) the last attempt that was not an infrastructure exclusion.
    counted_any = ordered.groupby([*CELL, "sitting", "item_id"], sort=False).tail(1)
    chosen = _published_sittings(runs, counted_any, n_expected)

    counted = counted_any[_in_sitting(counted_any, chosen)]
    in_sitting = runs[_in_sitting(runs, chosen)]
    eligible_in = int_counts(in_sitting[in_sitting["status"] != INFRA])
    counted_in = int_counts(counted)

    # The latest grade of each counted run, per cell (a cell's grades are matched to its runs).
    wanted = counted[[*CELL, "run_id"]].drop_duplicates()
    graded = grades.merge(wanted, on=[*CELL, "run_id"], how="inner") if not grades.empty else grades
    live = (
        graded.sort_values(GRADE_ORDER, kind="stable")
        .groupby([*CELL, "run_id"], sort=False)
        .tail(1)
    )
    joined = counted.merge(live[[*CELL, "run_id", *GRADE_ONLY]], on=[*CELL, "run_id"], how="left")
    joined["outcome"] = [
        Outcome.failed
        if status == RunStatus.model_failure
        else (UNGRADED if pd.isna(o) else Outcome(o))
        for status, o in zip(joined["status"].tolist(), joined["outcome"].tolist(), strict=True)
    ]

    # Each cell's rows are its positions in the workload's frames, read as columns
    # (metrics/rows.py): a frame per cell cost more than the figures computed from it.
    all_runs, items_of = Columns(runs), Columns(joined)
    runs_by_cell, items_by_cell = all_runs.groups(CELL), items_of.groups(CELL)
    infra = in_sitting[in_sitting["status"] == INFRA]
    infra_of = Columns(infra)
    infra_by_cell = infra_of.groups(CELL)
    # Token counts are whole numbers, so one grouped sum is each cell's sum exactly; a column
    # sum per cell and per field cost most of a 215-model edition's per-cell figures.
    items_tokens, infra_tokens = token_sums(joined), token_sums(infra)
    cells: dict[CellKey, CellData] = {}
    for key in keys:
        _, model, mode = key
        items = items_by_cell.get((model, mode))
        if items is None:  # no runs, or none counted: the per-cell rules, on this cell alone
            cell_grades = grades[(grades["model"] == model) & (grades["mode"] == mode)]
            cell_runs = runs.iloc[runs_by_cell.get((model, mode), [])]
            cells[key] = assemble_cell(key, cell_runs, cell_grades, n_expected)
            continue
        sitting, others = chosen[(model, mode)]
        cells[key] = CellData(
            key=key,
            n_expected=n_expected,
            sitting=sitting,
            other_sittings=others,
            items=Rows(items_of, items),
            infra=Rows(infra_of, infra_by_cell.get((model, mode), [])),
            superseded=eligible_in.get((model, mode), 0) - counted_in.get((model, mode), 0),
            all_runs=Rows(all_runs, runs_by_cell[(model, mode)]),
            tokens=items_tokens[(model, mode)],
            infra_tokens=infra_tokens.get((model, mode), TokenTotals()),
        )
    return cells


def token_sums(frame: pd.DataFrame) -> dict[tuple[str, str], TokenTotals]:
    """`cells.token_totals` of each (model, mode) of `frame`, from one grouped sum (missing
    values skipped, as the per-cell sum skips them); a cell without rows has none here."""
    if frame.empty:
        return {}
    sums = frame.groupby(CELL, sort=False)[list(TOKEN_FIELDS)].sum()
    columns = [sums[f].tolist() for f in TOKEN_FIELDS]
    return {
        key: TokenTotals(**{f: int(v) for f, v in zip(TOKEN_FIELDS, values, strict=True)})
        for key, *values in zip(sums.index, *columns, strict=True)
    }


def int_counts(frame: pd.DataFrame) -> dict[tuple[str, str], int]:
    """Rows per (model, mode)."""
    if frame.empty:
        return {}
    return {key: int(v) for key, v in frame.groupby(CELL, sort=False).size().items()}
