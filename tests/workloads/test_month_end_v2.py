"""execute.month-end.v2: the prompt states the standard's rule, each item its own schedule."""

from __future__ import annotations

import copy
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.workloads import WORKLOADS, get
from ledgerrate.workloads.base import Answer, Dataset, Workload
from ledgerrate.workloads.execute_month_end import v1_revision2 as v1
from ledgerrate.workloads.execute_month_end.v2 import WORKLOAD

SEED = 2026


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return WORKLOAD.generate(random.Random(SEED), 15)


def state_answer(entries: list[dict[str, Any]]) -> Answer:
    return Answer(text="Close summary.", tool_state={"journal_entries": entries})


def test_reference_entries_pass_every_item(dataset: Dataset) -> None:
    for item in dataset.items:
        grade = WORKLOAD.grade(item, state_answer(copy.deepcopy(item.truth["entries"])))
        assert grade.deterministic_pass, item.id


def test_baseline_closes_every_item_as_v1s_did_without_reading_truth(dataset: Dataset) -> None:
    v1_data = v1.WORKLOAD.generate(random.Random(SEED), 15)
    v1_passes = sum(
        v1.WORKLOAD.grade(i, v1.WORKLOAD.baseline(replace(i, truth={}), v1_data)).deterministic_pass
        for i in v1_data.items
    )
    passes = sum(
        WORKLOAD.grade(i, WORKLOAD.baseline(replace(i, truth={}), dataset)).deterministic_pass
        for i in dataset.items
    )
    assert passes == v1_passes == 15


@pytest.mark.parametrize(
    "workload",
    [
        pytest.param(v1.WORKLOAD, id="v1", marks=pytest.mark.xfail(strict=True)),
        pytest.param(WORKLOAD, id="v2"),
    ],
)
def test_every_item_has_its_own_prepaid_schedule(workload: Workload) -> None:
    data = workload.generate(random.Random(SEED), 15)
    schedules = {item.files["prepaid_schedule.txt"] for item in data.items}
    assert len(schedules) == 15


def test_each_items_ledger_agrees_with_the_schedule_on_its_desk(
    dataset: Dataset, tmp_path: Path
) -> None:
    for index in (0, 7):
        item = dataset.items[index]
        toolset = WORKLOAD.tools(item, dataset, tmp_path / item.id)
        try:
            run_sql = next(t for t in toolset.tools if t.name == "run_sql")
            out = run_sql.run(
                {
                    "sql": "SELECT reference FROM journal_entries WHERE source = 'GL' "
                    "AND reference NOT LIKE '%-AM%' ORDER BY reference"
                }
            )
        finally:
            toolset.close()
        contracts = [c["contract"] for c in item.input["prepaid_contracts"]]
        assert out.splitlines()[1:-1] == contracts
        schedule = item.files["prepaid_schedule.txt"].decode()
        assert all(f"Contract {c}:" in schedule for c in contracts)


def test_strata_record_the_prepaid_cases(dataset: Dataset) -> None:
    strata = {s for item in dataset.items for s in item.strata}
    assert {"prepaid_june_lines_1", "prepaid_final_month", "decoy_already_booked"} <= strata


@pytest.mark.parametrize(
    "workload",
    [
        pytest.param(v1.WORKLOAD, id="v1", marks=pytest.mark.xfail(strict=True)),
        pytest.param(WORKLOAD, id="v2"),
    ],
)
def test_prompt_states_the_standards_pass_rule(workload: Workload) -> None:
    item = workload.generate(random.Random(SEED), 1).items[0]
    text = workload.prompt(item).user
    assert "matched one to one against the reference entries" in text
    assert "same side (debit or credit)" in text and "within $0.01" in text
    assert "An entry that matches no reference entry fails the close" in text
    assert "trial balance after your entries must balance" in text
    assert "net movement" not in text


def test_graded_by_v1s_corrected_grader(dataset: Dataset) -> None:
    assert WORKLOAD.grade is v1.WORKLOAD.grade
    assert WORKLOAD.grader_hash == v1.WORKLOAD.grader_hash
    assert WORKLOAD.superseded == ()  # v2 never had the net-movement grader
    item = dataset.items[0]
    wrong = {"lines": [{"account": "6000", "debit": "5.00"}, {"account": "2100", "credit": "5.00"}]}
    undo = {"lines": [{"account": "6000", "credit": "5.00"}, {"account": "2100", "debit": "5.00"}]}
    grade = WORKLOAD.grade(item, state_answer([*item.truth["entries"], wrong, undo]))
    assert {c.name: c.passed for c in grade.checks}["no_extra_entries"] is False


def test_same_seed_same_dataset_hash_in_a_fresh_process(dataset: Dataset) -> None:
    code = (
        "import random;from ledgerrate.workloads.execute_month_end.v2 import WORKLOAD as W;"
        f"print(W.generate(random.Random({SEED}), 15).hash)"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert fresh.stdout.strip() == dataset.hash


def test_registered_after_v1() -> None:
    ids = [workload.id for workload in WORKLOADS]
    assert ids[ids.index("execute.month-end.v1") + 1] == "execute.month-end.v2"
    assert get("execute.month-end.v2") is WORKLOAD
    assert (WORKLOAD.version, WORKLOAD.modes, WORKLOAD.unit) == (2, ("agentic",), v1.WORKLOAD.unit)
    assert WORKLOAD.prompt_hash != v1.WORKLOAD.prompt_hash
    assert "trendline breaks here" in WORKLOAD.changelog
