from __future__ import annotations

from ledgerrate.metrics.void import cross_mode_reasons, void_reasons


def test_a_clean_cell_is_not_void(build) -> None:
    runs, grades = build.graded_cell(15)
    assert void_reasons(build.assemble(runs, grades), build.registration()) == []


def test_an_unregistered_dataset_voids_the_cell(build) -> None:
    runs, grades = build.graded_cell(15)
    stray = build.run("item-01", dataset_hash="f" * 64)
    data = build.assemble([stray, *runs[1:]], grades[1:])
    [reason] = void_reasons(data, build.registration())
    assert "ffffffffffff" in reason and "registered" in reason


def test_any_simulated_attempt_voids_the_cell(build) -> None:
    runs, grades = build.graded_cell(15)
    # Even an attempt in a sitting that is not published: a simulated record has no place.
    ghost = build.run("item-01", sitting=2, simulated=True)
    reasons = void_reasons(build.assemble([*runs, ghost], grades), build.registration())
    assert any("simulated" in r for r in reasons)


def test_no_registration_voids_a_cell_with_records(build) -> None:
    runs, grades = build.graded_cell(15)
    reasons = void_reasons(build.assemble(runs, grades), None)
    assert reasons and "registration" in reasons[0]


def test_a_grader_or_rubric_other_than_the_registered_one_voids(build) -> None:
    runs, _ = build.graded_cell(15)
    grades = [build.grade(r, grader_hash="0" * 64) for r in runs]
    assert any(
        "grader" in r for r in void_reasons(build.assemble(runs, grades), build.registration())
    )
    grades = [build.grade(r, judge_usd="0.01", rubric_hash="0" * 64) for r in runs]
    assert any(
        "rubric" in r for r in void_reasons(build.assemble(runs, grades), build.registration())
    )


def test_two_modes_answering_different_datasets_void_both(build) -> None:
    single, _ = build.graded_cell(15, mode="single-shot")
    agentic, _ = build.graded_cell(15, mode="agentic", dataset_hash="f" * 64)
    other, _ = build.graded_cell(15, model="big")
    cells = {
        (build.WL, "cheap", "single-shot"): build.assemble(single),
        (build.WL, "cheap", "agentic"): build.assemble(agentic),
        (build.WL, "big", "single-shot"): build.assemble(other),
    }
    found = cross_mode_reasons(cells)
    assert set(found) == {(build.WL, "cheap", "single-shot"), (build.WL, "cheap", "agentic")}
    assert "different datasets" in found[(build.WL, "cheap", "agentic")][0]
