"""The judged-task protocol's other paths: the full manual regrade, the second judge, and the
private folder that spot-check commands must find (or refuse without)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.grade.anonymise import SECRET_FILE
from ledgerrate.grade.stage import grade_edition, latest_grades
from ledgerrate.metrics.report import edition_results
from ledgerrate.schema import CellResult
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.workloads.synthesize_board_brief import v1_revision2 as brief
from tests.grade.gradekit import (
    BRIEF,
    JUDGE_KEY_ENV,
    MiniEdition,
    lookup,
    make_edition,
    scoring_responder,
)

ONE = {"alpha": {"provider": "openai", "family": "acmeai", "api_model": "acme-large-2"}}


def _edition(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    judge_family: str = "neutral",
    second: bool = True,
) -> MiniEdition:
    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = make_edition(
            tmp_path,
            fake.base_url("openai"),
            judge_family=judge_family,
            second=second,
            n=15,
            evaluated=ONE,
            workloads=(BRIEF,),
        )
        for item in ed.dataset(BRIEF).items:
            ed.add_run(BRIEF, "alpha", "single-shot", item.id, brief.reference_answer(item))
        grade_edition(ed.root, lookup=lookup)
    return ed


def _fill(form: Path, verdict: str) -> list[dict[str, str]]:
    rows = list(csv.DictReader(io.StringIO(form.read_text(encoding="utf-8"))))
    for row in rows:
        row["grader"], row["human_pass"] = "g1", verdict
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    form.write_text(out.getvalue(), encoding="utf-8")
    return rows


def _cell(ed: MiniEdition) -> CellResult:
    results = edition_results(ed.root)
    return next(c for c in results.workloads[0].cells if c.mode == "single-shot")


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_full_manual_regrade_replaces_the_judge_and_then_qualifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ed = _edition(tmp_path, monkeypatch)
    assert _invoke("spotcheck", "sample", str(ed.root))[0] == 0
    _fill(ed.paths.spotcheck(BRIEF), "fail")  # 3 of 3 disagree with the judge's pass
    assert _invoke("spotcheck", "import", str(ed.root), str(ed.paths.spotcheck(BRIEF)))[0] == 0
    assert _cell(ed).judge_protocol.manual_regrade == "required"  # type: ignore[union-attr]

    # Drawing again writes the regrade form: the 12 judged runs with no human verdict yet.
    code, out = _invoke("spotcheck", "sample", str(ed.root))
    regrade_form = ed.root / "spotchecks" / f"{BRIEF}.regrade.csv"
    assert code == 0 and str(regrade_form) in out
    rows = _fill(regrade_form, "yes")
    assert len(rows) == 12
    code, out = _invoke("spotcheck", "import", str(ed.root), str(regrade_form))
    assert code == 0 and "fully regraded by hand" in out, out

    cell = _cell(ed)
    protocol = cell.judge_protocol
    assert protocol is not None and protocol.manual_regrade == "done"
    assert protocol.human_graded == 15 and protocol.missing == []
    # The humans' verdicts are the outcomes now: 12 pass, the 3 sampled runs fail.
    assert (cell.passes, cell.pass_rate) == (12, 0.8)
    assert cell.qualifying
    latest = latest_grades(ed.paths.grades(BRIEF, "alpha", "single-shot"))
    assert all(g.judge is not None and g.judge.passed for g in latest.values())  # judge kept
    notes = (ed.root / "spotchecks" / f"{BRIEF}.flags.json").read_text(encoding="utf-8")
    assert "the human verdicts replace the judge's" in notes


def test_same_family_judge_without_second_judge_does_not_qualify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ed = _edition(tmp_path, monkeypatch, judge_family="acmeai", second=False)
    assert _invoke("spotcheck", "sample", str(ed.root))[0] == 0
    _fill(ed.paths.spotcheck(BRIEF), "yes")  # humans agree with the judge everywhere
    assert _invoke("spotcheck", "import", str(ed.root), str(ed.paths.spotcheck(BRIEF)))[0] == 0
    cell = _cell(ed)
    protocol = cell.judge_protocol
    assert protocol is not None and protocol.agreement == 1.0
    assert protocol.second_judge_required and protocol.second_judge_checked == 0
    assert [gap.split(":")[0] for gap in protocol.missing] == ["second-judge check not run"]
    assert not cell.qualifying


def test_same_family_judge_with_second_judge_publishes_its_agreement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ed = _edition(tmp_path, monkeypatch, judge_family="acmeai", second=True)
    assert _invoke("spotcheck", "sample", str(ed.root))[0] == 0
    _fill(ed.paths.spotcheck(BRIEF), "yes")
    assert _invoke("spotcheck", "import", str(ed.root), str(ed.paths.spotcheck(BRIEF)))[0] == 0
    cell = _cell(ed)
    protocol = cell.judge_protocol
    assert protocol is not None and protocol.second_judge_checked == 3  # 20% of 15
    assert protocol.second_judge_agreement == 1.0
    assert protocol.second_judge_agreement_ci is not None and protocol.missing == []
    assert cell.qualifying


def test_spotcheck_refuses_a_missing_private_folder_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ed = _edition(tmp_path, monkeypatch)
    elsewhere = tmp_path / "other-private"
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(elsewhere))
    code, out = _invoke("spotcheck", "sample", str(ed.root))
    assert code == 2
    assert str(elsewhere / ed.root.name) in out and "LEDGERRATE_PRIVATE_DIR" in out
    assert not (elsewhere / ed.root.name / SECRET_FILE).exists()
    assert not ed.paths.spotcheck(BRIEF).exists()

    monkeypatch.delenv("LEDGERRATE_PRIVATE_DIR")
    code, out = _invoke("spotcheck", "sample", str(ed.root))
    default = ed.root.parent.parent / "private" / ed.root.name
    assert code == 2 and str(default) in out and "is not set" in out
    assert not (default / SECRET_FILE).exists()


def test_spotcheck_refuses_a_different_private_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, private_dir: Path
) -> None:
    ed = _edition(tmp_path, monkeypatch)
    assert _invoke("spotcheck", "sample", str(ed.root))[0] == 0
    form = ed.paths.spotcheck(BRIEF)
    _fill(form, "yes")
    # Another copy of the folder whose secret is not this edition's.
    other = tmp_path / "stale"
    (other / ed.root.name).mkdir(parents=True)
    (other / ed.root.name / SECRET_FILE).write_text("ab" * 32 + "\n", encoding="utf-8")
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(other))
    before = ed.paths.grades(BRIEF, "alpha", "single-shot").read_bytes()
    code, out = _invoke("spotcheck", "import", str(ed.root), str(form))
    assert code == 2 and str(other / ed.root.name) in out and "not this edition's" in out
    assert ed.paths.grades(BRIEF, "alpha", "single-shot").read_bytes() == before


def test_an_id_pasted_from_the_form_is_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ed = _edition(tmp_path, monkeypatch)
    assert _invoke("spotcheck", "sample", str(ed.root))[0] == 0
    form = ed.paths.spotcheck(BRIEF)
    rows = list(csv.DictReader(io.StringIO(form.read_text(encoding="utf-8"))))
    pasted = io.StringIO()
    writer = csv.DictWriter(pasted, fieldnames=["anon_id", "workload", "human_pass"])
    writer.writeheader()
    for row in rows:
        # As copied from a spreadsheet: quoted, padded, in capitals.
        writer.writerow(
            {"anon_id": f' "{row["anon_id"].upper()}" ', "workload": BRIEF, "human_pass": "yes"}
        )
    returned = tmp_path / "returned.csv"
    returned.write_text(pasted.getvalue(), encoding="utf-8")
    code, out = _invoke("spotcheck", "import", str(ed.root), str(returned))
    assert code == 0, out
    assert "0/3 judge–human disagreements" in out


def test_register_warns_of_a_same_family_judge_without_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledgerrate.core.io import read_yaml, write_yaml
    from ledgerrate.generate.register import judge_warnings

    warned = make_edition(tmp_path / "a", judge_family="acmeai", second=False, evaluated=ONE)
    (line,) = judge_warnings(warned.root, lookup=lookup)
    assert "judge.second_model" in line and "alpha" in line and "§5.4" in line
    named = make_edition(tmp_path / "b", judge_family="acmeai", second=True, evaluated=ONE)
    assert judge_warnings(named.root, lookup=lookup) == []
    other = make_edition(tmp_path / "c", judge_family="neutral", second=False, evaluated=ONE)
    assert judge_warnings(other.root, lookup=lookup) == []

    # The command prints it after sealing the registration.
    fresh = tmp_path / "d" / warned.root.name
    fresh.mkdir(parents=True)
    for name in ("edition.yaml", "pricing.yaml"):
        write_yaml(fresh / name, read_yaml(warned.root / name))
    code, out = _invoke("register", str(fresh))  # the test set-up gives escrow recipients
    assert code == 0, out
    assert "warning:" in out and "judge.second_model" in out


def test_judge_rides_out_429_and_5xx_with_the_runners_retry_and_shows_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ledgerrate.run.limits import RetryPolicy
    from ledgerrate.testing.fake_shapes import FakeReply

    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    judge_ok = scoring_responder()
    seen: dict[str, int] = {}

    def flaky(family: str, body: dict) -> FakeReply:  # type: ignore[type-arg]
        # Each submission is refused twice (a 429, then a 503) before the judge answers.
        key = str(body.get("messages"))
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 1:
            return FakeReply(status=429, error_message="slow down")
        if seen[key] == 2:
            return FakeReply(status=503, error_message="overloaded")
        return judge_ok(family, body)

    with FakeProviderServer(responder=flaky) as fake:
        ed = make_edition(
            tmp_path, fake.base_url("openai"), judge_family="neutral", n=15, evaluated=ONE,
            workloads=(BRIEF,),
        )  # fmt: skip
        for item in ed.dataset(BRIEF).items:
            ed.add_run(BRIEF, "alpha", "single-shot", item.id, brief.reference_answer(item))
        capsys.readouterr()
        summary = grade_edition(
            ed.root,
            lookup=lookup,
            retry=RetryPolicy(base_s=0.01, cap_s=0.05),
            show_progress=True,
        )
    assert summary.pending_judge == 0 and summary.passed == 15
    assert summary.judge_failures == 0 and summary.judge_retries == 30
    # The run's display: judged runs done of all, with the grading spend so far.
    shown = capsys.readouterr().err
    assert "15/15" in shown and "$" in shown


def test_judge_left_pending_after_retries_is_judged_on_the_next_grade(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledgerrate.run.limits import RetryPolicy
    from ledgerrate.testing.fake_shapes import FakeReply

    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    down = {"on": True}
    judge_ok = scoring_responder()

    def outage(family: str, body: dict) -> FakeReply:  # type: ignore[type-arg]
        return FakeReply(status=500, error_message="down") if down["on"] else judge_ok(family, body)

    with FakeProviderServer(responder=outage) as fake:
        ed = make_edition(
            tmp_path, fake.base_url("openai"), judge_family="neutral", n=5, evaluated=ONE,
            workloads=(BRIEF,),
        )  # fmt: skip
        for item in ed.dataset(BRIEF).items:
            ed.add_run(BRIEF, "alpha", "single-shot", item.id, brief.reference_answer(item))
        quick = RetryPolicy(max_attempts=2, base_s=0.01, cap_s=0.02)
        first = grade_edition(ed.root, lookup=lookup, retry=quick)
        assert first.pending_judge == 5 and first.judge_failures == 5
        down["on"] = False
        second = grade_edition(ed.root, lookup=lookup, retry=quick)
    assert second.passed == 5 and second.pending_judge == 0
