"""Every judge call paid for a cell's grades is reported, by revision (2026-12's
generate.variance-commentary.v1/reference paid $0.00548 under revisions 1-2 that no figure
showed)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from ledgerrate.metrics.grading_cost import grading_cost_by_revision, grading_costs_by_cell
from ledgerrate.metrics.load import grades_frame
from ledgerrate.metrics.report import edition_results


def _by_revision(found) -> list[tuple[int, int, Decimal]]:
    return [(r.revision, r.judge_calls, r.usd) for r in found]


def test_each_revision_reports_what_it_paid(build) -> None:
    runs, _ = build.graded_cell(0, n=3)
    grades = [
        build.grade(run, "pending-judge", revision=revision, judge_usd=usd)
        for revision, usd in ((1, "0.001"), (2, "0.002"), (3, "0.004"))
        for run in runs
    ]
    found = grading_cost_by_revision(grades_frame(grades))
    assert _by_revision(found) == [
        (1, 3, Decimal("0.003")),
        (2, 3, Decimal("0.006")),
        (3, 3, Decimal("0.012")),
    ]


def test_a_carried_verdict_is_paid_once_and_a_run_without_a_judge_pays_nothing(build) -> None:
    runs, _ = build.graded_cell(0, n=2)
    first, second = runs
    grades = [
        build.grade(first, "pass", revision=1, judge_usd="0.001"),
        # The regrade carried the same block forward: no judge call was made for it.
        build.grade(first, "pass", revision=2, judge_usd="0.001"),
        build.grade(second, "fail", revision=1),
        build.grade(second, "fail", revision=2, judge_usd="0.005"),
    ]
    found = grading_cost_by_revision(grades_frame(grades))
    assert _by_revision(found) == [(1, 1, Decimal("0.001")), (2, 1, Decimal("0.005"))]
    assert grading_cost_by_revision(grades_frame([build.grade(first, "fail")])) == []


def test_results_carry_every_revision_beside_the_latest(build, lookup, tmp_path: Path) -> None:
    runs, _ = build.graded_cell(0, n=15)
    grades = [
        build.grade(run, "fail", revision=revision, judge_usd=usd)
        for revision, usd in ((1, "0.001"), (2, "0.003"))
        for run in runs
    ]
    root = build.write_edition(tmp_path, runs, grades)
    (cell,) = [c for w in edition_results(root, lookup, reps=50).workloads for c in w.cells
               if c.model == runs[0].model and str(c.mode) == str(runs[0].mode)]  # fmt: skip
    assert cell.grading_cost_usd == Decimal("0.045")  # the figures rest on revision 2
    assert _by_revision(cell.grading_cost_by_revision) == [
        (1, 15, Decimal("0.015")),
        (2, 15, Decimal("0.045")),
    ]
    assert "grading_cost_by_revision" in cell.model_dump(mode="json")


def test_a_cell_without_any_judge_call_keeps_its_published_form(build, lookup, tmp_path) -> None:
    runs, grades = build.graded_cell(15)
    root = build.write_edition(tmp_path, runs, grades)
    for workload in edition_results(root, lookup, reps=50).workloads:
        for cell in workload.cells:
            assert cell.grading_cost_by_revision == []
            assert "grading_cost_by_revision" not in cell.model_dump(mode="json")


def test_every_cell_at_once_is_each_cell_on_its_own(build) -> None:
    """One sort over a workload's grades gives each (model, mode) what a sort of its own
    rows gives: the same revisions, calls and cost, carried blocks paid once."""
    grades = []
    for k, (model, mode) in enumerate(
        (("m-a", "single-shot"), ("m-b", "single-shot"), ("m-a", "agentic"))
    ):
        runs, _ = build.graded_cell(0, n=3, model=model, mode=mode)
        for revision in (3, 1, 2):  # written out of revision order
            for i, run in enumerate(runs):
                usd = "0.001" if revision < 3 and i == 0 else f"0.00{revision + k}"
                grades.append(build.grade(run, "fail", revision=revision, judge_usd=usd))
    frame = grades_frame(grades[::-1])
    found = grading_costs_by_cell(frame)
    assert set(found) == {("m-a", "single-shot"), ("m-b", "single-shot"), ("m-a", "agentic")}
    for (model, mode), costs in found.items():
        own = frame[(frame["model"] == model) & (frame["mode"] == mode)]
        assert costs == grading_cost_by_revision(own)
        assert costs[1].judge_calls == 2  # the carried block of revision 2 is paid in 1
    assert grading_costs_by_cell(frame.iloc[0:0]) == {}
