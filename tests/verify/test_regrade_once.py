"""verify grades each distinct (workload, item, answer, tool state) once, and only those."""

from __future__ import annotations

from ledgerrate.verify.evidence import _Regrader
from ledgerrate.workloads.base import Grade, check


class _Dataset:
    def item(self, item_id: str) -> str:
        return f"item {item_id}"


class _Workload:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, object]] = []

    def grade(self, item, answer) -> Grade:
        self.calls.append((item, answer.text, answer.tool_state))
        return Grade(checks=(check("answer", answer.text == "right"),))


def _regrader(remember: bool) -> tuple[_Regrader, _Workload]:
    workload = _Workload()
    return _Regrader({"w": _Dataset()}, lambda _id: workload, remember=remember), workload


def test_the_same_answer_to_the_same_item_is_graded_once() -> None:
    regrade, workload = _regrader(remember=True)
    first = regrade("w", "i1", "right", {"b": 1, "a": 2})
    again = regrade("w", "i1", "right", {"a": 2, "b": 1})  # the same state, keys reordered
    assert first is again and len(workload.calls) == 1


def test_another_item_answer_or_tool_state_is_graded_anew() -> None:
    regrade, workload = _regrader(remember=True)
    verdicts = [
        regrade("w", "i1", "right", None),
        regrade("w", "i2", "right", None),
        regrade("w", "i1", "wrong", None),
        regrade("w", "i1", "right", {"a": 1}),
        regrade("w", "i1", "right", {"a": 2}),
    ]
    assert len(workload.calls) == 5
    assert [v.deterministic_pass for v in verdicts] == [True, True, False, True, True]


def test_without_remembering_every_run_is_graded() -> None:
    regrade, workload = _regrader(remember=False)
    for _ in range(3):
        regrade("w", "i1", "right", None)
    assert len(workload.calls) == 3
