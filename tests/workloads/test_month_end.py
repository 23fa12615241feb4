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

from ledgerrate.core.tools import ToolError
from ledgerrate.sandbox.journal import JournalWriter, journal_tool
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item
from ledgerrate.workloads.execute_month_end import v1_revision1
from ledgerrate.workloads.execute_month_end.v1_revision2 import WORKLOAD, account_names

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
        "no_extra_entries",
        "trial_balance_balances",
    ]


def test_items_vary_and_plant_decoys(dataset: Dataset) -> None:
    strata = {s for item in dataset.items for s in item.strata}
    assert {"decoy_already_booked", "decoy_next_period", "returned_payment"} <= strata
    assert len({item.files["bank_statement.txt"] for item in dataset.items}) == 15


def test_entry_order_and_line_order_do_not_matter(dataset: Dataset) -> None:
    item = dataset.items[0]
    entries = [{"memo": "x", "lines": e["lines"][::-1]} for e in reversed(reference(item))]
    assert WORKLOAD.grade(item, state_answer(entries)).deterministic_pass


def test_offsetting_wrong_entries_fail(dataset: Dataset) -> None:
    # Revision 1 compared net movement per account, so a wrong entry and its reversal vanished.
    item = dataset.items[0]
    wrong = {
        "memo": "wrong",
        "lines": [
            {"account": "6000", "debit": "100.00", "credit": "0"},
            {"account": "2100", "debit": "0", "credit": "100.00"},
        ],
    }
    undo = {
        "memo": "undo",
        "lines": [
            dict(wrong["lines"][0], debit="0", credit="100.00"),
            dict(wrong["lines"][1], debit="100.00", credit="0"),
        ],
    }
    answer = state_answer([*reference(item), wrong, undo])
    grade = WORKLOAD.grade(item, answer)
    assert named(grade) == {
        "entries_match": True,
        "no_extra_entries": False,
        "trial_balance_balances": True,
    }
    assert "2100 credit 100.00 / 6000 debit 100.00" in grade.checks[1].detail
    assert v1_revision1.WORKLOAD.grade(item, answer).deterministic_pass


def test_regrouping_the_reference_lines_into_one_entry_fails(dataset: Dataset) -> None:
    item = dataset.items[0]
    lines = [line for entry in reference(item) for line in entry["lines"]]
    grade = WORKLOAD.grade(item, state_answer([{"memo": "all", "lines": lines}]))
    assert named(grade)["entries_match"] is False
    assert named(grade)["no_extra_entries"] is False


def test_each_reference_entry_is_matched_once(dataset: Dataset) -> None:
    item = dataset.items[0]
    entries = reference(item)
    doubled = [*entries, copy.deepcopy(entries[0])]
    grade = WORKLOAD.grade(item, state_answer(doubled))
    assert named(grade) == {
        "entries_match": True,
        "no_extra_entries": False,
        "trial_balance_balances": True,
    }
    grade = WORKLOAD.grade(item, state_answer(entries[1:]))
    assert named(grade)["entries_match"] is False


def test_entry_off_by_two_cents_fails_and_says_by_how_much(dataset: Dataset) -> None:
    item = dataset.items[0]
    entries = reference(item)
    debit, credit = entries[0]["lines"]
    debit["debit"], credit["credit"] = _bump(debit["debit"], 2), _bump(credit["credit"], 2)
    grade = WORKLOAD.grade(item, state_answer(entries))
    assert named(grade) == {
        "entries_match": False,
        "no_extra_entries": False,
        "trial_balance_balances": True,
    }
    assert f"{debit['account']} {Decimal(debit['debit']):.2f})" in grade.checks[0].detail


def test_off_by_one_cent_is_within_tolerance(dataset: Dataset) -> None:
    item = dataset.items[0]
    entries = reference(item)
    debit, credit = entries[0]["lines"]
    debit["debit"], credit["credit"] = _bump(debit["debit"], 1), _bump(credit["credit"], 1)
    assert WORKLOAD.grade(item, state_answer(entries)).deterministic_pass


def test_wrong_direction_fails_and_names_the_side(dataset: Dataset) -> None:
    item = dataset.items[0]
    entries = reference(item)
    # Payroll accrual posted backwards: debit accrued payroll, credit wages.
    payroll = next(e for e in entries if any(line["account"] == "2200" for line in e["lines"]))
    for line in payroll["lines"]:
        line["debit"], line["credit"] = line["credit"], line["debit"]
    grade = WORKLOAD.grade(item, state_answer(entries))
    assert named(grade)["entries_match"] is False
    assert named(grade)["trial_balance_balances"] is True
    assert "2200 on the debit side" in grade.checks[0].detail


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
    assert named(grade)["no_extra_entries"] is False
    assert "2100 credit 10.00 / 6700 debit 10.00" in grade.checks[1].detail


def test_unbalanced_entry_set_fails_trial_balance(dataset: Dataset) -> None:
    item = dataset.items[0]
    entries = reference(item)
    entries[0]["lines"][0]["debit"] = _bump(entries[0]["lines"][0]["debit"], 500)
    grade = WORKLOAD.grade(item, state_answer(entries))
    assert named(grade)["trial_balance_balances"] is False
    assert "entries that do not balance: 1" in grade.checks[2].detail


def test_trial_balance_is_checked_per_entry_not_only_in_total(dataset: Dataset) -> None:
    # Two unbalanced entries that cancel out: revision 1 summed every line and saw zero.
    item = dataset.items[0]
    entries = reference(item)
    entries[0]["lines"][0]["debit"] = _bump(entries[0]["lines"][0]["debit"], 500)
    entries[1]["lines"][0]["debit"] = _bump(entries[1]["lines"][0]["debit"], -500)
    grade = WORKLOAD.grade(item, state_answer(entries))
    assert named(grade)["trial_balance_balances"] is False
    assert "entries that do not balance: 1, 2" in grade.checks[2].detail
    old = {
        c.name: c.passed for c in v1_revision1.WORKLOAD.grade(item, state_answer(entries)).checks
    }
    assert old["trial_balance_balances"] is True


def test_correction_keeps_dataset_and_prompt_of_revision_one() -> None:
    first = WORKLOAD.superseded[0]
    assert first is v1_revision1.WORKLOAD and WORKLOAD.grader_revision == 2
    assert (WORKLOAD.generator_hash, WORKLOAD.prompt_hash) == (
        first.generator_hash,
        first.prompt_hash,
    )
    assert WORKLOAD.grader_hash != first.grader_hash


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
        "import random;"
        "from ledgerrate.workloads.execute_month_end.v1_revision2 import WORKLOAD as W;"
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
