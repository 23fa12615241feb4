"""reconcile.ledger.v1: 12 planted discrepancies in noisy data; recall 100% and ≤ 1 FP to pass."""

from __future__ import annotations

import copy
import csv
import datetime as dt
import io
import json
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ledgerrate.synth import bank
from ledgerrate.workloads.base import Answer, Dataset, Item
from ledgerrate.workloads.reconcile_ledger.v1_revision2 import WORKLOAD

SEED = 20260701


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return WORKLOAD.generate(random.Random(SEED), 15)


def truth(item: Item) -> list[dict]:
    return copy.deepcopy(item.truth["discrepancies"])


def grade(item: Item, discrepancies: list[dict] | str):
    text = (
        discrepancies
        if isinstance(discrepancies, str)
        else json.dumps({"discrepancies": discrepancies})
    )
    return WORKLOAD.grade(item, Answer(text=text))


def checks(result) -> dict[str, bool]:
    return {c.name: c.passed for c in result.checks}


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_workload_declares_the_standard_unit() -> None:
    assert WORKLOAD.id == "reconcile.ledger.v1"
    assert (WORKLOAD.primitive, WORKLOAD.function, WORKLOAD.version) == (
        "reconcile",
        "finance-ops",
        1,
    )
    assert WORKLOAD.modes == ("single-shot", "agentic")
    assert (WORKLOAD.unit, WORKLOAD.volume) == ("Reconcile a month of transactions", 1)


def test_each_item_has_200_transactions_and_12_discrepancies_of_every_type(
    dataset: Dataset,
) -> None:
    assert len(dataset.items) == 15
    for item in dataset.items:
        bank_rows, gl_rows = rows(item.input["bank_csv"]), rows(item.input["gl_csv"])
        assert len(bank_rows) == 200
        assert list(bank_rows[0]) == ["date", "description", "reference", "amount"]
        assert list(gl_rows[0]) == ["entry_id", "date", "account", "memo", "reference", "amount"]
        planted = item.truth["discrepancies"]
        assert len(planted) == 12
        assert len({p["bank_ref"] for p in planted}) == 12
        counts = item.truth["type_counts"]
        assert set(counts) == set(bank.TYPES) and all(c >= 2 for c in counts.values())


def test_planted_discrepancies_are_really_in_the_csvs(dataset: Dataset) -> None:
    item = dataset.items[0]
    bank_rows = {r["reference"]: r for r in rows(item.input["bank_csv"])}
    gl_rows = {r["entry_id"]: r for r in rows(item.input["gl_csv"])}
    booked: dict[str, list[str]] = {}
    for r in gl_rows.values():
        booked.setdefault(bank.normalise_ref(r["reference"]), []).append(r["entry_id"])
    for p in item.truth["discrepancies"]:
        tx = bank_rows[p["bank_ref"]]
        if p["type"] == "missing_entry":
            assert p["bank_ref"] not in booked
            continue
        entry = gl_rows[p["gl_entry"]]
        if p["type"] == "duplicate":
            assert len(booked[p["bank_ref"]]) == 2 and max(booked[p["bank_ref"]]) == p["gl_entry"]
        elif p["type"] == "amount_mismatch":
            assert entry["amount"] != tx["amount"]
        else:
            gap = dt.date.fromisoformat(entry["date"]) - dt.date.fromisoformat(tx["date"])
            assert abs(gap.days) > bank.TOLERANCE_DAYS


def test_every_item_carries_every_noise_stratum(dataset: Dataset) -> None:
    for item in dataset.items:
        assert item.strata == bank.NOISE
        assert all(item.truth["noise_counts"][name] > 0 for name in bank.NOISE)


def test_ground_truth_passes_every_item(dataset: Dataset) -> None:
    for item in dataset.items:
        result = grade(item, truth(item))
        assert result.deterministic_pass, result.checks
        assert result.diagnostics["recall"] == result.diagnostics["precision"] == 1.0


def test_references_are_read_loosely_and_order_does_not_matter(dataset: Dataset) -> None:
    item = dataset.items[1]
    answer = truth(item)[::-1]
    for d in answer:
        d["bank_ref"] = d["bank_ref"].lower()
    assert grade(
        item, "```json\n" + json.dumps({"discrepancies": answer}) + "\n```"
    ).deterministic_pass


def test_a_missed_discrepancy_fails_recall(dataset: Dataset) -> None:
    item = dataset.items[2]
    result = grade(item, truth(item)[1:])
    assert checks(result) == {"answer_is_json": True, "recall": False, "false_positives": True}
    assert result.diagnostics["recall"] == round(11 / 12, 4)


def test_naming_the_wrong_gl_entry_is_not_finding_it(dataset: Dataset) -> None:
    item = dataset.items[2]
    answer = truth(item)
    target = next(d for d in answer if d["type"] == "duplicate")
    target["gl_entry"] = "GL-00001"
    assert checks(grade(item, answer))["recall"] is False


def test_a_wrong_type_recalls_nothing(dataset: Dataset) -> None:
    """The required output is "a discrepancy list with type per item" (§4.3): the right
    transaction under the wrong type has not recalled the planted discrepancy."""
    item = dataset.items[3]
    answer = truth(item)
    target = next(d for d in answer if d["type"] == "amount_mismatch")
    target["type"] = "date_drift"
    result = grade(item, answer)
    assert checks(result) == {"answer_is_json": True, "recall": False, "false_positives": True}
    assert result.diagnostics["wrong_type_count"] == 1
    assert "reported under another type" in result.checks[1].detail


@pytest.mark.parametrize("change", ["type", "gl_entry"])
def test_a_wrong_report_beside_the_right_one_is_one_false_positive(
    dataset: Dataset, change: str
) -> None:
    """Recall 100% and one false positive pass (§4.3), whichever of the two reports of a
    transaction comes first. Revision 1 judged the transaction on its first report only."""
    item = dataset.items[3]
    answer = truth(item)
    target = next(d for d in answer if d["type"] == "amount_mismatch")
    wrong = dict(target, **({"type": "date_drift"} if change == "type" else {"gl_entry": "GL-1"}))
    for listed in ([wrong, *answer], [*answer, wrong]):
        result = grade(item, listed)
        assert result.deterministic_pass, result.checks
        assert result.diagnostics["false_positive_count"] == 1
    two_wrong = [wrong, dict(wrong, bank_ref=wrong["bank_ref"].lower()), *answer]
    assert checks(grade(item, two_wrong))["false_positives"] is False


def test_revision_one_is_kept_verbatim_and_superseded() -> None:
    from ledgerrate.workloads.reconcile_ledger import v1_revision1

    assert WORKLOAD.superseded == (v1_revision1.WORKLOAD,)
    assert WORKLOAD.grader_revision == 2
    assert WORKLOAD.prompt_hash == v1_revision1.WORKLOAD.prompt_hash
    assert WORKLOAD.generator_hash == v1_revision1.WORKLOAD.generator_hash


def test_one_false_positive_passes_two_fail(dataset: Dataset) -> None:
    item = dataset.items[4]
    planted = {p["bank_ref"] for p in item.truth["discrepancies"]}
    others = [r["reference"] for r in rows(item.input["bank_csv"]) if r["reference"] not in planted]
    extra = [{"type": "missing_entry", "bank_ref": ref, "gl_entry": None} for ref in others[:2]]
    assert grade(item, [*truth(item), extra[0]]).deterministic_pass
    result = grade(item, [*truth(item), *extra])
    assert checks(result)["false_positives"] is False
    assert not result.deterministic_pass
    # reporting the same planted discrepancy twice counts the copy as a false positive
    copies = [*truth(item), truth(item)[0], truth(item)[1]]
    assert checks(grade(item, copies))["false_positives"] is False


def test_unreadable_answers_fail_every_check(dataset: Dataset) -> None:
    item = dataset.items[5]
    for text in ("No discrepancies found.", json.dumps({"discrepancies": "none"})):
        result = grade(item, text)
        assert not any(c.passed for c in result.checks)


def naive(item: Item) -> list[dict]:
    """Exact references only, any date difference flagged: the solver the noise is built for."""
    gl = {}
    for r in rows(item.input["gl_csv"]):
        gl.setdefault(r["reference"], []).append(r)
    found = []
    for tx in rows(item.input["bank_csv"]):
        entries = gl.get(tx["reference"], [])
        if not entries:
            found.append({"type": "missing_entry", "bank_ref": tx["reference"], "gl_entry": None})
        elif entries[0]["date"] != tx["date"]:
            found.append(
                {
                    "type": "date_drift",
                    "bank_ref": tx["reference"],
                    "gl_entry": entries[-1]["entry_id"],
                }
            )
    return found


def test_the_noise_gives_a_naive_solver_false_positives(dataset: Dataset) -> None:
    for item in dataset.items:
        result = grade(item, naive(item))
        assert checks(result)["false_positives"] is False
        assert result.diagnostics["false_positive_count"] > 10


def test_same_seed_same_hash_different_seed_different(dataset: Dataset) -> None:
    assert WORKLOAD.generate(random.Random(SEED), 15).hash == dataset.hash
    assert WORKLOAD.generate(random.Random(SEED + 1), 15).hash != dataset.hash


# Pinned so that refactors of the generator are shown not to change a byte of data. If this
# fails, the data changed: that needs a new workload version.
PINNED_HASH = "21803a84dad03ca093ff4f6e0adf0501d8621b2736cc82654dfe6344b56e136c"


def test_dataset_hash_is_pinned(dataset: Dataset) -> None:
    assert dataset.hash == PINNED_HASH


def test_hash_is_identical_in_a_fresh_process(dataset: Dataset) -> None:
    code = (
        "import random;from ledgerrate.workloads.reconcile_ledger.v1_revision2 import WORKLOAD;"
        f"print(WORKLOAD.generate(random.Random({SEED}), 15).hash)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == dataset.hash


def test_prompt_carries_both_csvs_verbatim(dataset: Dataset) -> None:
    item = dataset.items[6]
    prompt = WORKLOAD.prompt(item)
    assert item.input["bank_csv"] in prompt.user and item.input["gl_csv"] in prompt.user
    assert f"up to {bank.TOLERANCE_DAYS} days" in prompt.user
    assert prompt == WORKLOAD.prompt(item)


def test_agentic_tools_expose_the_two_csv_files(dataset: Dataset, tmp_path: Path) -> None:
    item = dataset.items[7]
    by_name = {t.name: t for t in WORKLOAD.tools(item, dataset, tmp_path).tools}
    assert by_name["list_files"].run({}).splitlines() == ["bank_feed.csv", "gl_extract.csv"]
    assert by_name["read_file"].run({"path": "gl_extract.csv"}) == item.input["gl_csv"]


def test_baseline_reads_only_the_input(dataset: Dataset) -> None:
    item = dataset.items[8]
    assert WORKLOAD.baseline(replace(item, truth={}), dataset) == WORKLOAD.baseline(item, dataset)


def test_baseline_pass_count_is_measured(dataset: Dataset) -> None:
    """The reference matcher follows the prompt's rules over the CSVs; measured, not assumed."""
    results = [grade(i, WORKLOAD.baseline(i, dataset).text) for i in dataset.items]
    assert sum(r.deterministic_pass for r in results) == 15
    assert sum(r.diagnostics["false_positive_count"] for r in results) == 0
