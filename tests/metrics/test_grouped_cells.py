"""The grouped pass over all cells gives every cell exactly what the per-cell rules give it.

`metrics.grouped.assemble_cells` replaces a sort, group-by and merge per cell with one of each
per workload; the figures must not move by a bit. Checked on random logs (sittings, retries,
infra exclusions, model failures, duplicated records, grade revisions, missing grades) and on
the bundled editions' published figures.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledgerrate.metrics import compute as compute_module
from ledgerrate.metrics import meta
from ledgerrate.metrics.cells import assemble_cell, cell_result
from ledgerrate.metrics.grouped import assemble_cells
from ledgerrate.metrics.load import grades_frame, load_inputs, runs_frame

REPO = Path(__file__).resolve().parents[2]

RUN = st.tuples(
    st.sampled_from(["cheap", "big"]),
    st.sampled_from(["single-shot", "agentic"]),
    st.integers(min_value=1, max_value=2),  # sitting
    st.integers(min_value=1, max_value=4),  # item
    st.integers(min_value=1, max_value=3),  # attempt
    st.sampled_from(["completed", "completed", "model_failure", "infra_excluded"]),
    st.decimals(min_value="0", max_value="2", places=4, allow_nan=False),
    st.floats(min_value=0.1, max_value=30, allow_nan=False),
    # grades: none, one, or a revision that overrides the first
    st.sampled_from([(), ("pass",), ("fail",), ("fail", "pass"), ("pass", "fail")]),
)


def _per_cell(key, runs, grades, n):
    _, model, mode = key
    cell_runs = runs[(runs["model"] == model) & (runs["mode"] == mode)]
    cell_grades = grades[(grades["model"] == model) & (grades["mode"] == mode)]
    return assemble_cell(key, cell_runs, cell_grades, n)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plan=st.lists(RUN, max_size=40), n=st.integers(min_value=1, max_value=4))
def test_grouped_cells_equal_the_per_cell_rules(build, plan, n) -> None:
    records, grade_records = [], []
    for model, mode, sitting, item, attempt, status, usd, latency, outcomes in plan:
        run = build.run(
            f"item-{item:02d}",
            model=model,
            mode=mode,
            sitting=sitting,
            attempt=attempt,
            status=status,
            usd=str(usd),
            latency=latency,
        )
        records.append(run)
        if status == "completed":
            grade_records += [
                build.grade(run, outcome, revision=revision, judge_usd="0.001")
                for revision, outcome in enumerate(outcomes, start=1)
            ]
    runs, grades = runs_frame(records), grades_frame(grade_records)
    keys = [
        (build.WL, m, mode)
        for m in ("cheap", "big", "absent")
        for mode in ("single-shot", "agentic")
    ]
    grouped = assemble_cells(keys, runs, grades, n)
    assert list(grouped) == keys
    for key in keys:
        one = _per_cell(key, runs, grades, n)
        many = grouped[key]
        assert (many.sitting, many.other_sittings, many.superseded, len(many.infra)) == (
            one.sitting,
            one.other_sittings,
            one.superseded,
            len(one.infra),
        )
        assert list(many.items["run_id"]) == list(one.items["run_id"])
        assert list(many.items["outcome"]) == list(one.items["outcome"])
        figures = [
            cell_result(d, is_reference=False, seed=11, reps=50).model_dump(mode="json")
            for d in (one, many)
        ]
        assert figures[0] == figures[1]


def _per_cell_pass(keys, runs, grades, n):
    """The rules cell by cell, as `workload_result` applied them before the grouped pass."""
    return {key: _per_cell(key, runs, grades, n) for key in keys}


@pytest.mark.parametrize("edition", ["2026-11", "2026-11-b", "2026-12"])
def test_bundled_figures_are_the_same_either_way(edition, monkeypatch) -> None:
    root = REPO / "editions" / edition
    if not (root / "results.json").exists():
        pytest.skip(f"{edition} is not bundled in this checkout")
    inputs = load_inputs(root)
    grouped = compute_module.compute_results(inputs, meta.registry_meta).model_dump(mode="json")
    monkeypatch.setattr(compute_module, "assemble_cells", _per_cell_pass)
    inputs = load_inputs(root)
    one_by_one = compute_module.compute_results(inputs, meta.registry_meta).model_dump(mode="json")
    assert grouped == one_by_one
