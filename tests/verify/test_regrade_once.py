"""verify grades each distinct (workload, item, answer, tool state) once, and only those."""

from __future__ import annotations

import pytest

from ledgerrate.core import forked
from ledgerrate.verify import evidence
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
    # The same state, keys reordered.
    first, again = regrade.all(
        [("w", "i1", "right", {"b": 1, "a": 2}), ("w", "i1", "right", {"a": 2, "b": 1})]
    )
    assert first is again and len(workload.calls) == 1


def test_another_item_answer_or_tool_state_is_graded_anew() -> None:
    regrade, workload = _regrader(remember=True)
    verdicts = regrade.all(
        [
            ("w", "i1", "right", None),
            ("w", "i2", "right", None),
            ("w", "i1", "wrong", None),
            ("w", "i1", "right", {"a": 1}),
            ("w", "i1", "right", {"a": 2}),
        ]
    )
    assert len(workload.calls) == 5
    assert [v.deterministic_pass for v in verdicts] == [True, True, False, True, True]


def test_without_remembering_every_run_is_graded() -> None:
    regrade, workload = _regrader(remember=False)
    regrade.all([("w", "i1", "right", None)] * 3)
    assert len(workload.calls) == 3


def test_verdicts_from_worker_processes_are_the_verdicts_graded_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    inputs = [("w", f"i{n % 4}", "right" if n % 3 else "wrong", {"n": n % 2}) for n in range(24)]
    here, _ = _regrader(remember=False)
    monkeypatch.setenv(forked.WORKERS_ENV, "1")
    serial = [g.deterministic_pass for g in here.all(inputs)]
    monkeypatch.setenv(forked.WORKERS_ENV, "2")
    monkeypatch.setattr(evidence, "_BATCH", 5)  # five jobs, on two workers
    for remember in (False, True):
        regrade, workload = _regrader(remember=remember)
        assert [g.deterministic_pass for g in regrade.all(inputs)] == serial
        assert workload.calls == []  # every verdict was graded in a worker, none here
