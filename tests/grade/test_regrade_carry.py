"""`grade --regrade` keeps the §5 evidence of a judged cell where what was judged is unchanged.

A regrade under an unchanged grader must not call the judge nor drop the imported human
spot-checks (the cell would fall off the card); where the deterministic outcome changed, the
earlier verdicts are about something else: the judge is asked again (or not at all, when the
deterministic checks now fail) and the human verdict is not carried.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.grade.carry import Now, carry
from ledgerrate.grade.history import latest_grades
from ledgerrate.grade.stage import grade_edition
from ledgerrate.metrics.report import edition_results
from ledgerrate.schema import CellResult, Check
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.workloads.base import Answer, Grade, Item, Workload
from ledgerrate.workloads.synthesize_board_brief import v1_revision2 as brief
from tests.grade.gradekit import (
    BRIEF,
    JUDGE_KEY_ENV,
    WORKLOADS,
    MiniEdition,
    make_edition,
    scoring_responder,
)

ONE = {"alpha": {"provider": "openai", "family": "acmeai", "api_model": "acme-large-2"}}
CELL = (BRIEF, "alpha", "single-shot")
BRIEF_WORKLOAD = WORKLOADS[BRIEF]  # with its judge hooks, which a revision made by `replace` keeps


def _fill_yes(form: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(form.read_text(encoding="utf-8"))))
    for row in rows:
        row["grader"], row["human_pass"] = "g1", "yes"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    form.write_text(out.getvalue(), encoding="utf-8")


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _cell(ed: MiniEdition) -> CellResult:
    results = edition_results(ed.root)
    return next(c for c in results.workloads[0].cells if c.model == "alpha")


def _spotchecked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeProviderServer
) -> MiniEdition:
    """A judged cell whose sample humans agree with the judge everywhere: it qualifies."""
    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    ed = make_edition(
        tmp_path,
        fake.base_url("openai"),
        judge_family="neutral",
        n=15,
        evaluated=ONE,
        workloads=(BRIEF,),
    )
    for item in ed.dataset(BRIEF).items:
        ed.add_run(BRIEF, "alpha", "single-shot", item.id, brief.reference_answer(item))
    grade_edition(ed.root, lookup=lambda _w: BRIEF_WORKLOAD)
    _invoke("spotcheck", "sample", str(ed.root))
    _fill_yes(ed.paths.spotcheck(BRIEF))
    _invoke("spotcheck", "import", str(ed.root), str(ed.paths.spotcheck(BRIEF)))
    assert _cell(ed).qualifying
    return ed


def _revised(grade: object) -> Workload:
    """The board brief under a corrected grader (a grader revision, as `superseded` records)."""
    return dataclasses.replace(BRIEF_WORKLOAD, grade=grade, superseded=(BRIEF_WORKLOAD,))  # type: ignore[arg-type]


def _with_extra_check(passed: bool) -> object:
    def grade(item: Item, answer: Answer) -> Grade:
        old = BRIEF_WORKLOAD.grade(item, answer)
        check = Check(name="revised_check", passed=passed, detail="added by the revision")
        return dataclasses.replace(
            old,
            checks=(*old.checks, check),
            needs_judge=old.needs_judge and passed,
            judge_input=old.judge_input if passed else None,
        )

    return grade


def test_a_regrade_under_an_unchanged_grader_keeps_the_spotchecks_and_calls_no_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = _spotchecked(tmp_path, monkeypatch, fake)
        before = latest_grades(ed.paths.grades(*CELL))
        calls = len(fake.requests)
        monkeypatch.setattr("ledgerrate.workloads.get", lambda _w: BRIEF_WORKLOAD)
        out = _invoke("grade", str(ed.root), "--regrade")
        assert len(fake.requests) == calls  # no judge call
    assert "15 judge verdict(s) and 3 human verdict(s) carried forward" in out, out
    assert "sent to the judge again" not in out
    after = latest_grades(ed.paths.grades(*CELL))
    assert all(g.revision == before[g.run_id].revision + 1 for g in after.values())
    assert {r: g.spotcheck for r, g in after.items()} == {r: g.spotcheck for r, g in before.items()}
    assert {r: g.judge for r, g in after.items()} == {r: g.judge for r, g in before.items()}
    cell = _cell(ed)
    assert cell.qualifying and cell.judge_protocol is not None
    assert cell.judge_protocol.spotchecked == 3 and cell.judge_protocol.missing == []


def test_a_changed_deterministic_outcome_is_judged_again_and_drops_the_human_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = _spotchecked(tmp_path, monkeypatch, fake)
        calls = len(fake.requests)
        revised = _revised(_with_extra_check(passed=True))
        summary = grade_edition(ed.root, regrade=True, lookup=lambda _w: revised)
        assert len(fake.requests) - calls == 15  # every run judged again
    assert summary.judge_carried == 0 and summary.humans_carried == 0
    assert summary.rejudged == {"deterministic outcome changed": 15}
    assert summary.humans_dropped == {"deterministic outcome changed": 3}
    after = latest_grades(ed.paths.grades(*CELL)).values()
    assert all(g.spotcheck is None and g.judge is not None for g in after)
    assert all(g.judge.request_sha256 is not None for g in after)  # type: ignore[union-attr]
    # The earlier human verdicts stay in the log, under the earlier revisions.
    assert ed.paths.grades(*CELL).read_text(encoding="utf-8").count('"spotcheck":{') >= 3


def test_a_deterministic_fail_after_the_revision_needs_no_judge_and_keeps_no_human_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = _spotchecked(tmp_path, monkeypatch, fake)
        calls = len(fake.requests)
        revised = _revised(_with_extra_check(passed=False))
        summary = grade_edition(ed.root, regrade=True, lookup=lambda _w: revised)
        assert len(fake.requests) == calls  # a deterministic fail is final (§5.2)
    assert summary.failed == 15 and summary.humans_carried == 0
    assert summary.humans_dropped == {"deterministic outcome changed": 3}
    after = latest_grades(ed.paths.grades(*CELL)).values()
    assert all(g.outcome == "fail" and g.spotcheck is None and g.judge is None for g in after)


def test_a_verdict_by_another_judge_model_is_judged_again_and_keeps_the_human_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The judge is sealed with the edition, so this is the pure rule: a verdict recorded under
    # another judge model is asked again, while the humans, who saw the same submission and
    # never the judge, still check whichever judge grades it.
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = _spotchecked(tmp_path, monkeypatch, fake)
    prev = next(g for g in latest_grades(ed.paths.grades(*CELL)).values() if g.spotcheck)
    assert prev.judge is not None and prev.judge.request_sha256 is not None
    now = Now(
        list(prev.checks),
        prev.judge.request_sha256,
        prev.judge.rubric_hash,
        "judge-three",
        None,
        prev.grader_hash,
    )
    kept = carry(prev, now)
    assert kept.judge is None and kept.judge_reason == "judge model changed"
    assert kept.spotcheck == prev.spotcheck and kept.human_reason is None
    same = dataclasses.replace(now, judge_model=prev.judge.judge_model)
    assert carry(prev, same).judge == prev.judge
    other = dataclasses.replace(same, request_sha256="0" * 64)
    assert carry(prev, other).judge is None and carry(prev, other).spotcheck is None
