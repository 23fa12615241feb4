"""query.nl2sql.v2: questions never repeat up to n = 50; v1's grading over v2's database."""

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
from ledgerrate.workloads import WORKLOADS, get
from ledgerrate.workloads.base import Answer, Dataset, Workload
from ledgerrate.workloads.query_nl2sql import v1_revision2 as v1
from ledgerrate.workloads.query_nl2sql import v2
from ledgerrate.workloads.query_nl2sql.v2 import WORKLOAD

SEED = 2026
# The templates whose v1 form v1's keyword translator answers (it passes 6 of 15 on v1).
TRANSLATED = {
    "parties_in_country",
    "invoiced_in_months",
    "accounts_of_type",
    "unpaid_bills",
    "extreme_receipt",
    "vendor_billed",
}


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return WORKLOAD.generate(random.Random(SEED), 15)


@pytest.fixture(scope="module")
def fifty() -> Dataset:
    return WORKLOAD.generate(random.Random(SEED), 50)


def sql_answer(sql: str) -> Answer:
    return Answer(text=json.dumps({"sql": sql}))


@pytest.mark.parametrize(
    "workload",
    [
        pytest.param(v1.WORKLOAD, id="v1", marks=pytest.mark.xfail(strict=True)),
        pytest.param(WORKLOAD, id="v2"),
    ],
)
def test_no_question_repeats_at_fifty_items(workload: Workload) -> None:
    for seed in (SEED, 1, 2):
        texts = [
            item.input["question"] for item in workload.generate(random.Random(seed), 50).items
        ]
        assert len(texts) == 50
        repeated = [text for text, count in Counter(texts).items() if count > 1]
        assert repeated == [], repeated[:3]


def test_fifty_items_cover_every_template_evenly(fifty: Dataset) -> None:
    per_template = Counter(item.truth["template"] for item in fifty.items)
    assert len(per_template) == 15 and set(per_template.values()) == {3, 4}
    levels = Counter(item.strata[0] for item in fifty.items)
    assert levels == {"easy": 20, "medium": 15, "hard": 15}


def test_reference_sql_passes_every_item_of_fifty(fifty: Dataset) -> None:
    grades = [WORKLOAD.grade(item, sql_answer(item.truth["sql"])) for item in fifty.items]
    assert all(g.deterministic_pass for g in grades)
    assert all(item.truth["rows"] for item in fifty.items)


def test_more_than_fifty_items_is_refused() -> None:
    with pytest.raises(ValueError, match="1 to 50 items"):
        WORKLOAD.generate(random.Random(SEED), 51)


def test_baseline_passes_where_the_v1_baseline_did(dataset: Dataset, fifty: Dataset) -> None:
    v1_data = v1.WORKLOAD.generate(random.Random(SEED), 15)
    v1_passes = sum(
        v1.WORKLOAD.grade(
            item, v1.WORKLOAD.baseline(replace(item, truth={}), v1_data)
        ).deterministic_pass
        for item in v1_data.items
    )
    for data in (dataset, fifty):
        passed = {
            item.id
            for item in data.items
            if WORKLOAD.grade(
                item, WORKLOAD.baseline(replace(item, truth={}), data)
            ).deterministic_pass
        }
        expected = {item.id for item in data.items if item.truth["template"] in TRANSLATED}
        assert passed == expected
    assert v1_passes == len(TRANSLATED) == 6


def test_wrong_sql_fails_by_name_and_hostile_sql_never_harms_the_database(
    dataset: Dataset,
) -> None:
    item = dataset.items[0]
    path: Path = v2.database_for(item)
    before = sha256_file(path)
    wrong = WORKLOAD.grade(item, sql_answer("SELECT COUNT(*) FROM customers WHERE 0"))
    assert [c.passed for c in wrong.checks] == [True, True, False]
    for hostile in ("DROP TABLE vendors", "SELECT 1; DELETE FROM ap_bills", "PRAGMA x=1"):
        grade = WORKLOAD.grade(item, sql_answer(hostile))
        assert [c.name for c in grade.checks if not c.passed] == ["sql_executes", "result_matches"]
    assert WORKLOAD.grade(item, Answer(text="no json")).checks[0].passed is False
    assert sha256_file(path) == before


def test_ordered_questions_fail_in_the_wrong_order(dataset: Dataset) -> None:
    item = next(i for i in dataset.items if i.truth["template"] == "cash_by_month")
    flipped = item.truth["sql"].replace("ORDER BY month", "ORDER BY month DESC")
    assert "wrong order" in WORKLOAD.grade(item, sql_answer(flipped)).checks[2].detail


def test_agentic_toolset_offers_run_sql_and_leaves_the_workdir_empty(
    dataset: Dataset, tmp_path: Path
) -> None:
    toolset = WORKLOAD.tools(dataset.items[0], dataset, tmp_path)
    try:
        assert [t.name for t in toolset.tools] == ["run_sql"]
        assert (
            toolset.tools[0].run({"sql": "SELECT COUNT(*) FROM accounts"}).splitlines()[1] == "22"
        )
    finally:
        toolset.close()
    assert list(tmp_path.iterdir()) == []


def test_same_seed_same_dataset_hash_in_a_fresh_process(dataset: Dataset) -> None:
    code = (
        "import random;from ledgerrate.workloads.query_nl2sql.v2 import WORKLOAD as W;"
        f"print(W.generate(random.Random({SEED}), 15).hash)"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert fresh.stdout.strip() == dataset.hash
    assert WORKLOAD.generate(random.Random(SEED + 1), 15).hash != dataset.hash


def test_registered_after_v1_with_v1s_prompt_and_rule() -> None:
    ids = [workload.id for workload in WORKLOADS]
    assert ids[ids.index("query.nl2sql.v1") + 1] == "query.nl2sql.v2"
    assert get("query.nl2sql.v2") is WORKLOAD
    assert (WORKLOAD.version, WORKLOAD.primitive, WORKLOAD.unit, WORKLOAD.volume) == (
        2,
        "query",
        v1.WORKLOAD.unit,
        100,
    )
    assert WORKLOAD.prompt_hash == v1.WORKLOAD.prompt_hash
    assert WORKLOAD.pass_rule == v1.WORKLOAD.superseded[0].pass_rule  # revision 1's comparison
    assert WORKLOAD.generator_hash != v1.WORKLOAD.generator_hash
    assert "never asks the same question twice" in WORKLOAD.changelog
