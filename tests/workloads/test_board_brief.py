"""synthesize.board-brief.v1: the board pack, the deterministic checks and the fact verdict."""

from __future__ import annotations

import io
import random
from decimal import Decimal

import pytest

from ledgerrate.workloads import figures
from ledgerrate.workloads.base import Answer, Item
from ledgerrate.workloads.synthesize_board_brief import pack_numbers, v1_revision1
from ledgerrate.workloads.synthesize_board_brief import v1_revision2 as v1

DATASET = v1.generate(random.Random(20260701), 15)


def verdict(item: Item, present: int) -> dict[str, object]:
    ids = [f["id"] for f in item.truth["checklist"]]
    return {"facts": [{"id": fid, "present": i < present} for i, fid in enumerate(ids)]}


def test_pack_shape_and_determinism() -> None:
    assert v1.generate(random.Random(20260701), 15).hash == DATASET.hash
    for item in DATASET.items:
        docs = item.input["documents"]
        assert len(docs) == 5
        words = sum(len(d["text"].split()) for d in docs)
        assert 14_000 <= words <= 22_000  # about 40 pages at ~420 words a page
        assert len(item.truth["checklist"]) == 20
        text = v1.pack_text(item)
        for sentence in item.truth["sentences"].values():
            assert sentence in text  # every planted fact is in the pack
        assert "checklist" not in text


@pytest.mark.slow
def test_pdfs_render_deterministically() -> None:
    from pypdf import PdfReader

    item = DATASET.items[0]
    first, second = v1.pack_pdfs(item), v1.pack_pdfs(item)
    assert first == second and len(first) == 5
    pages = sum(len(PdfReader(io.BytesIO(pdf)).pages) for pdf in first.values())
    assert 34 <= pages <= 50


@pytest.mark.parametrize("item", DATASET.items[:5], ids=lambda item: item.id)
def test_truth_passes_the_deterministic_part(item: Item) -> None:
    grade = v1.grade(item, Answer(v1.reference_answer(item)))
    assert grade.deterministic_pass, grade.checks
    assert grade.needs_judge


def test_baseline_is_deterministic_and_stays_within_the_rules() -> None:
    item = DATASET.items[0]
    first = v1.baseline(item, DATASET)
    assert first == v1.baseline(item, DATASET)
    assert v1.grade(item, first).deterministic_pass


def test_fabricated_figure_fails() -> None:
    item = DATASET.items[1]
    text = v1.reference_answer(item) + "\n- Free cash flow was $987.6m."
    checks = {c.name: c.passed for c in v1.grade(item, Answer(text)).checks}
    assert checks == {"answer_format": True, "no_fabricated_figures": False, "length_limit": True}


def test_over_length_fails() -> None:
    item = DATASET.items[2]
    text = v1.reference_answer(item) + " The board met." * 100
    checks = {c.name: c.passed for c in v1.grade(item, Answer(text)).checks}
    assert checks == {"answer_format": True, "no_fabricated_figures": True, "length_limit": False}


def test_missing_facts_fail_through_the_judge_verdict() -> None:
    item = DATASET.items[0]
    assert v1.judge_outcome(item, verdict(item, 18))[0]  # 90% present passes
    passed, scores, score = v1.judge_outcome(item, verdict(item, 17))
    assert not passed and score == 17 and scores["facts_present"] == 17
    partial = verdict(item, 20)
    partial["facts"] = partial["facts"][:-1]  # type: ignore[index]
    with pytest.raises(ValueError, match="lacks facts"):
        v1.judge_outcome(item, partial)


def test_judge_material_holds_checklist_not_pack() -> None:
    item = DATASET.items[0]
    material = v1.judge_material(item, "BRIEF")
    assert all(f["id"] in material for f in item.truth["checklist"])
    assert item.input["documents"][0]["text"][:200] not in material


def test_workload_contract() -> None:
    wl = v1.WORKLOAD
    assert (
        wl.judged
        and wl.rubric
        and (wl.unit, wl.volume)
        == (
            "Turn a board pack into an exec brief",
            1,
        )
    )
    assert "18 of the 20" in wl.pass_rule and "500 words" in wl.pass_rule


# ----------------------------------------------------------------- grader revision 2 (§4.5)


def _pack_values(item: Item) -> set[Decimal]:
    return {n.magnitude for n in pack_numbers.numbers(v1.pack_text(item), skip_markers=False)}


def test_every_number_counts_list_markers_labels_and_dates_do_not() -> None:
    text = "1. The board approved 3 new risks in 2026 (Q3, FY2026, item-03, 12th, 2026-07-01).\n"
    found = [(n.text, n.value) for n in pack_numbers.numbers(text)]
    assert found == [("3", 3), ("2026", 2026)]
    assert [n.text for n in pack_numbers.numbers("It was $1.2m, 4 per cent and USD 7")] == [
        "$1.2m",
        "4 per cent",
        "USD 7",
    ]


def test_a_year_or_count_the_pack_never_states_is_fabricated() -> None:
    """ "Every number in the brief must exist in the pack": revision 1 skipped years and bare
    numbers below 10, so an invented year passed."""
    item = DATASET.items[1]
    year = next(y for y in range(1901, 2100) if Decimal(y) not in _pack_values(item))
    text = v1.reference_answer(item) + f"\n- The company was founded in {year}."
    grade = v1.grade(item, Answer(text))
    checks = {c.name: c.passed for c in grade.checks}
    assert checks == {"answer_format": True, "no_fabricated_figures": False, "length_limit": True}
    assert str(year) in grade.checks[1].detail and not grade.needs_judge
    assert v1_revision1.grade(item, Answer(text)).deterministic_pass  # what revision 1 did


def test_a_figure_rounded_from_the_pack_does_not_exist_in_it() -> None:
    item = DATASET.items[1]
    values = _pack_values(item)

    def two_digits(value: Decimal) -> Decimal:
        return round(value, 1 - value.adjusted())

    source = next(
        n.magnitude
        for n in figures.find_figures(v1.pack_text(item))
        if n.kind == "money"
        and n.magnitude >= 10_000
        and two_digits(n.magnitude) != n.magnitude
        and two_digits(n.magnitude) not in values
    )
    rounded = f"${two_digits(source):,.0f}"
    text = v1.reference_answer(item) + f"\n- The figure to watch is {rounded}."
    grade = v1.grade(item, Answer(text))
    assert not grade.deterministic_pass and rounded in grade.checks[1].detail
    assert v1_revision1.grade(item, Answer(text)).deterministic_pass  # within half a unit
    # the same value in another notation exists
    same = v1.reference_answer(item) + f"\n- It was USD {source:,.0f}."
    assert v1.grade(item, Answer(same)).deterministic_pass


@pytest.mark.parametrize("item", DATASET.items[:5], ids=lambda item: item.id)
def test_the_extractive_baseline_writes_only_numbers_of_the_pack(item: Item) -> None:
    grade = v1.grade(item, v1.baseline(item, DATASET))
    assert grade.deterministic_pass, grade.checks


def test_revision_one_is_kept_verbatim_and_superseded() -> None:
    assert v1.WORKLOAD.superseded == (v1_revision1.WORKLOAD,)
    assert v1.WORKLOAD.rubric_hash == v1_revision1.WORKLOAD.rubric_hash
    assert v1.WORKLOAD.prompt_hash == v1_revision1.WORKLOAD.prompt_hash
