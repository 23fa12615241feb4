"""generate.variance-commentary.v1 and the shared figure matcher it grades with."""

from __future__ import annotations

import json
import random
from decimal import Decimal

import pytest

from ledgerrate.workloads import figures
from ledgerrate.workloads.base import Answer, Item
from ledgerrate.workloads.generate_variance_commentary import v1_revision2 as v1

DATASET = v1.generate(random.Random(20260701), 15)


def failing(item: Item, text: str) -> set[str]:
    return {c.name for c in v1.grade(item, Answer(text)).checks if not c.passed}


# --------------------------------------------------------------------------- figures


@pytest.mark.parametrize(
    ("text", "value", "kind", "currency"),
    [
        ("$1.2m", Decimal("1200000"), "money", "USD"),
        ("1,200,000", Decimal("1200000"), "number", None),
        ("12%", Decimal("12"), "percent", None),
        ("(3,400)", Decimal("-3400"), "number", None),
        ("€45k", Decimal("45000"), "money", "EUR"),
        ("USD 2.5 million", Decimal("2500000"), "money", "USD"),
        ("-5.5 per cent", Decimal("-5.5"), "percent", None),
        ("£310", Decimal("310"), "money", "GBP"),
    ],
)
def test_figure_forms_normalise(text: str, value: Decimal, kind: str, currency: str | None) -> None:
    (found,) = figures.find_figures(f"The line moved by {text} in the period.")
    assert (found.value, found.kind, found.currency) == (value, kind, currency)


def test_not_figures() -> None:
    text = "The top 3 drivers in FY2026 Q3 (item-03, the 12th line) on 2026-07-01 and in 2025."
    assert figures.find_figures(text) == []


@pytest.mark.parametrize(
    ("cited", "source", "ok"),
    [
        ("$1.2m", "1,203,456", True),  # rounded to the shown 0.1m
        ("$1.2m", "1,260,000", False),
        ("1,200,000", "1,234,567", True),  # trailing zeros read as rounding to 100,000
        ("$1m", "1,040,000", True),  # two significant digits always compared
        ("$1m", "1,200,000", False),
        ("12%", "12.4%", True),
        ("12%", "12.6%", False),
        ("12%", "12", False),  # a percentage matches only a percentage
        ("(3,400)", "3,400", True),  # signs are carried by words
        ("€45k", "$45,000", False),  # two named currencies must agree
        ("$45,001", "45,000", False),
    ],
)
def test_tolerance(cited: str, source: str, ok: bool) -> None:
    (c,) = figures.find_figures(cited)
    (s,) = figures.find_figures(source)
    assert figures.matches(c, s) is ok


# --------------------------------------------------------------------------- dataset


def test_generation_is_deterministic_and_top3_unambiguous() -> None:
    again = v1.generate(random.Random(20260701), 15)
    assert again.hash == DATASET.hash
    assert v1.generate(random.Random(1), 15).hash != DATASET.hash
    for item in DATASET.items:
        assert len(item.input["lines"]) == 12
        ranked = sorted(item.input["lines"], key=lambda line: -abs(line["variance"]))
        assert [line["name"] for line in ranked[:3]] == item.truth["drivers"]
        assert abs(ranked[2]["variance"]) > abs(ranked[3]["variance"])
        assert item.truth["herrings"], "every table has red-herring notes"
        assert "drivers" not in json.dumps(item.input)  # the answer is not in the input
    assert any("close-fourth" in item.strata for item in DATASET.items)


# --------------------------------------------------------------------------- grading


@pytest.mark.parametrize("item", DATASET.items, ids=lambda item: item.id)
def test_truth_and_baseline_pass_the_deterministic_part(item: Item) -> None:
    for answer in (Answer(v1.reference_answer(item)), v1.baseline(item, DATASET)):
        grade = v1.grade(item, answer)
        assert grade.deterministic_pass, grade.checks
        assert grade.needs_judge and grade.judge_input  # the judged part is still owed


def test_fabricated_figure_fails_figures_exist() -> None:
    item = DATASET.items[0]
    data = json.loads(v1.reference_answer(item))
    data["commentary"] += " Overall spend rose by 987,654."
    assert failing(item, json.dumps(data)) == {"figures_exist"}


def test_wrong_driver_fails_top3() -> None:
    item = DATASET.items[1]
    ranked = sorted(item.input["lines"], key=lambda line: -abs(line["variance"]))
    data = json.loads(v1.reference_answer(item))
    data["drivers"][2] = ranked[3]["name"]
    data["commentary"] += f" {ranked[3]['name']} also moved."
    assert failing(item, json.dumps(data)) == {"top3_drivers"}


def test_driver_missing_from_prose_fails_top3() -> None:
    item = DATASET.items[2]
    data = json.loads(v1.reference_answer(item))
    data["commentary"] = "Costs moved for the reasons in the notes."
    assert failing(item, json.dumps(data)) == {"top3_drivers"}


def test_over_the_word_limit_is_reported_not_graded() -> None:
    """§4.4's pass criteria are the figures, the drivers and the judge; "≤300 words" is in the
    requested output only (§4.5, by contrast, passes "within length limit")."""
    item = DATASET.items[3]
    data = json.loads(v1.reference_answer(item))
    data["commentary"] += " and more" * 160
    grade = v1.grade(item, Answer(json.dumps(data)))
    assert failing(item, json.dumps(data)) == set()
    assert "word_limit" not in {c.name for c in grade.checks}
    assert grade.diagnostics["over_word_limit"] is True and grade.diagnostics["words"] > 300
    assert grade.needs_judge and grade.judge_input == data["commentary"]


def test_revision_one_is_kept_verbatim_and_superseded() -> None:
    from ledgerrate.workloads.generate_variance_commentary import v1_revision1

    assert v1.WORKLOAD.superseded == (v1_revision1.WORKLOAD,)
    assert v1.WORKLOAD.rubric_hash == v1_revision1.WORKLOAD.rubric_hash
    assert v1.WORKLOAD.prompt_hash == v1_revision1.WORKLOAD.prompt_hash


def test_unreadable_answer_fails_everything_and_skips_the_judge() -> None:
    grade = v1.grade(DATASET.items[0], Answer("I could not do this."))
    assert not any(c.passed for c in grade.checks)
    assert not grade.needs_judge and grade.judge_input is None


def test_judge_pass_rule() -> None:
    item = DATASET.items[0]
    assert v1.judge_outcome(item, {"clarity": 4, "cause_attribution": 4})[0]
    assert not v1.judge_outcome(item, {"clarity": 5, "cause_attribution": 3})[0]
    with pytest.raises(ValueError):
        v1.judge_outcome(item, {"clarity": 5})
    with pytest.raises(ValueError):
        v1.judge_outcome(item, {"clarity": 9, "cause_attribution": 4})


def test_workload_contract() -> None:
    wl = v1.WORKLOAD
    assert wl.judged and wl.rubric and wl.rubric_hash
    assert (wl.unit, wl.volume) == ("Draft 50 variance commentaries", 50)
    assert "at least 4 out of 5" in wl.pass_rule and "reported, not graded" in wl.pass_rule
    prompt = wl.prompt(DATASET.items[0])
    assert prompt.hash == wl.prompt(DATASET.items[0]).hash
    for name in DATASET.items[0].truth["drivers"]:
        assert name in prompt.user  # names to copy exactly are in the table
