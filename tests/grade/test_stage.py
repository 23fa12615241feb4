"""The grade stage: deterministic first, the blinded judge end to end, revisions, pending."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledgerrate.core.io import read_jsonl
from ledgerrate.grade.judge import agreement
from ledgerrate.grade.stage import grade_edition, latest_grades
from ledgerrate.schema import GradeRecord, Outcome
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.testing.fake_shapes import FakeReply
from ledgerrate.workloads.generate_variance_commentary import v1_revision2 as variance
from ledgerrate.workloads.synthesize_board_brief import v1_revision2 as brief
from tests.grade.gradekit import (
    BRIEF,
    JUDGE_KEY_ENV,
    VARIANCE,
    MiniEdition,
    lookup,
    make_edition,
    scoring_responder,
)


def grades(ed: MiniEdition, workload: str, model: str, mode: str) -> list[GradeRecord]:
    return read_jsonl(ed.paths.grades(workload, model, mode), GradeRecord)


def by_run(records: list[GradeRecord]) -> dict[str, GradeRecord]:
    return {r.run_id: r for r in records}


def fabricated(answer: str) -> str:
    data = json.loads(answer)
    data["commentary"] += " Headcount costs rose by $987,654."
    return json.dumps(data)


def test_without_a_judge_judged_runs_stay_pending(tmp_path: Path) -> None:
    ed = make_edition(tmp_path, judge=False)
    item = ed.dataset(VARIANCE).items[0]
    good = ed.add_run(VARIANCE, "alpha", "single-shot", item.id, variance.reference_answer(item))
    bad = ed.add_run(
        VARIANCE, "alpha", "single-shot", item.id, fabricated(variance.reference_answer(item))
    )
    failed = ed.add_run(
        VARIANCE, "alpha", "single-shot", item.id, None, status="model_failure", failure="refusal"
    )
    summary = grade_edition(ed.root, lookup=lookup)
    got = by_run(grades(ed, VARIANCE, "alpha", "single-shot"))
    assert got[good.run_id].outcome == Outcome.pending_judge
    assert got[good.run_id].judge is None
    assert got[bad.run_id].outcome == Outcome.failed
    assert not next(c for c in got[bad.run_id].checks if c.name == "figures_exist").passed
    assert got[failed.run_id].outcome == Outcome.failed
    assert [(c.name, c.passed) for c in got[failed.run_id].checks] == [("run_completed", False)]
    assert summary.pending_judge == 1 and summary.judge_calls == 0
    assert "no judge configured" in (summary.judge_unavailable or "")


def test_judge_without_key_leaves_runs_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(JUDGE_KEY_ENV, raising=False)
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = make_edition(tmp_path, fake.base_url("openai"))
        item = ed.dataset(BRIEF).items[0]
        run = ed.add_run(BRIEF, "beta", "agentic", item.id, brief.reference_answer(item))
        summary = grade_edition(ed.root, lookup=lookup)
        record = by_run(grades(ed, BRIEF, "beta", "agentic"))[run.run_id]
        assert record.outcome == Outcome.pending_judge
        assert JUDGE_KEY_ENV in (summary.judge_unavailable or "")
        assert fake.requests == []
        # Once the key is there the pending run is judged as a new revision; the old one stays.
        monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
        grade_edition(ed.root, lookup=lookup)
    records = [r for r in grades(ed, BRIEF, "beta", "agentic") if r.run_id == run.run_id]
    assert [(r.revision, r.outcome) for r in records] == [
        (1, Outcome.pending_judge),
        (2, Outcome.passed),
    ]


def test_judge_end_to_end_scores_and_costs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    with FakeProviderServer(responder=scoring_responder(clarity=5, cause=3)) as fake:
        ed = make_edition(tmp_path, fake.base_url("openai"), judge_family="neutral")
        items = ed.dataset(VARIANCE).items
        judged = ed.add_run(
            VARIANCE, "alpha", "single-shot", items[0].id, variance.reference_answer(items[0])
        )
        det_fail = ed.add_run(
            VARIANCE,
            "alpha",
            "single-shot",
            items[1].id,
            fabricated(variance.reference_answer(items[1])),
        )
        summary = grade_edition(ed.root, lookup=lookup)
        calls = len(fake.requests)
    got = by_run(grades(ed, VARIANCE, "alpha", "single-shot"))
    record = got[judged.run_id]
    assert record.outcome == Outcome.failed  # cause attribution 3 < 4
    assert record.judge is not None
    assert record.judge.scores == {"clarity": 5.0, "cause_attribution": 3.0}
    assert record.judge.rubric_hash == variance.WORKLOAD.rubric_hash
    assert record.judge.judge_model == "judge-one"
    assert record.judge.cost.model_usd > 0
    assert record.judge.anon_id.startswith("a-") and judged.run_id not in record.judge.anon_id
    # The deterministic fail never reached the judge (no spend on a decided run).
    assert got[det_fail.run_id].judge is None and got[det_fail.run_id].outcome == Outcome.failed
    assert calls == 1 == summary.judge_calls
    assert summary.judge_cost_usd == record.judge.cost.model_usd


@pytest.mark.parametrize(("present", "outcome"), [(17, Outcome.failed), (18, Outcome.passed)])
def test_board_brief_fact_threshold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, present: int, outcome: Outcome
) -> None:
    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    with FakeProviderServer(responder=scoring_responder(facts_present=present)) as fake:
        ed = make_edition(tmp_path, fake.base_url("openai"), n=1)
        item = ed.dataset(BRIEF).items[0]
        run = ed.add_run(BRIEF, "beta", "single-shot", item.id, brief.reference_answer(item))
        grade_edition(ed.root, lookup=lookup)
        (request,) = fake.requests
    record = by_run(grades(ed, BRIEF, "beta", "single-shot"))[run.run_id]
    assert record.outcome == outcome
    assert record.judge is not None and record.judge.score == present
    assert "F20:" in json.dumps(request.body)  # one call carried the whole checklist


def test_no_identity_reaches_the_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = make_edition(tmp_path, fake.base_url("openai"))
        v_items = ed.dataset(VARIANCE).items
        b_items = ed.dataset(BRIEF).items
        runs = []
        for model, mode in (("alpha", "single-shot"), ("beta", "agentic")):
            for item in v_items[:2]:
                data = json.loads(variance.reference_answer(item))
                data["commentary"] = (
                    f"As an AI language model made by ZenithLabs (model {model}), in {mode} mode: "
                    + data["commentary"]
                )
                text = (
                    f"<thinking>I am acme-large-2 from AcmeAI running {mode}</thinking>\n"
                    f"```json\n{json.dumps(data)}\n```"
                )
                runs.append(ed.add_run(VARIANCE, model, mode, item.id, text))
            for item in b_items[:2]:
                text = (
                    "<think>zenith-pro-7 here, anthropic build</think>\n"
                    "As an AI assistant, I have written the brief.\n"
                    f"```\n{brief.reference_answer(item)}\nPrepared by {model} ({mode}).\n```"
                )
                runs.append(ed.add_run(BRIEF, model, mode, item.id, text))
        summary = grade_edition(ed.root, lookup=lookup)
        bodies = [json.dumps(r.body).lower() for r in fake.requests]
    assert summary.judge_calls >= len(runs) and summary.passed == len(runs)
    forbidden = [
        "alpha",
        "beta",
        "acme-large-2",
        "zenith-pro-7",
        "acmeai",
        "zenithlabs",
        "anthropic",
        "openai",
        "single-shot",
        "single shot",
        "agentic",
        "<think",
        "as an ai",
        "```",
    ]
    forbidden += [run.run_id for run in runs]
    for body in bodies:
        for word in forbidden:
            assert word not in body, word


def test_no_regrade_without_flag_and_both_revisions_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = make_edition(tmp_path, fake.base_url("openai"), n=2)
        item = ed.dataset(VARIANCE).items[0]
        run = ed.add_run(VARIANCE, "beta", "agentic", item.id, variance.reference_answer(item))
        grade_edition(ed.root, lookup=lookup)
        again = grade_edition(ed.root, lookup=lookup)
        assert again.written == 0 and again.skipped == 1 and again.judge_calls == 0
        grade_edition(ed.root, regrade=True, lookup=lookup)
    records = grades(ed, VARIANCE, "beta", "agentic")
    assert [(r.run_id, r.revision) for r in records] == [(run.run_id, 1), (run.run_id, 2)]
    assert all(r.outcome == Outcome.passed for r in records)
    assert latest_grades(ed.paths.grades(VARIANCE, "beta", "agentic"))[run.run_id].revision == 2


def test_reproductions_and_infra_exclusions(tmp_path: Path) -> None:
    ed = make_edition(tmp_path, judge=False, n=1)
    item = ed.dataset(VARIANCE).items[0]
    repro = ed.add_run(VARIANCE, "alpha", "agentic", item.id, "no json here", kind="reproduction")
    ed.add_run(VARIANCE, "alpha", "agentic", item.id, None, status="infra_excluded")
    grade_edition(ed.root, lookup=lookup)
    assert grades(ed, VARIANCE, "alpha", "agentic") == []  # infra exclusions are not graded
    (record,) = read_jsonl(ed.paths.reproduction_grades(VARIANCE, "alpha", "agentic"), GradeRecord)
    assert record.run_id == repro.run_id and record.outcome == Outcome.failed


def test_judge_family_overlap_gets_a_second_opinion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = make_edition(tmp_path, fake.base_url("openai"))
        for item in ed.dataset(VARIANCE).items:
            ed.add_run(VARIANCE, "alpha", "single-shot", item.id, variance.reference_answer(item))
        summary = grade_edition(ed.root, lookup=lookup)
        models = sorted(r.body["model"] for r in fake.requests)
    assert summary.family_overlap == ["alpha"]
    # 20% of 5 judged runs, rounded up: one run also goes to the second judge.
    assert summary.second_opinions == 1
    assert models == ["grader-alt"] + ["grader-xl"] * 5
    blocks = [r.judge for r in grades(ed, VARIANCE, "alpha", "single-shot") if r.judge]
    seconds = [b for b in blocks if b.second_opinion is not None]
    assert len(seconds) == 1 and seconds[0].second_opinion.judge_model == "judge-two"
    assert agreement(blocks) == 1.0


def test_no_overlap_no_second_opinion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = make_edition(tmp_path, fake.base_url("openai"), judge_family="neutral", n=2)
        item = ed.dataset(VARIANCE).items[0]
        ed.add_run(VARIANCE, "alpha", "single-shot", item.id, variance.reference_answer(item))
        summary = grade_edition(ed.root, lookup=lookup)
    assert summary.family_overlap == [] and summary.second_opinions == 0


def test_unusable_judge_reply_stays_pending_with_its_spend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledgerrate.testing.fake_shapes import FakeReply

    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    with FakeProviderServer(responder=lambda family, body: FakeReply(text="Looks fine!")) as fake:
        ed = make_edition(tmp_path, fake.base_url("openai"), judge_family="neutral", n=1)
        item = ed.dataset(VARIANCE).items[0]
        run = ed.add_run(VARIANCE, "beta", "agentic", item.id, variance.reference_answer(item))
        summary = grade_edition(ed.root, lookup=lookup)
        (first,) = grades(ed, VARIANCE, "beta", "agentic")
        assert first.outcome == Outcome.pending_judge and summary.judge_failures == 1
        assert first.judge is not None and first.judge.passed is None
        assert first.judge.cost.model_usd > 0  # what the failed call cost is still recorded
        # A pending run is retried on the next pass, as a new revision.
        fake.responder = scoring_responder()
        grade_edition(ed.root, lookup=lookup)
    records = grades(ed, VARIANCE, "beta", "agentic")
    assert [(r.run_id, r.revision, r.outcome) for r in records] == [
        (run.run_id, 1, Outcome.pending_judge),
        (run.run_id, 2, Outcome.passed),
    ]


def test_a_judge_key_quoted_back_in_a_verdict_never_reaches_the_grades(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A judge behind a proxy that echoes the caller's headers: its key comes back in the
    # verdict's own text. The grade is still recorded, with the key replaced.
    key = "sk-judge-echo-" + "j" * 24
    monkeypatch.setenv(JUDGE_KEY_ENV, key)

    def echoing(family: str, body: dict) -> FakeReply:
        verdict = {"clarity": 5, "cause_attribution": 5, "rationale": f"you sent Bearer {key}"}
        return FakeReply(text=json.dumps(verdict))

    with FakeProviderServer(responder=echoing, echoes_headers=True) as fake:
        ed = make_edition(tmp_path, fake.base_url("openai"), judge_family="neutral")
        item = ed.dataset(VARIANCE).items[0]
        run = ed.add_run(VARIANCE, "alpha", "single-shot", item.id, variance.reference_answer(item))
        grade_edition(ed.root, lookup=lookup)
    path = ed.paths.grades(VARIANCE, "alpha", "single-shot")
    assert key not in path.read_text()
    record = by_run(grades(ed, VARIANCE, "alpha", "single-shot"))[run.run_id]
    assert record.judge is not None and record.judge.rationale == "you sent Bearer [redacted]"
    assert record.outcome == Outcome.passed
