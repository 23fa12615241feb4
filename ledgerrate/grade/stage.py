"""`ledgerrate grade`: grade every counted run of every sitting, then the blinded judge.

Rules this stage keeps:
- Every completed run and every model failure gets a grade record, so metrics see every
  counted run graded. A model failure is a fail without grading: its record has one check,
  `run_completed` = false, naming why. Infra-excluded attempts are not counted and not graded.
- Deterministic checks run first; a deterministic fail is final and the judge is not called.
- A judged run is `pending-judge` until the judge has graded it, never `pass`. Without a judge
  configured, or without its API key in the environment, judged runs stay pending.
- A run that already has a pass or fail grade is skipped unless `regrade`, which appends a new
  revision and keeps the earlier one. A pending run is graded again once a judge is available.
- A regrade keeps a judged run's judge verdict, second opinion and human spot-check where what
  they judged is unchanged, and calls the judge only where it changed (grade/carry.py).
- Reproductions are graded too, into `reproductions/grades/…` so they can never be mistaken for
  (or pooled with) registered runs.
- Judge calls go out in a seeded shuffled order under opaque ids, so neither the order nor the
  ids say which model wrote what.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from pathlib import Path

import httpx

from ledgerrate.core.edition import WorkloadLookup, load_edition, require_current_registration
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import append_jsonl, read_jsonl
from ledgerrate.core.steps import Steps
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.grade.anonymise import anon_id, identity_terms, strip_tells
from ledgerrate.grade.carry import DETERMINISTIC, NO_JUDGE_NOW, Carried, Now, carry
from ledgerrate.grade.family import judge_family_overlap, judge_spec
from ledgerrate.grade.history import latest_grades
from ledgerrate.grade.judge import (
    JudgeUnavailable,
    api_key,
    hooks_for,
    judge_request,
    request_digest,
)
from ledgerrate.grade.judging import GradeSummary, JudgeJob, run_judges
from ledgerrate.grade.private import grading_secret
from ledgerrate.grade.regrade import apply_regrade
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.schema import (
    Check,
    GradeRecord,
    JudgeBlock,
    Outcome,
    RunRecord,
    RunStatus,
    SpotcheckBlock,
)
from ledgerrate.workloads.base import Answer, Dataset, Item, Workload


def _record(
    run: RunRecord,
    workload: Workload,
    revision: int,
    outcome: Outcome,
    checks: list[Check],
    diagnostics: dict[str, float | int | str | bool],
    judge: JudgeBlock | None = None,
    spotcheck: SpotcheckBlock | None = None,
) -> GradeRecord:
    return GradeRecord(
        run_id=run.run_id,
        edition=run.edition,
        sitting=run.sitting,
        workload=run.workload,
        model=run.model,
        mode=run.mode,
        item_id=run.item_id,
        revision=revision,
        graded_at=dt.datetime.now(dt.UTC),
        outcome=outcome,
        checks=checks,
        diagnostics=diagnostics,
        judge=judge,
        spotcheck=spotcheck,
        grader_hash=workload.grader_hash,
    )


def _write(summary: GradeSummary, path: Path, record: GradeRecord) -> None:
    append_jsonl(path, record)
    summary.written += 1
    if record.outcome == Outcome.passed:
        summary.passed += 1
    elif record.outcome == Outcome.failed:
        summary.failed += 1
    else:
        summary.pending_judge += 1


def grade_edition(
    edition_dir: Path,
    regrade: bool = False,
    *,
    client: httpx.AsyncClient | None = None,
    lookup: WorkloadLookup | None = None,
    only: list[str] | None = None,
    retry: RetryPolicy | None = None,
    show_progress: bool | None = None,
) -> GradeSummary:
    """Grade every counted, ungraded run of the edition (see the module docstring).

    `only` limits the pass to these workload ids: a corrected grader regrades its own
    workload's logs and leaves every other workload's grades as they are."""
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    edition = load_edition(Path(edition_dir))
    require_current_registration(edition, lookup)
    paths, manifest = edition.paths, edition.manifest
    summary = GradeSummary(family_overlap=judge_family_overlap(manifest))

    judge_ok = False
    try:
        spec = judge_spec(manifest)
        if spec is None:
            raise JudgeUnavailable("no judge configured in edition.yaml")
        api_key(spec)
        judge_ok = True
        summary.judge = spec.id
    except JudgeUnavailable as exc:
        summary.judge_unavailable = str(exc)

    secret = grading_secret(paths)
    terms = identity_terms(manifest)
    judges = (manifest.judge.model, manifest.judge.second_model) if manifest.judge else (None, None)
    datasets: dict[str, Dataset] = {}

    def item_of(workload_id: str, item_id: str) -> Item:
        # Regenerated (and checked against the registration) only when a run needs it.
        if workload_id not in datasets:
            datasets[workload_id] = dataset_for(paths.root, workload_id, lookup=lookup)
        return datasets[workload_id].item(item_id)

    unknown = sorted(set(only or ()) - {entry.id for entry in manifest.workloads})
    if unknown:
        raise UsageProblem(
            f"{paths.manifest}: workloads: {', '.join(unknown)} not in this edition; "
            "name workload ids from its edition.yaml"
        )
    jobs: list[JudgeJob] = []
    selected = [e for e in manifest.workloads if not only or e.id in only]

    def cells_of(entry_id: str) -> list[tuple[str, str]]:
        # The models' cells, then the manual arm's when an analyst's answers were imported:
        # graded by the same code, blind (ARCHITECTURE.md §12).
        modes = lookup(entry_id).modes
        models = [(spec.id, mode) for spec in manifest.models for mode in modes]
        return [*models, *paths.manual_cells(entry_id)]

    cells = sum(len(cells_of(e.id)) for e in selected)
    with Steps("grade", cells) as steps:
        for entry in manifest.workloads:
            if only and entry.id not in only:
                continue
            workload = lookup(entry.id)
            for model_id, mode in cells_of(entry.id):
                steps.step(f"{entry.id} · {model_id} · {mode}")
                logs = (
                    (
                        paths.runs(entry.id, model_id, mode),
                        paths.grades(entry.id, model_id, mode),
                    ),
                    (
                        paths.reproductions(entry.id, model_id, mode),
                        paths.reproduction_grades(entry.id, model_id, mode),
                    ),
                )
                for runs_path, out in logs:
                    jobs += _grade_log(
                        summary,
                        runs_path,
                        out,
                        workload,
                        item_of,
                        regrade,
                        judge_ok,
                        secret,
                        terms,
                        judges,
                    )

    if jobs and judge_ok:
        run_judges(
            summary,
            edition.manifest,
            edition.pricing,
            jobs,
            secret,
            client,
            retry or RetryPolicy(),
            show_progress,
        )
    for job in jobs:
        _finish(summary, job)
    # A fully regraded cell keeps the humans' outcomes (§5.3) over a re-judged verdict.
    now = dt.datetime.now(dt.UTC)
    for log in sorted({job.out for job in jobs if job.spotcheck is not None}):
        apply_regrade(log, now)
    return summary


def _grade_log(
    summary: GradeSummary,
    runs_path: Path,
    out: Path,
    workload: Workload,
    item_of: Callable[[str, str], Item],
    regrade: bool,
    judge_ok: bool,
    secret: bytes,
    terms: list[str],
    judges: tuple[str | None, str | None],
) -> list[JudgeJob]:
    runs = read_jsonl(runs_path, RunRecord)
    if not runs:
        return []
    latest = latest_grades(out)
    jobs: list[JudgeJob] = []
    for run in runs:
        if run.status == RunStatus.infra_excluded:
            continue
        prev = latest.get(run.run_id)
        if (
            prev is not None
            and not regrade
            and (prev.outcome != Outcome.pending_judge or not judge_ok)
        ):
            summary.skipped += 1
            continue
        revision = prev.revision + 1 if prev is not None else 1
        if run.status == RunStatus.model_failure:
            why = run.failure or "the run ended without an answer"
            checks = [Check(name="run_completed", passed=False, detail=why)]
            _write(summary, out, _record(run, workload, revision, Outcome.failed, checks, {}))
            continue
        item = item_of(workload.id, run.item_id)
        grade = workload.grade(item, Answer(run.answer or "", run.tool_state))
        checks, diagnostics = list(grade.checks), dict(grade.diagnostics)
        if prev is not None and prev.spotcheck is not None and not grade.deterministic_pass:
            # A deterministic fail is final (§5.2): no judge, and the human's verdict was on a
            # run that passed the checks then.
            summary.note_carry(Carried(None, None, None, DETERMINISTIC))
        if not grade.deterministic_pass:
            _write(
                summary, out, _record(run, workload, revision, Outcome.failed, checks, diagnostics)
            )
        elif not (workload.judged and grade.needs_judge):
            _write(
                summary, out, _record(run, workload, revision, Outcome.passed, checks, diagnostics)
            )
        elif not judge_ok and (prev is None or prev.judge is None):
            pending = _record(run, workload, revision, Outcome.pending_judge, checks, diagnostics)
            _write(summary, out, pending)
        else:
            hooks = hooks_for(workload)
            anon = anon_id(secret, run.run_id)
            text = strip_tells(grade.judge_input or "", terms)
            digest = request_digest(judge_request(workload, hooks, item, anon, text))
            kept = carry(
                prev,
                Now(checks, digest, workload.rubric_hash or "", *judges, workload.grader_hash),
            )
            if kept.judge is None and not judge_ok and kept.spotcheck is not None:
                # Pending until a judge can be called; a pending grade holds no human verdict.
                kept = dataclasses.replace(kept, spotcheck=None, human_reason=NO_JUDGE_NOW)
            summary.note_carry(kept)
            if kept.judge is None and not judge_ok:
                pending = _record(
                    run, workload, revision, Outcome.pending_judge, checks, diagnostics
                )
                _write(summary, out, pending)
                continue
            jobs.append(
                JudgeJob(
                    run=run,
                    workload=workload,
                    hooks=hooks,
                    item=item,
                    grade=grade,
                    anon=anon,
                    text=text,
                    revision=revision,
                    out=out,
                    block=kept.judge,
                    spotcheck=kept.spotcheck,
                    carried_outcome=prev.outcome if kept.judge is not None and prev else None,
                )
            )
    return jobs


def _finish(summary: GradeSummary, job: JudgeJob) -> None:
    checks, diagnostics = list(job.grade.checks), dict(job.grade.diagnostics)
    block = job.block
    if block is None or block.passed is None:
        outcome = Outcome.pending_judge
    elif job.carried_outcome is not None and job.spotcheck is not None:
        # Carried verdicts, carried outcome: a fully regraded cell's is the human's (§5.3).
        outcome = job.carried_outcome
    else:
        outcome = Outcome.passed if block.passed else Outcome.failed
    record = _record(
        job.run, job.workload, job.revision, outcome, checks, diagnostics, block, job.spotcheck
    )
    _write(summary, job.out, record)
