"""query.nl2sql.v1: reference answers pass, planted wrong and hostile answers fail by name."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from ledgerrate.core.hashing import sha256_file
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item
from ledgerrate.workloads.query_nl2sql import compare
from ledgerrate.workloads.query_nl2sql.v1_revision2 import WORKLOAD, database_for, translate

SEED = 2026
# Measured: the keyword translator answers the five easy questions and the one-join vendor
# total; it has no pattern for HAVING, grouping, windows or top-N questions.
BASELINE_PASSES = 6


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return WORKLOAD.generate(random.Random(SEED), 15)


def by_template(dataset: Dataset, key: str) -> Item:
    return next(item for item in dataset.items if item.truth["template"] == key)


def sql_answer(sql: str) -> Answer:
    return Answer(text=json.dumps({"sql": sql}))


def named(grade: Grade) -> dict[str, bool]:
    return {c.name: c.passed for c in grade.checks}


def test_fifteen_items_in_three_difficulty_strata(dataset: Dataset) -> None:
    assert len(dataset.items) == 15
    levels = Counter(item.strata[0] for item in dataset.items)
    assert levels == {"easy": 5, "medium": 5, "hard": 5}
    assert len({item.truth["template"] for item in dataset.items}) == 15
    assert all(item.truth["rows"] for item in dataset.items)


def test_reference_sql_passes_all_fifteen(dataset: Dataset) -> None:
    grades = [WORKLOAD.grade(item, sql_answer(item.truth["sql"])) for item in dataset.items]
    assert [g.deterministic_pass for g in grades] == [True] * 15
    assert all(
        [c.name for c in g.checks] == ["answer_is_json", "sql_executes", "result_matches"]
        for g in grades
    )


def test_wrong_filter_fails_result_matches_with_a_diff(dataset: Dataset) -> None:
    item = by_template(dataset, "customers_in_country")
    wrong = "SELECT COUNT(*) FROM customers WHERE country <> 'ZZ'"
    grade = WORKLOAD.grade(item, sql_answer(wrong))
    assert named(grade) == {"answer_is_json": True, "sql_executes": True, "result_matches": False}
    assert "missing 1" in grade.checks[2].detail and "unexpected 1" in grade.checks[2].detail


def test_missing_order_by_fails_where_an_order_is_asked(dataset: Dataset) -> None:
    item = by_template(dataset, "top_vendors_paid")
    assert item.truth["ordered"] is True
    unordered = item.truth["sql"].replace("ORDER BY paid DESC ", "")
    assert unordered != item.truth["sql"]
    assert named(WORKLOAD.grade(item, sql_answer(unordered)))["result_matches"] is False


def test_right_rows_in_the_wrong_order_fail_only_when_order_is_asked(dataset: Dataset) -> None:
    ordered = by_template(dataset, "receipts_by_month")
    reversed_sql = ordered.truth["sql"].replace("ORDER BY month", "ORDER BY month DESC")
    grade = WORKLOAD.grade(ordered, sql_answer(reversed_sql))
    assert grade.checks[2].passed is False
    assert "wrong order" in grade.checks[2].detail
    unordered = by_template(dataset, "payments_by_method")
    assert unordered.truth["ordered"] is False
    flipped = unordered.truth["sql"] + " ORDER BY method DESC"
    assert WORKLOAD.grade(unordered, sql_answer(flipped)).deterministic_pass


def _tied(item: Item) -> Item:
    """The item with a reference result holding two rows tied on the order key (total paid)."""
    rows = [["Acme Supplies", 500_00], ["Birch & Co", 500_00], ["Cobalt Ltd", 300_00]]
    return replace(item, truth={**item.truth, "rows": rows})


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM (VALUES ('Birch & Co', 50000), ('Acme Supplies', 50000), "
        "('Cobalt Ltd', 30000))",
        "SELECT * FROM (VALUES ('Acme Supplies', 50000), ('Birch & Co', 50000), "
        "('Cobalt Ltd', 30000))",
    ],
    ids=["ties-swapped", "reference-order"],
)
def test_rows_tied_on_the_order_asked_may_come_in_either_order(dataset: Dataset, sql: str) -> None:
    """§4.6: "order-insensitive unless ordering is asked". "Ordered from the highest total to
    the lowest" orders by the total only; revision 1 also demanded the reference's order of
    two vendors with the same total."""
    item = _tied(by_template(dataset, "top_vendors_paid"))
    grade = WORKLOAD.grade(item, sql_answer(sql))
    assert grade.deterministic_pass, grade.checks


def test_the_order_key_itself_must_still_be_in_the_order_asked(dataset: Dataset) -> None:
    item = _tied(by_template(dataset, "top_vendors_paid"))
    lowest_first = (
        "SELECT * FROM (VALUES ('Cobalt Ltd', 30000), ('Acme Supplies', 50000), "
        "('Birch & Co', 50000))"
    )
    grade = WORKLOAD.grade(item, sql_answer(lowest_first))
    assert grade.checks[2].passed is False and "wrong order" in grade.checks[2].detail


def test_every_ordered_question_declares_the_key_its_reference_sorts_by() -> None:
    """The order keys are the reference SQL's ORDER BY columns: over many items the reference
    rows are sorted by them, and every ordered template has one."""
    from ledgerrate.workloads.query_nl2sql import questions, tied_order

    data = WORKLOAD.generate(random.Random(SEED + 1), 2 * len(questions.TEMPLATES))
    ordered = {i.truth["template"] for i in data.items if i.truth["ordered"]}
    assert ordered == set(tied_order.ORDER_KEYS)
    for item in data.items:
        if item.truth["ordered"]:
            keys = [
                [row[k] for k in tied_order.ORDER_KEYS[item.truth["template"]]]
                for row in item.truth["rows"]
            ]
            assert keys in (sorted(keys), sorted(keys, reverse=True)) or (
                # late_paid_vendors: count descending, then name ascending
                keys == sorted(keys, key=lambda k: (-k[0], k[1]))
            ), item.truth["template"]


def test_revision_one_is_kept_verbatim_and_superseded() -> None:
    from ledgerrate.workloads.query_nl2sql import v1_revision1

    assert WORKLOAD.superseded == (v1_revision1.WORKLOAD,)
    assert WORKLOAD.grader_revision == 2
    assert WORKLOAD.prompt_hash == v1_revision1.WORKLOAD.prompt_hash
    assert WORKLOAD.generator_hash == v1_revision1.WORKLOAD.generator_hash


def test_column_names_are_ignored_but_column_order_matters(dataset: Dataset) -> None:
    item = by_template(dataset, "payments_by_method")
    renamed = (
        "SELECT method AS m, COUNT(*) AS n, SUM(amount_cents) AS t FROM ap_payments GROUP BY 1"
    )
    assert WORKLOAD.grade(item, sql_answer(renamed)).deterministic_pass
    swapped = "SELECT method, SUM(amount_cents), COUNT(*) FROM ap_payments GROUP BY method"
    assert not WORKLOAD.grade(item, sql_answer(swapped)).deterministic_pass


@pytest.mark.parametrize(
    "hostile",
    [
        "DROP TABLE vendors",
        "DELETE FROM ap_bills",
        "SELECT 1; DROP TABLE vendors",
        "PRAGMA writable_schema=1",
        "ATTACH DATABASE '/tmp/x.db' AS x",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r",
    ],
)
def test_hostile_sql_fails_sql_executes_and_never_harms_the_database(
    dataset: Dataset, hostile: str
) -> None:
    item = dataset.items[0]
    path: Path = database_for(item)
    before = sha256_file(path)
    grade = WORKLOAD.grade(item, sql_answer(hostile))
    assert named(grade) == {"answer_is_json": True, "sql_executes": False, "result_matches": False}
    assert sha256_file(path) == before
    assert WORKLOAD.grade(item, sql_answer(item.truth["sql"])).deterministic_pass


def test_prose_without_json_fails_answer_is_json(dataset: Dataset) -> None:
    grade = WORKLOAD.grade(dataset.items[0], Answer(text="SELECT COUNT(*) FROM customers"))
    assert named(grade)["answer_is_json"] is False
    assert not grade.deterministic_pass
    fenced = "Here:\n```json\n" + json.dumps({"sql": dataset.items[0].truth["sql"]}) + "\n```"
    assert WORKLOAD.grade(dataset.items[0], Answer(text=fenced)).deterministic_pass


def test_numbers_are_compared_after_rounding_to_cents() -> None:
    assert compare.compare_results([[1234]], [[1234.0]], ordered=False)[0]
    assert compare.compare_results([[1234]], [[1234.004]], ordered=False)[0]
    assert not compare.compare_results([[1234]], [[1234.01]], ordered=False)[0]
    assert not compare.compare_results([["1234"]], [[1234]], ordered=False)[0]
    assert compare.compare_results([[1], [2], [2]], [[2], [1], [2]], ordered=False)[0]
    assert not compare.compare_results([[1], [2], [2]], [[2], [1], [1]], ordered=False)[0]


def test_baseline_pass_count_is_measured_and_never_reads_truth(dataset: Dataset) -> None:
    blind = [replace(item, truth={}) for item in dataset.items]
    answers = [WORKLOAD.baseline(item, dataset) for item in blind]
    passes = [
        WORKLOAD.grade(item, a).deterministic_pass
        for item, a in zip(dataset.items, answers, strict=True)
    ]
    assert sum(passes) == BASELINE_PASSES
    assert translate("What is the weather like?") is None


def test_prompt_carries_schema_question_and_the_judging_rules(dataset: Dataset) -> None:
    item = dataset.items[0]
    prompt = WORKLOAD.prompt(item)
    assert "CREATE TABLE journal_lines" in prompt.user
    assert item.input["question"] in prompt.user
    assert "column names do not matter" in prompt.user
    assert set(item.input) == {"question", "schema"}  # the reference SQL stays in truth


def test_agentic_toolset_offers_only_run_sql_on_the_same_sandbox(
    dataset: Dataset, tmp_path: Path
) -> None:
    toolset = WORKLOAD.tools(dataset.items[0], dataset, tmp_path)
    try:
        assert [t.name for t in toolset.tools] == ["run_sql"]
        out = toolset.tools[0].run({"sql": "SELECT COUNT(*) FROM accounts"})
        assert out.splitlines()[1] == "22"
        assert toolset.state() is None
        assert list(tmp_path.rglob("*.sqlite")) == []
    finally:
        toolset.close()


def test_same_seed_same_dataset_hash_in_a_fresh_process(dataset: Dataset) -> None:
    code = (
        "import random;from ledgerrate.workloads.query_nl2sql.v1_revision2 import WORKLOAD as W;"
        f"print(W.generate(random.Random({SEED}), 15).hash)"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert fresh.stdout.strip() == dataset.hash
    assert WORKLOAD.generate(random.Random(SEED + 1), 15).hash != dataset.hash


def test_registered_metadata() -> None:
    assert WORKLOAD.id == "query.nl2sql.v1"
    assert WORKLOAD.unit == "Answer 100 ad-hoc finance questions"
    assert WORKLOAD.volume == 100
    assert WORKLOAD.modes == ("single-shot", "agentic")
