"""extract.invoice.v2: the new data design, v1's grader on it, and v1 left exactly as it was."""

from __future__ import annotations

import copy
import random
import re
import subprocess
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.generate.dataset import build_dataset
from ledgerrate.synth import invoices_v2
from ledgerrate.synth.invoice_layouts_v2 import ROWS_FIRST_PAGE, ROWS_NEXT_PAGES
from ledgerrate.synth.invoice_pdf import text_layer
from ledgerrate.workloads import WORKLOADS, get
from ledgerrate.workloads.base import Answer, Dataset, Item
from ledgerrate.workloads.extract_invoice import v1
from ledgerrate.workloads.extract_invoice.baseline import decimal_json
from ledgerrate.workloads.extract_invoice.v2 import FIELDS, WORKLOAD

REPO = Path(__file__).resolve().parents[2]
SEED = 7
# Recorded before any v2 work began (build_dataset("extract.invoice.v1", 7)); the generator and
# grader hashes likewise. The workload hash is the one after the one-time prompt_sources
# addition, which preceded every edition.
V1_DATASET_HASH_SEED_7 = "17dd2bb0e3b0ad4d83bda11f45b4a06308b7aa119c52c14af10bc12f4d854906"
V1_GENERATOR_HASH = "efb8e1340ce8929fbc95cf4fcf582a693ab24b76770f8c6e19043dabd89bbab1"
V1_GRADER_HASH = "d021108d6ee8224234fc668a3ac5bcf76991bef68ce52e0ace5ec31ebe8fd4bd"
V1_WORKLOAD_HASH = "0382c730002d2761e70a5d5d3519f014ce4f2a75a8db9d9c3de498c716236d1a"
# Measured, not chosen: v1's regex parser on v2 seed 7 misses the invoice number on all three
# remittance invoices ("Invoice number 0024268" reads to it as the word "number"), and cuts
# three wrapped descriptions whose last word is a digit ("work order 4471", "level 2",
# "loading bay 3").
BASELINE_PASSES_SEED_7 = 9
NEW_STRATA = ("symbol-currency", "carried-forward", "layout:remittance")


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return build_dataset(WORKLOAD, SEED)


def as_answer(truth: dict[str, Any]) -> dict[str, Any]:
    """The truth as a perfect model would write it: amounts as JSON numbers."""
    answer = copy.deepcopy(truth)
    for key in ("subtotal", "tax", "total"):
        answer[key] = Decimal(answer[key])
    for line in answer["line_items"]:
        for key in ("quantity", "unit_price", "amount"):
            line[key] = Decimal(line[key])
    return answer


def failed(item: Item, answer: dict[str, Any]) -> set[str]:
    grade = WORKLOAD.grade(item, Answer(text=decimal_json(answer)))
    return {c.name for c in grade.checks if not c.passed}


def first(dataset: Dataset, stratum: str) -> Item:
    return next(i for i in dataset.items if stratum in i.strata)


# --- v1 stays frozen ---------------------------------------------------------------------------


def test_v1_is_unchanged() -> None:
    assert build_dataset("extract.invoice.v1", SEED).hash == V1_DATASET_HASH_SEED_7
    assert v1.WORKLOAD.generator_hash == V1_GENERATOR_HASH
    assert v1.WORKLOAD.grader_hash == V1_GRADER_HASH
    assert v1.WORKLOAD.workload_hash == V1_WORKLOAD_HASH


def test_registered_right_after_v1() -> None:
    ids = [workload.id for workload in WORKLOADS]
    assert ids[ids.index("extract.invoice.v1") + 1] == "extract.invoice.v2"
    assert get("extract.invoice.v2") is WORKLOAD


def test_v2_is_a_version_bump_of_the_same_task() -> None:
    assert (WORKLOAD.id, WORKLOAD.version) == ("extract.invoice.v2", 2)
    assert WORKLOAD.workload_hash != v1.WORKLOAD.workload_hash
    assert WORKLOAD.generator_hash != v1.WORKLOAD.generator_hash
    assert WORKLOAD.prompt_hash != v1.WORKLOAD.prompt_hash
    # Same pass rule and grader: v2 changes the data, not what counts as right.
    assert WORKLOAD.grader_hash == v1.WORKLOAD.grader_hash
    assert WORKLOAD.pass_rule == v1.WORKLOAD.pass_rule
    schema = dict(WORKLOAD.output_schema)
    assert schema.pop("title") == "extract.invoice.v2 answer"
    assert schema == {k: v for k, v in v1.OUTPUT_SCHEMA.items() if k != "title"}
    assert "v1" in WORKLOAD.changelog and "two" in WORKLOAD.changelog
    assert WORKLOAD.changelog != v1.WORKLOAD.changelog


# --- grading -----------------------------------------------------------------------------------


def test_truth_passes_every_item(dataset: Dataset) -> None:
    passes = 0
    for item in dataset.items:
        grade = WORKLOAD.grade(item, Answer(text=decimal_json(as_answer(item.truth))))
        passes += grade.deterministic_pass
        assert grade.diagnostics["field_accuracy"] == 1.0
    assert passes == 15


def test_symbol_currency_read_as_usd_fails_currency_only(dataset: Dataset) -> None:
    item = first(dataset, "symbol-currency")
    answer = as_answer(item.truth)
    answer["currency"] = "USD"
    assert failed(item, answer) == {"currency"}


def test_carried_forward_row_taken_as_a_line_fails_line_items(dataset: Dataset) -> None:
    item = first(dataset, "carried-forward")
    match = re.search(r"Carried forward (\S+)", item.input["pages"][0])
    assert match is not None
    carried = Decimal(match.group(1).replace(",", ""))
    # The running total equals the first page's lines: the grader must still refuse it as a line.
    page_one = item.truth["line_items"][:ROWS_FIRST_PAGE]
    assert carried == sum(Decimal(line["amount"]) for line in page_one)
    answer = as_answer(item.truth)
    row = {"description": "Carried forward", "quantity": 1, "unit_price": carried}
    answer["line_items"].insert(ROWS_FIRST_PAGE, {**row, "amount": carried})
    assert failed(item, answer) == {"line_items"}


def test_remittance_distractors_fail_named_checks(dataset: Dataset) -> None:
    item = first(dataset, "layout:remittance")
    text = "\n".join(item.input["pages"])
    account = re.search(r"Customer account (\S+)", text)
    order = re.search(r"Purchase order (\S+)", text)
    assert account is not None and order is not None
    for wrong in (account.group(1), order.group(1)):
        answer = as_answer(item.truth)
        answer["invoice_number"] = wrong
        assert failed(item, answer) == {"invoice_number"}
    answer = as_answer(item.truth)
    answer["total"] = answer["subtotal"]  # the amount before tax, not the amount due
    assert failed(item, answer) == {"total"}


def test_not_json_fails_every_field(dataset: Dataset) -> None:
    grade = WORKLOAD.grade(dataset.items[0], Answer(text="Total due is 1,234.56"))
    assert {c.name for c in grade.checks if not c.passed} == {"answer_is_json", *FIELDS}


# --- data --------------------------------------------------------------------------------------


def test_same_seed_same_hash_in_a_fresh_process(dataset: Dataset) -> None:
    code = (
        "from ledgerrate.generate.dataset import build_dataset\n"
        f"print(build_dataset('extract.invoice.v2', {SEED}).hash)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == dataset.hash
    assert dataset.hash != V1_DATASET_HASH_SEED_7


def test_every_edge_case_on_at_least_two_items(dataset: Dataset) -> None:
    counts = Counter(s for item in dataset.items for s in item.strata)
    for case in invoices_v2.EDGE_CASES:
        assert counts[case] >= 2, case
    for stratum in NEW_STRATA:
        assert counts[stratum] >= 2, stratum
    assert len({s for s in counts if s.startswith("layout:")}) == 6


def test_plans_keep_the_guarantee_for_many_seeds() -> None:
    for seed in range(400):
        plans = invoices_v2.plan_dataset(random.Random(seed), 15)
        counts = Counter(case for plan in plans for case in plan.edge_cases)
        assert all(counts[case] >= 2 for case in invoices_v2.EDGE_CASES), seed
        for plan in plans:
            assert not {"credit-note", "discount-lines"} <= plan.edge_cases, seed
            if "carried-forward" in plan.edge_cases:
                assert plan.layout == "remittance", seed
            if "symbol-currency" in plan.edge_cases:
                assert plan.layout in ("classic", "remittance"), seed


def test_symbol_currency_documents_never_name_the_code(dataset: Dataset) -> None:
    items = [i for i in dataset.items if "symbol-currency" in i.strata]
    for item in items:
        text = "\n".join(item.input["pages"])
        code = item.truth["currency"]
        assert code in invoices_v2.SYMBOL_CURRENCIES and code != "USD"
        assert not re.search(r"\b(USD|EUR|GBP|JPY)\b", text)
        assert {"EUR": "€", "GBP": "£", "JPY": "¥"}[code] in text
        country = {"EUR": ("Germany", "France", "Netherlands", "Italy")}
        country |= {"GBP": ("United Kingdom",), "JPY": ("Japan",)}
        assert any(name in text for name in country[code])
    # The other items still name their code, as in v1.
    for item in dataset.items:
        if item not in items and "layout:remittance" not in item.strata:
            assert item.truth["currency"] in "\n".join(item.input["pages"])


def test_carried_forward_pages_repeat_the_header_and_balance(dataset: Dataset) -> None:
    for item in (i for i in dataset.items if "carried-forward" in i.strata):
        pages = item.input["pages"]
        assert len(pages) >= 2 and "multi-page" in item.strata
        lines = item.truth["line_items"]
        running = Decimal(0)
        for number, page in enumerate(pages, start=1):
            assert "Description Quantity Unit price" in page
            if number > 1:
                brought = re.search(r"Brought forward (\S+)", page)
                assert brought is not None
                assert _plain(brought.group(1)) == running
            carried = re.search(r"Carried forward (\S+)", page)
            if number < len(pages):
                assert carried is not None
                running = _plain(carried.group(1))
            else:
                assert carried is None and "REMITTANCE ADVICE" in page
        # The last total carried forward is the sum of every line printed before the last page.
        before_last = ROWS_FIRST_PAGE + ROWS_NEXT_PAGES * (len(pages) - 2)
        assert running == sum(Decimal(line["amount"]) for line in lines[:before_last])
        assert not any("forward" in line["description"] for line in lines)


def _plain(text: str) -> Decimal:
    return Decimal(re.sub(r"[^\d.-]", "", text))


def test_edge_cases_hold_in_the_data(dataset: Dataset) -> None:
    for item in dataset.items:
        truth = item.truth
        amounts = [Decimal(line["amount"]) for line in truth["line_items"]]
        if "credit-note" in item.strata:
            assert Decimal(truth["total"]) < 0 and truth["due_date"] is None
        if "discount-lines" in item.strata:
            assert any(a < 0 for a in amounts) and Decimal(truth["total"]) > 0
        if "foreign-currency" in item.strata:
            assert truth["currency"] != "USD"
        assert sum(amounts) == Decimal(truth["subtotal"])
        assert Decimal(truth["subtotal"]) + Decimal(truth["tax"]) == Decimal(truth["total"])
        assert text_layer(item.files["invoice.pdf"]) == item.input["pages"]


def test_remittance_slip_repeats_number_and_amount(dataset: Dataset) -> None:
    for item in (i for i in dataset.items if "layout:remittance" in i.strata):
        last = item.input["pages"][-1]
        slip = last[last.index("REMITTANCE ADVICE") :]
        assert item.truth["invoice_number"] in slip
        assert "Customer account" in slip
        if "credit-note" not in item.strata:
            due = re.search(r"Amount due (\S+)", slip)
            assert due is not None and _plain(due.group(1)) == Decimal(item.truth["total"])


# --- prompt and baseline -----------------------------------------------------------------------


def test_prompt_is_v1s_with_two_sentences_added(dataset: Dataset) -> None:
    item = first(dataset, "carried-forward")
    prompt = WORKLOAD.prompt(item)
    old = v1.prompt(item)
    assert prompt.system == old.system
    assert "only\n  a currency symbol" in prompt.user and "carried from one page" in prompt.user
    assert "only\n  a currency symbol" not in old.user
    for page in item.input["pages"]:
        assert page in prompt.user
    assert '"title": "extract.invoice.v2 answer"' in prompt.user
    assert "{schema}" not in prompt.user and "{pages}" not in prompt.user


def test_baseline_pass_count_on_seed_7(dataset: Dataset) -> None:
    assert WORKLOAD.baseline is v1.WORKLOAD.baseline is not None
    passes = sum(
        WORKLOAD.grade(item, WORKLOAD.baseline(item, dataset)).deterministic_pass
        for item in dataset.items
    )
    assert passes == BASELINE_PASSES_SEED_7
