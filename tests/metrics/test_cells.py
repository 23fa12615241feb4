from __future__ import annotations

from decimal import Decimal

from ledgerrate.metrics.cells import cell_result
from ledgerrate.schema import CellCostBasis

SEED = 12345


def result(build, runs, grades=(), *, n=15, reference=False, **kw):
    return cell_result(
        build.assemble(runs, grades, n), is_reference=reference, seed=SEED, reps=500, **kw
    )


def test_a_complete_cell_has_every_figure(build) -> None:
    runs, grades = build.graded_cell(12, usd="0.02")
    cell = result(build, runs, grades)
    assert (cell.n, cell.completed, cell.model_failures, cell.missing) == (15, 15, 0, 0)
    assert cell.passes == 12 and cell.pass_rate == 0.8
    assert cell.spend_usd == Decimal("0.30")
    assert cell.cpo_usd == Decimal("0.02500000")
    assert cell.cost_per_attempt_usd == Decimal("0.02000000")
    assert cell.qualifying is True
    assert cell.cost_basis == "measured"
    assert cell.tokens.input == 1500 and cell.tokens.output == 300
    assert cell.latency_median_s == 2.0 and cell.latency_p90_s == 2.0
    assert cell.pass_rate_ci is not None and cell.pass_rate_ci.method == "wilson-95"
    assert cell.cpo_ci is not None and cell.cpo_ci_dropped_share == 0.0


def test_eleven_of_fifteen_does_not_qualify(build) -> None:
    runs, grades = build.graded_cell(11)
    assert result(build, runs, grades).qualifying is False


def test_model_failures_count_as_fails_and_their_spend_is_in_cpo(build) -> None:
    runs, grades = build.graded_cell(13, n=14, usd="0.01")
    failed = build.run("item-15", status="model_failure", usd="0.05")
    cell = result(build, [*runs, failed], grades)
    assert cell.n == 15 and cell.model_failures == 1 and cell.passes == 13
    assert cell.spend_usd == Decimal("0.19")
    assert cell.cpo_usd == (Decimal("0.19") / 13).quantize(Decimal("1e-12"))


def test_infra_exclusions_are_reported_apart_and_never_counted(build) -> None:
    runs, grades = build.graded_cell(15, usd="0.01")
    # item-01 first hit a 503 (attempt 1), then completed at attempt 2.
    retried = build.run("item-01", attempt=2, usd="0.01")
    infra = build.run("item-01", attempt=1, status="infra_excluded", usd="0.40")
    runs = [infra if r.item_id == "item-01" else r for r in runs] + [retried]
    grades = [g for g in grades if g.item_id != "item-01"] + [build.grade(retried, "pass")]
    cell = result(build, runs, grades)
    assert cell.infra_excluded_attempts == 1
    assert cell.infra_excluded_usd == Decimal("0.40")
    assert cell.spend_usd == Decimal("0.15")
    assert cell.cpo_usd == Decimal("0.01000000")
    assert cell.n == 15 and cell.passes == 15


def test_sittings_are_never_pooled(build) -> None:
    first, first_grades = build.graded_cell(15, sitting=1, usd="0.01")
    # Sitting 2 is complete but worse: it is published, and nothing of sitting 1 leaks in.
    second, second_grades = build.graded_cell(3, sitting=2, usd="0.03")
    cell = result(build, [*first, *second], [*first_grades, *second_grades])
    assert cell.sitting == 2 and cell.other_sittings == 1
    assert cell.passes == 3 and cell.n == 15
    assert cell.spend_usd == Decimal("0.45")


def test_an_incomplete_later_sitting_leaves_the_complete_one_published(build) -> None:
    first, first_grades = build.graded_cell(12, sitting=1)
    partial = [build.run(i, sitting=2) for i in build.items(5)]
    cell = result(build, [*first, *partial], [*first_grades, *(build.grade(r) for r in partial)])
    assert cell.sitting == 1 and cell.other_sittings == 1 and cell.passes == 12


def test_while_no_sitting_is_complete_the_latest_is_shown_with_its_missing_items(build) -> None:
    partial = [build.run(i) for i in build.items(10)]
    cell = result(build, partial, [build.grade(r) for r in partial])
    assert cell.n == 10 and cell.missing == 5
    assert cell.pass_rate == 1.0 and cell.qualifying is False


def test_the_highest_grade_revision_counts(build) -> None:
    runs, grades = build.graded_cell(15)
    regraded = build.grade(runs[0], "fail", revision=2)
    cell = result(build, runs, [*grades, regraded])
    assert cell.passes == 14


def test_pending_judge_and_ungraded_runs_block_qualifying(build) -> None:
    runs, grades = build.graded_cell(15)
    pending = build.grade(runs[0], "pending_judge", revision=2)
    cell = result(build, runs, [*grades, pending])
    assert cell.pending_judge == 1 and cell.passes == 14 and cell.qualifying is False
    cell = result(build, runs, grades[1:])
    assert cell.passes == 14 and cell.qualifying is False
    assert any("no grade record" in f for f in cell.flags)


def test_no_pass_means_no_cpo_and_no_interval(build) -> None:
    runs, grades = build.graded_cell(0)
    cell = result(build, runs, grades)
    assert cell.cpo_usd is None and cell.cpo_ci is None
    assert cell.pass_rate == 0.0 and cell.spend_usd == Decimal("0.15")


def test_judge_cost_is_grading_cost_and_never_in_cpo(build) -> None:
    runs, _ = build.graded_cell(15)
    grades = [build.grade(r, "pass", judge_usd="0.50") for r in runs]
    cell = result(build, runs, grades)
    assert cell.grading_cost_usd == Decimal("7.50")
    assert cell.cpo_usd == Decimal("0.01000000")


def test_cost_basis_labels(build) -> None:
    def basis(runs, reference=False):
        return result(build, runs, reference=reference).cost_basis

    measured = [build.run(i) for i in build.items()]
    assert basis(measured) == CellCostBasis.measured
    one_estimate = [*measured[1:], build.run("item-01", basis="estimated")]
    assert basis(one_estimate) == CellCostBasis.estimated
    old_spelling = [*measured[1:], build.run("item-01", basis="estimate")]
    assert basis(old_spelling) == CellCostBasis.estimated
    mislabelled = [*measured[1:], build.run("item-01", usage_basis="estimated")]
    assert basis(mislabelled) == CellCostBasis.estimated
    compute = [build.run(i, basis="compute", compute="0.000001", usd="0") for i in build.items()]
    assert basis(compute, reference=True) == CellCostBasis.compute
    mixed = [*measured[1:], build.run("item-01", basis="compute")]
    assert basis(mixed) == CellCostBasis.mixed


def test_diagnostics_are_means_of_numeric_values(build) -> None:
    runs, _ = build.graded_cell(2, n=2)
    grades = [
        build.grade(runs[0], diagnostics={"field_accuracy": 1.0, "ok": True, "note": "x"}),
        build.grade(runs[1], diagnostics={"field_accuracy": 0.5, "ok": False}),
    ]
    cell = result(build, runs, grades, n=2)
    assert cell.diagnostics == {"field_accuracy": 0.75}


def test_reproductions_never_enter_a_cell(build) -> None:
    runs, grades = build.graded_cell(12)
    again = build.run("item-15", sitting=3, kind="reproduction", usd="9")
    cell = result(build, [*runs, again], grades)
    assert cell.sitting == 1 and cell.other_sittings == 0 and cell.spend_usd == Decimal("0.15")


def test_a_second_counted_type_attempt_is_flagged_and_only_the_last_counts(build) -> None:
    runs, grades = build.graded_cell(15)
    again = build.run("item-01", attempt=2, status="model_failure", usd="0.02")
    cell = result(build, [*runs, again], grades)
    assert cell.passes == 14 and cell.model_failures == 1
    assert cell.spend_usd == Decimal("0.16")
    assert any("superseded" in f for f in cell.flags)


def test_outside_flags_pass_through(build) -> None:
    runs, grades = build.graded_cell(15)
    cell = result(build, runs, grades, flags=["judge–human disagreement 20%: full manual regrade"])
    assert cell.flags == ["judge–human disagreement 20%: full manual regrade"]


def test_pending_judge_withholds_pass_rate_and_cpo(build) -> None:
    """A run awaiting its judge is neither pass nor fail: no rate or CPO is stated yet."""
    runs, _ = build.graded_cell(15)
    grades = [build.grade(r, "pass") for r in runs[:10]]
    grades += [build.grade(r, "pending_judge") for r in runs[10:]]
    cell = result(build, runs, grades)
    assert cell.passes == 10 and cell.pending_judge == 5
    assert cell.pass_rate is None and cell.pass_rate_ci is None
    assert cell.cpo_usd is None and cell.cpo_ci is None
    assert not cell.qualifying
    assert any("5 runs pending judge" in flag for flag in cell.flags)
    settled = result(build, runs, [build.grade(r, "pass") for r in runs])
    assert settled.pass_rate == 1.0 and settled.cpo_usd is not None
