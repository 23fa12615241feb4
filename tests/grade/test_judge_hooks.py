"""A judged workload's hooks are a field of the workload (`Workload.judge`), not names looked up
in the module its grader happens to live in; attaching them to a frozen version changes no
hash."""

from __future__ import annotations

import dataclasses
import inspect
import types

import pytest

from ledgerrate.grade.judge import JudgeUnavailable, hooks_for
from ledgerrate.workloads.base import Answer, Grade, Item, JudgeHooks, Workload, with_judge
from ledgerrate.workloads.catalogue import WORKLOADS
from ledgerrate.workloads.generate_variance_commentary import v1_revision2 as variance
from ledgerrate.workloads.synthesize_board_brief import v1_revision2 as brief


def _revisions() -> list[Workload]:
    return [r for w in WORKLOADS for r in (w, *w.superseded)]


def _grade(item: Item, answer: Answer) -> Grade:
    return Grade(checks=(), needs_judge=True, judge_input=answer.text)


def _material(item: Item, answer_text: str) -> str:
    return f"task {item.id}\n\n{answer_text}"


def _outcome(item: Item, verdict: dict[str, object]) -> tuple[bool, dict[str, float], float]:
    return True, {}, 1.0


def _workload(**changes: object) -> Workload:
    base = brief.WORKLOAD
    return dataclasses.replace(base, grade=_grade, superseded=(), **changes)  # type: ignore[arg-type]


def test_every_judged_revision_in_the_catalogue_carries_its_hooks() -> None:
    judged = [r for r in _revisions() if r.judged]
    assert {r.id for r in judged} == {variance.ID, brief.ID}
    assert len(judged) == 4  # two versions, each with its revision 1
    for revision in judged:
        assert hooks_for(revision) is revision.judge is not None
    assert all(r.judge is None for r in _revisions() if not r.judged)


def test_the_frozen_versions_judge_with_revision_1s_hooks() -> None:
    for workload, module in (
        (variance, "generate_variance_commentary"),
        (brief, "synthesize_board_brief"),
    ):
        listed = next(w for w in WORKLOADS if w.id == workload.ID)
        first = listed.superseded[0].judge
        assert first is not None and listed.judge == first
        assert first.material is workload.judge_material  # re-exported from revision 1
        assert first.outcome is workload.judge_outcome
        assert first.material.__module__.endswith(f"{module}.v1_revision1")


def test_the_hooks_code_is_in_the_grader_hash_of_every_revision_that_carries_them() -> None:
    # The judge's pass rule decides grades: a hook outside the grader hash could change a sealed
    # edition's results without any hash noticing.
    for revision in _revisions():
        if revision.judge is None:
            continue
        covered = set(revision.grader_sources)
        modules = {s for s in covered if isinstance(s, types.ModuleType)}
        for hook in (revision.judge.material, revision.judge.outcome):
            assert hook in covered or inspect.getmodule(hook) in modules, (revision.id, hook)


def test_attaching_the_hooks_changes_no_hash() -> None:
    for module in (variance, brief):
        listed = next(w for w in WORKLOADS if w.id == module.ID)
        bare = module.WORKLOAD
        assert listed.judge is not None and bare.judge is None
        for with_hooks, without in zip(
            (listed, *listed.superseded), (bare, *bare.superseded), strict=True
        ):
            assert with_hooks.workload_hash == without.workload_hash
            assert with_hooks.grader_hash == without.grader_hash
            assert with_hooks.grader_revision == without.grader_revision


def test_hooks_come_from_the_field_not_the_graders_module() -> None:
    # `_grade` lives in this test module, which defines no judge_material/judge_outcome: the
    # old lookup through `inspect.getmodule(workload.grade)` found nothing here.
    hooks = JudgeHooks(material=_material, outcome=_outcome)
    workload = _workload(judge=hooks)
    assert hooks_for(workload) is hooks
    assert hooks_for(dataclasses.replace(workload, superseded=(workload,))) is hooks


def test_a_judged_workload_without_hooks_is_refused_with_the_fix() -> None:
    with pytest.raises(
        JudgeUnavailable, match=r"is judged but has no judge hooks; set Workload\.judge"
    ):
        hooks_for(_workload(judge=None))


def test_hooks_on_an_unjudged_workload_are_refused() -> None:
    with pytest.raises(ValueError, match="judge hooks given but judged=False"):
        _workload(judged=False, judge=JudgeHooks(material=_material, outcome=_outcome))


def test_with_judge_reaches_every_superseded_revision() -> None:
    hooks = JudgeHooks(material=_material, outcome=_outcome)
    first = _workload()
    second = dataclasses.replace(first, superseded=(first,))
    attached = with_judge(second, hooks)
    assert attached.judge is hooks and attached.superseded[0].judge is hooks
