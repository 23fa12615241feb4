"""`ledgerrate grade`: grade every counted run of every sitting, then the blinded judge.

Rules this stage keeps:
- Every completed run and every model failure gets a grade record, so metrics see every
  counted run graded. A model failure is a fail without grading: its record has one check,
  `run_completed` = false, naming why. Infra-excluded attempts are not counted and not graded.
- Deterministic checks run first; a deterministic fail is final and the judge is not called.
- A judged run is `pending_judge` until the judge has graded it, never `pass`. Without a judge
  configured, or without its API key in the environment, judged runs stay pending.
- A run that already has a pass or fail grade is skipped unless `regrade`, which appends a new
  revision and keeps the earlier one. A pending run is graded again once a judge is available.
- Reproductions are graded too, into `reproductions/grades/…` so they can never be mistaken for
  (or pooled with) registered runs.
- Judge calls go out in a seeded shuffled order under opaque ids, so neither the order nor the
  ids say which model wrote what.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import hmac
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import httpx
from rich.console import Console

from ledgerrate.edition import WorkloadLookup, load_edition, require_current_registration
from ledgerrate.errors import UsageProblem
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.grade.anonymise import anon_id, identity_terms, strip_tells
from ledgerrate.grade.judge import (
    JudgeFailed,
    JudgeHooks,
    JudgeUnavailable,
    api_key,
    hooks_for,
    judge_family_overlap,
    judge_one,
    judge_spec,
    sensitivity_sample,
)
from ledgerrate.grade.private import grading_secret
from ledgerrate.io import append_jsonl, iter_jsonl, read_jsonl
from ledgerrate.layout import EditionPaths
from ledgerrate.providers import make_provider
from ledgerrate.providers.base import Completion, CompletionRequest, InfraError, Provider
from ledgerrate.run.limits import Limits, RetryPolicy, call_limited, with_retries
from ledgerrate.run.progress import CellProgress
from ledgerrate.schema import (
    Check,
    EditionManifest,
    GradeRecord,
    JudgeBlock,
    Outcome,
    PricingTable,
    RunRecord,
    RunStatus,
)
from ledgerrate.steps import Steps
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, Workload


@dataclass
class GradeSummary:
    """What one `grade` pass did (the CLI prints it; tests assert on it)."""

    written: int = 0
    skipped: int = 0
    passed: int = 0
    failed: int = 0
    pending_judge: int = 0
    judge_calls: int = 0
    judge_failures: int = 0
    judge_retries: int = 0  # infra failures (429, 5xx, timeouts) re-sent with backoff
    second_opinions: int = 0
    judge_cost_usd: Decimal = Decimal(0)
    judge: str | None = None
    judge_unavailable: str | None = None
    family_overlap: list[str] = field(default_factory=list)


@dataclass
class _Job:
    run: RunRecord
    workload: Workload
    hooks: JudgeHooks
    item: Item
    grade: Grade
    anon: str
    text: str
    revision: int
    out: Path
    block: JudgeBlock | None = None
    error: str | None = None


def reproduction_grades(paths: EditionPaths, workload: str, model: str, mode: str) -> Path:
    return paths.root / "reproductions" / "grades" / workload / model / f"{mode}.jsonl"


def latest_grades(path: Path) -> dict[str, GradeRecord]:
    """The latest revision of each run's grade in a grade log."""
    latest: dict[str, GradeRecord] = {}
    for record in iter_jsonl(path, GradeRecord):
        held = latest.get(record.run_id)
        if held is None or record.revision >= held.revision:
            latest[record.run_id] = record
    return latest


def _record(
    run: RunRecord,
    workload: Workload,
    revision: int,
    outcome: Outcome,
    checks: list[Check],
    diagnostics: dict[str, float | int | str | bool],
    judge: JudgeBlock | None = None,
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
        grader_hash=workload.grader_hash,
    )


def _seed(secret: bytes, purpose: str) -> int:
    return int.from_bytes(hmac.new(secret, purpose.encode(), hashlib.sha256).digest()[:8], "big")


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
    jobs: list[_Job] = []
    selected = [e for e in manifest.workloads if not only or e.id in only]
    cells = sum(len(manifest.models) * len(lookup(e.id).modes) for e in selected)
    with Steps("grade", cells) as steps:
        for entry in manifest.workloads:
            if only and entry.id not in only:
                continue
            workload = lookup(entry.id)
            for spec_model in manifest.models:
                for mode in workload.modes:
                    steps.step(f"{entry.id} · {spec_model.id} · {mode}")
                    logs = (
                        (
                            paths.runs(entry.id, spec_model.id, mode),
                            paths.grades(entry.id, spec_model.id, mode),
                        ),
                        (
                            paths.reproductions(entry.id, spec_model.id, mode),
                            reproduction_grades(paths, entry.id, spec_model.id, mode),
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
                        )

    if jobs and judge_ok:
        _run_judges(
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
) -> list[_Job]:
    runs = read_jsonl(runs_path, RunRecord)
    if not runs:
        return []
    latest = latest_grades(out)
    jobs: list[_Job] = []
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
        if not grade.deterministic_pass:
            _write(
                summary, out, _record(run, workload, revision, Outcome.failed, checks, diagnostics)
            )
        elif not (workload.judged and grade.needs_judge):
            _write(
                summary, out, _record(run, workload, revision, Outcome.passed, checks, diagnostics)
            )
        elif not judge_ok:
            pending = _record(run, workload, revision, Outcome.pending_judge, checks, diagnostics)
            _write(summary, out, pending)
        else:
            jobs.append(
                _Job(
                    run=run,
                    workload=workload,
                    hooks=hooks_for(workload),
                    item=item,
                    grade=grade,
                    anon=anon_id(secret, run.run_id),
                    text=strip_tells(grade.judge_input or "", terms),
                    revision=revision,
                    out=out,
                )
            )
    return jobs


def _sensitivity_sample(
    jobs: list[_Job], overlap: list[str], share: float, secret: bytes
) -> set[str]:
    """The runs a second judge also grades: the seeded share of each at-risk cell's judged runs
    (a cell of a model from the judge's family), so every such cell has its own check."""
    cells: dict[tuple[str, str, str], list[str]] = {}
    for job in jobs:
        if job.run.model in overlap:
            key = (job.run.workload, job.run.model, str(job.run.mode))
            cells.setdefault(key, []).append(job.anon)
    chosen: set[str] = set()
    for key, anons in sorted(cells.items()):
        chosen |= sensitivity_sample(anons, share, _seed(secret, "sensitivity/" + "/".join(key)))
    return chosen


def _run_judges(
    summary: GradeSummary,
    manifest: EditionManifest,
    pricing: PricingTable,
    jobs: list[_Job],
    secret: bytes,
    client: httpx.AsyncClient | None,
    retry: RetryPolicy,
    show_progress: bool | None,
) -> None:
    assert manifest.judge is not None
    # The judge sees runs in an order that carries no information about their source.
    random.Random(_seed(secret, "judge-order")).shuffle(jobs)
    second = None
    sample: set[str] = set()
    if summary.family_overlap and manifest.judge.second_model:
        try:
            spec2 = judge_spec(manifest, second=True)
            assert spec2 is not None
            second = (spec2, api_key(spec2))
            sample = _sensitivity_sample(
                jobs, summary.family_overlap, manifest.judge.sensitivity_share, secret
            )
        except JudgeUnavailable as exc:
            summary.judge_unavailable = f"second judge: {exc}"
    spec1 = manifest.model(manifest.judge.model)
    rng = random.Random()

    async def main(http: httpx.AsyncClient, progress: CellProgress) -> None:
        # The runner's caps: a global one (the judge's concurrency) and one adaptive cap per
        # endpoint that a 429 lowers; the runner's retry policy for 429s, 5xx and timeouts.
        limits = Limits(spec1.concurrency, retry.recover_after)

        def guarded(provider: Provider) -> Callable[[CompletionRequest], Awaitable[Completion]]:
            spec = provider.spec
            limit = limits.provider(f"{spec.provider.value} {spec.base_url}", spec.concurrency)

            def note(exc: InfraError) -> None:
                summary.judge_retries += 1

            async def complete(request: CompletionRequest) -> Completion:
                return await with_retries(
                    retry,
                    rng,
                    lambda: call_limited(limits, limit, lambda: provider.complete(request)),
                    note,
                )

            return complete

        provider = make_provider(spec1, http, api_key(spec1))
        provider2 = make_provider(second[0], http, second[1]) if second is not None else None

        async def one(job: _Job) -> None:
            key = f"{job.run.workload}/{job.run.model}/{job.run.mode}"
            job.block, job.error = await _call(summary, provider, guarded(provider), pricing, job)
            if provider2 is not None and job.block is not None and job.anon in sample:
                other, _err = await _call(summary, provider2, guarded(provider2), pricing, job)
                if other is not None:
                    job.block = job.block.model_copy(update={"second_opinion": other})
                    summary.second_opinions += 1
            spent = job.block.cost.total_usd if job.block is not None else Decimal(0)
            if job.block is not None and job.block.second_opinion is not None:
                spent += job.block.second_opinion.cost.total_usd
            progress.spent(key, spent, "" if job.error is None else "judge call failed")
            progress.advance(key)

        await asyncio.gather(*(one(job) for job in jobs))

    async def runner(progress: CellProgress) -> None:
        if client is not None:
            await main(client, progress)
        else:
            async with httpx.AsyncClient() as http:
                await main(http, progress)

    console = Console(stderr=True)
    enabled = console.is_terminal if show_progress is None else show_progress
    with CellProgress(console, enabled=enabled) as progress:
        totals: dict[str, int] = {}
        for job in jobs:
            key = f"{job.run.workload}/{job.run.model}/{job.run.mode}"
            totals[key] = totals.get(key, 0) + 1
        for key, total in sorted(totals.items()):
            progress.add(key, f"judge {key}", total, 0)
        asyncio.run(runner(progress))


async def _call(
    summary: GradeSummary,
    provider: Provider,
    complete: Callable[[CompletionRequest], Awaitable[Completion]],
    pricing: PricingTable,
    job: _Job,
) -> tuple[JudgeBlock | None, str | None]:
    summary.judge_calls += 1
    try:
        block = await judge_one(
            provider,
            pricing,
            workload=job.workload,
            hooks=job.hooks,
            item=job.item,
            anon=job.anon,
            answer_text=job.text,
            complete=complete,
        )
    except JudgeFailed as exc:
        summary.judge_failures += 1
        if exc.block is not None:
            summary.judge_cost_usd += exc.block.cost.total_usd
        return exc.block, str(exc)
    summary.judge_cost_usd += block.cost.total_usd
    return block, None


def _finish(summary: GradeSummary, job: _Job) -> None:
    checks, diagnostics = list(job.grade.checks), dict(job.grade.diagnostics)
    block = job.block
    if block is None or block.passed is None:
        outcome = Outcome.pending_judge
    else:
        outcome = Outcome.passed if block.passed else Outcome.failed
    record = _record(job.run, job.workload, job.revision, outcome, checks, diagnostics, block)
    _write(summary, job.out, record)
