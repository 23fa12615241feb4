"""execute.month-end.v1: reference close passes, planted mistakes fail the named check."""

from __future__ import annotations

import copy
import random
import subprocess
import sys
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.sandbox.journal import JournalWriter, journal_tool
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, ToolError
from ledgerrate.workloads.execute_month_end.v1 import WORKLOAD, account_names

SEED = 2026
# Measured: the close script follows the written policy literally and the documents use fixed
# layouts, so it closes every item of this seed.
BASELINE_PASSES = 15


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return WORKLOAD.generate(random.Random(SEED), 15)


def state_answer(entries: list[dict[str, Any]]) -> Answer:
    return Answer(text="Close summary.", tool_state={"journal_entries": entries})


def named(grade: Grade) -> dict[str, bool]:
    return {c.name: c.passed for c in grade.checks}


def reference(item: Item) -> list[dict[str, Any]]:
    return copy.deepcopy(item.truth["entries"])


def _bump(amount: str, cents: int) -> str:
    return str(Decimal(amount) + Decimal(cents) / 100)


def test_reference_entries_pass_all_fifteen(dataset: Dataset) -> None:
    grades = [WORKLOAD.grade(item, state_answer(reference(item))) for item in dataset.items]
    assert [g.deterministic_pass for g in grades] == [True] * 15
    assert [c.name for c in grades[0].checks] == [
        "entries_match",
        "directions",
        "amounts_within_cent",
        "trial_balance_balances",
    ]


def test_items_vary_and_plant_decoys(dataset: Dataset) -> None:
    strata = {s for item in dataset.items for s in item.strata}
    assert {"decoy_already_booked", "decoy_next_period", "returned_payment"} <= strata
    assert len({item.files["bank_statement.txt"] for item in dataset.items}) == 15


def test_regrouping_lines_into_one_entry_still_passes(dataset: Dataset) -> None:
    item = dataset.items[0]
    lines = [line for entry in reference(item) for line in entry["lines"]]
    assert WORKLOAD.grade(item, state_answer([{"memo": "all", "lines": lines}])).deterministic_pass


def test_entry_off_by_two_cents_fails_amounts_within_cent(dataset: Dataset) -> None:
    item = dataset.items[0]
    entries = reference(item)
    debit, credit = entries[0]["lines"]
    debit["debit"], credit["credit"] = _bump(debit["debit"], 2), _bump(credit["credit"], 2)
    result = named(WORKLOAD.grade(item, state_answer(entries)))
    assert result == {
        "entries_match": True,
        "directions": True,
        "amounts_within_cent": False,
        "trial_balance_balances": True,
    }


def test_off_by_one_cent_is_within_tolerance(dataset: Dataset) -> None:
    item = dataset.items[0]
    entries = reference(item)
    debit, credit = entries[0]["lines"]
    debit["debit"], credit["credit"] = _bump(debit["debit"], 1), _bump(credit["credit"], 1)
    assert WORKLOAD.grade(item, state_answer(entries)).deterministic_pass


def test_wrong_direction_fails_directions(dataset: Dataset) -> None:
    item = dataset.items[0]
    entries = reference(item)
    # Payroll accrual posted backwards: debit accrued payroll, credit wages.
    payroll = next(e for e in entries if any(line["account"] == "2200" for line in e["lines"]))
    for line in payroll["lines"]:
        line["debit"], line["credit"] = line["credit"], line["debit"]
    grade = WORKLOAD.grade(item, state_answer(entries))
    result = named(grade)
    assert result["directions"] is False
    assert result["trial_balance_balances"] is True
    assert "2200: expected credit, got debit" in grade.checks[1].detail


def test_missing_accrual_fails_entries_match_and_names_it(dataset: Dataset) -> None:
    item = next(i for i in dataset.items if "accruals_1" in i.strata)
    entries = [
        e for e in reference(item) if not e["memo"].startswith("Accrue ") or "payroll" in e["memo"]
    ]
    assert len(entries) == len(item.truth["entries"]) - 1
    grade = WORKLOAD.grade(item, state_answer(entries))
    assert named(grade)["entries_match"] is False
    assert "missing: 2100 credit" in grade.checks[0].detail
    assert not grade.deterministic_pass


def test_extra_entry_is_listed(dataset: Dataset) -> None:
    item = dataset.items[0]
    extra = {
        "memo": "invented",
        "lines": [
            {"account": "6700", "debit": "10.00", "credit": "0"},
            {"account": "2100", "debit": "0", "credit": "10.00"},
        ],
    }
    grade = WORKLOAD.grade(item, state_answer([*reference(item), extra]))
    assert named(grade)["entries_match"] is False
    assert "extra: 6700 debit 10.00" in grade.checks[0].detail


def test_unbalanced_entry_set_fails_trial_balance(dataset: Dataset) -> None:
    item = dataset.items[0]
    entries = reference(item)
    entries[0]["lines"][0]["debit"] = _bump(entries[0]["lines"][0]["debit"], 500)
    grade = WORKLOAD.grade(item, state_answer(entries))
    assert named(grade)["trial_balance_balances"] is False
    assert "off by 5.00" in grade.checks[3].detail


def test_no_state_or_garbage_state_fails_every_check(dataset: Dataset) -> None:
    item = dataset.items[0]
    for answer in (
        Answer(text="done"),
        state_answer([{"lines": "nope"}]),
        state_answer([{"lines": [{"account": "1000", "debit": "abc"}]}]),
    ):
        grade = WORKLOAD.grade(item, answer)
        assert not any(c.passed for c in grade.checks)


ACCOUNTS = {"1000": "Cash", "2100": "Accrued liabilities", "6100": "Professional fees"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"lines": [{"account": "9999", "debit": 5}, {"account": "1000", "credit": 5}]}, "unknown"),
        (
            {"lines": [{"account": "6100", "debit": -5}, {"account": "1000", "credit": -5}]},
            "positive",
        ),
        ({"lines": [{"account": "6100", "debit": 5}, {"account": "1000", "credit": 4}]}, "balance"),
        (
            {"lines": [{"account": "6100", "debit": 5, "credit": 5}, {"account": "1000"}]},
            "not both",
        ),
        (
            {
                "lines": [
                    {"account": "6100", "debit": "5.001"},
                    {"account": "1000", "credit": "5.001"},
                ]
            },
            "two decimals",
        ),
        (
            {"lines": [{"account": "6100", "debit": "five"}, {"account": "1000", "credit": 5}]},
            "not a number",
        ),
        ({"lines": [{"account": "6100", "debit": 5}]}, "at least two"),
        ({"memo": "x"}, "at least two"),
    ],
)
def test_journal_writer_refuses_bad_input_with_a_visible_error(
    args: dict[str, Any], message: str
) -> None:
    writer = JournalWriter(ACCOUNTS)
    tool = journal_tool(writer)
    with pytest.raises(ToolError, match=message):
        tool.run(args)
    assert writer.state() == {"journal_entries": []}


def test_journal_writer_keeps_valid_entries_as_state() -> None:
    writer = JournalWriter(ACCOUNTS)
    reply = journal_tool(writer).run(
        {
            "memo": "accrual",
            "lines": [
                {"account": "6100", "debit": 0.1, "memo": "fees"},
                {"account": "2100", "credit": "0.10"},
            ],
        }
    )
    assert reply.startswith("posted JE-001")
    (entry,) = writer.state()["journal_entries"]
    assert entry["lines"][0] == {
        "account": "6100",
        "debit": "0.10",
        "credit": "0.00",
        "memo": "fees",
    }


def test_baseline_pass_count_is_measured_and_never_reads_truth(dataset: Dataset) -> None:
    passes = 0
    for item in dataset.items:
        answer = WORKLOAD.baseline(replace(item, truth={}), dataset)
        passes += WORKLOAD.grade(item, answer).deterministic_pass
    assert passes == BASELINE_PASSES


def test_agentic_toolset_reads_files_queries_and_posts(dataset: Dataset, tmp_path: Path) -> None:
    item = dataset.items[0]
    toolset = WORKLOAD.tools(item, dataset, tmp_path)
    try:
        tools = {t.name: t for t in toolset.tools}
        assert set(tools) == {"list_files", "read_file", "run_sql", "post_journal_entry"}
        assert "bank_statement.txt" in tools["list_files"].run({})
        assert "Opening balance" in tools["read_file"].run({"path": "bank_statement.txt"})
        with pytest.raises(ToolError):
            tools["read_file"].run({"path": "../secrets.txt"})
        assert "22" in tools["run_sql"].run({"sql": "SELECT COUNT(*) FROM accounts"})
        with pytest.raises(ToolError):
            tools["run_sql"].run({"sql": "DELETE FROM journal_lines"})
        for entry in item.truth["entries"]:
            tools["post_journal_entry"].run(entry)
        answer = Answer(text="summary", tool_state=toolset.state())
        assert WORKLOAD.grade(item, answer).deterministic_pass
    finally:
        toolset.close()
    assert account_names(dict(dataset.shared))["2100"] == "Accrued liabilities"


def test_prompt_states_the_policy_and_lists_documents(dataset: Dataset) -> None:
    item = dataset.items[0]
    prompt = WORKLOAD.prompt(item)
    assert "2100 Accrued liabilities" in prompt.user
    assert all(name in prompt.user for name in item.files)


def test_same_seed_same_dataset_hash_in_a_fresh_process(dataset: Dataset) -> None:
    code = (
        "import random;from ledgerrate.workloads.execute_month_end.v1 import WORKLOAD as W;"
        f"print(W.generate(random.Random({SEED}), 15).hash)"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert fresh.stdout.strip() == dataset.hash


def test_registered_metadata() -> None:
    assert WORKLOAD.id == "execute.month-end.v1"
    assert WORKLOAD.modes == ("agentic",)
    assert WORKLOAD.unit == "Run a mini month-end close"
    assert WORKLOAD.volume == 1
