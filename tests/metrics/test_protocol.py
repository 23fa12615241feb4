"""The judged-task protocol (standard §5) as a pure function of a cell's graded runs."""

from __future__ import annotations

import pandas as pd

from ledgerrate.metrics import protocol as p
from ledgerrate.metrics.rows import Rows


def _items(
    judge: list[bool | None],
    human: list[bool | None] | None = None,
    *,
    scope: str = "sample",
    second: list[bool | None] | None = None,
    outcome: list[str] | None = None,
) -> Rows:
    n = len(judge)
    human = human or [None] * n
    frame = pd.DataFrame(
        {
            "judge_passed": judge,
            "human_passed": human,
            "human_scope": [scope if h is not None else None for h in human],
            "second_passed": second or [None] * n,
            "outcome": outcome
            or [("pass" if j else "fail") if j is not None else "fail" for j in judge],
        }
    )
    return Rows.of(frame)


def _gaps(found: object) -> list[str]:
    assert found is not None
    return [gap.split(":")[0] for gap in found.missing]  # type: ignore[attr-defined]


def test_no_judge_verdict_means_no_protocol_block() -> None:
    # What keeps sealed editions valid: their judged runs never reached a judge.
    pending = _items([None] * 15, outcome=["pending_judge"] * 15)
    assert p.judge_protocol(pending, same_family=False) is None
    assert p.judge_protocol(pending.where([False] * len(pending)), same_family=True) is None


def test_unchecked_short_and_met() -> None:
    judged = [True] * 15
    none = p.judge_protocol(_items(judged), same_family=False)
    assert _gaps(none) == [p.NO_SPOTCHECK] and none.spotcheck_required == 3  # type: ignore[union-attr]
    two = p.judge_protocol(_items(judged, [True, True] + [None] * 13), same_family=False)
    assert _gaps(two) == [p.SHORT_SPOTCHECK]
    met = p.judge_protocol(_items(judged, [True] * 3 + [None] * 12), same_family=False)
    assert met is not None and met.missing == [] and met.agreement == 1.0
    assert met.agreement_ci is not None and float(met.agreement_ci.lo) < 1.0  # type: ignore[arg-type]


def test_disagreement_limit_is_more_than_ten_percent() -> None:
    judged = [True] * 15
    # 1 of 10 (10%) is within the limit; 1 of 9 (11%) is not.
    ten = p.judge_protocol(_items(judged, [False] + [True] * 9 + [None] * 5), same_family=False)
    assert ten is not None and ten.missing == [] and ten.manual_regrade == "not_required"
    nine = p.judge_protocol(_items(judged, [False] + [True] * 8 + [None] * 6), same_family=False)
    assert _gaps(nine) == [p.REGRADE] and nine.manual_regrade == "required"  # type: ignore[union-attr]


def test_regrade_done_only_when_the_outcomes_are_the_humans() -> None:
    judged = [True] * 5
    humans = [False] + [True] * 4
    applied = _items(judged, humans, outcome=["fail"] + ["pass"] * 4)
    done = p.judge_protocol(applied, same_family=False)
    assert done is not None and done.manual_regrade == "done" and done.missing == []
    stale = p.judge_protocol(_items(judged, humans), same_family=False)
    assert _gaps(stale) == [p.NOT_APPLIED]


def test_second_judge_required_for_the_judges_family() -> None:
    met = _items([True] * 5, [True] + [None] * 4)
    assert _gaps(p.judge_protocol(met, same_family=True)) == [p.NO_SECOND_JUDGE]
    checked = _items([True] * 5, [True] + [None] * 4, second=[False] + [None] * 4)
    found = p.judge_protocol(checked, same_family=True)
    assert found is not None and found.missing == []
    assert (found.second_judge_checked, found.second_judge_agreement) == (1, 0.0)


def test_pending_runs_are_a_missing_condition_once_the_judge_has_started() -> None:
    items = _items(
        # The outcome as a grade record spells it (the enum's value, `pending-judge`).
        [True, True, None],
        [True, None, None],
        outcome=["pass", "pass", "pending-judge"],
    )
    assert _gaps(p.judge_protocol(items, same_family=False)) == [p.PENDING]
    assert p.gap_summary(p.judge_protocol(items, same_family=False)) == p.PENDING


def test_a_judged_cell_carries_its_block_when_no_run_has_a_verdict() -> None:
    # 2026-12: its judge's replies were unusable (every run pending) or no run reached the judge
    # (every run failed its code checks); the edition names a judge, so each cell is judged.
    pending = _items([None] * 5, outcome=["pending-judge"] * 5)
    block = p.judge_protocol(pending, same_family=True, judged=True)
    assert block is not None and block.judged_runs == 0 and block.spotcheck_required == 0
    assert block.missing == [f"{p.PENDING}: 5 of 5 runs have no final grade"]
    failed = _items([None] * 5, outcome=["fail"] * 5)
    block = p.judge_protocol(failed, same_family=True, judged=True)
    assert block is not None and block.missing == [] and block.second_judge_required
    empty = p.judge_protocol(pending.where([False] * len(pending)), same_family=True, judged=True)
    assert empty is not None and empty.judged_runs == 0 and empty.missing == []
    assert empty.second_judge_required
    # Without a judge named (2026-11, 2026-11-b) the cell still carries none.
    assert p.judge_protocol(pending, same_family=True, judged=False) is None
