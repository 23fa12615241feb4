"""Calling the judge for the runs the grade stage hands over (standard §5).

The judge is called like a model: under the runner's global and per-endpoint caps, with its
adaptive back-off on 429 and its retry policy for 429s, 5xx and timeouts (run/limits.py), and
with the run's progress display. Calls go out in a seeded shuffled order under opaque ids. A
call that still fails after the retries leaves its run pending; the next `grade` retries it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import httpx
from rich.console import Console

from ledgerrate.core.hashing import canonical_json
from ledgerrate.core.keys import MIN_KEY_LENGTH, redact
from ledgerrate.grade.carry import Carried
from ledgerrate.grade.family import judge_spec
from ledgerrate.grade.judge import (
    JudgeFailed,
    JudgeUnavailable,
    api_key,
    judge_one,
    sensitivity_sample,
)
from ledgerrate.providers import make_provider
from ledgerrate.providers.base import Completion, CompletionRequest, InfraError, Provider
from ledgerrate.run.limits import Limits, RetryPolicy, call_limited, with_retries
from ledgerrate.run.progress import CellProgress
from ledgerrate.schema import (
    EditionManifest,
    JudgeBlock,
    Outcome,
    PricingTable,
    RunRecord,
    SpotcheckBlock,
)
from ledgerrate.workloads.base import Grade, Item, JudgeHooks, Workload


def seed_for(secret: bytes, purpose: str) -> int:
    return int.from_bytes(hmac.new(secret, purpose.encode(), hashlib.sha256).digest()[:8], "big")


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
    # A regrade (grade/carry.py): verdicts kept because what they judged is unchanged, and,
    # per reason, the runs re-judged and the human verdicts dropped because it changed.
    judge_carried: int = 0
    humans_carried: int = 0
    rejudged: dict[str, int] = field(default_factory=dict)
    humans_dropped: dict[str, int] = field(default_factory=dict)

    def note_carry(self, kept: Carried) -> None:
        if kept.judge is not None:
            self.judge_carried += 1
        if kept.spotcheck is not None:
            self.humans_carried += 1
        if kept.judge_reason is not None:
            self.rejudged[kept.judge_reason] = self.rejudged.get(kept.judge_reason, 0) + 1
        if kept.human_reason is not None:
            reason = kept.human_reason
            self.humans_dropped[reason] = self.humans_dropped.get(reason, 0) + 1


def regrade_lines(summary: GradeSummary) -> list[str]:
    """What a regrade kept and what it judged again, and why (the CLI prints these)."""

    def reasons(counts: dict[str, int]) -> str:
        return "; ".join(f"{n} {why}" for why, n in sorted(counts.items()))

    lines = [
        f"regrade: {summary.judge_carried} judge verdict(s) and {summary.humans_carried} human "
        "verdict(s) carried forward (what they judged is unchanged)"
    ]
    rejudged = sum(summary.rejudged.values())
    if rejudged:
        lines.append(
            f"regrade: {rejudged} run(s) sent to the judge again: {reasons(summary.rejudged)}"
        )
    dropped = sum(summary.humans_dropped.values())
    if dropped:
        lines.append(
            f"regrade: {dropped} human verdict(s) not carried, on a submission that changed "
            f"({reasons(summary.humans_dropped)}); they stay in the log's earlier revisions; "
            "those cells need their spot-checks again (`ledgerrate spotcheck sample`)"
        )
    return lines


@dataclass
class JudgeJob:
    run: RunRecord
    workload: Workload
    hooks: JudgeHooks
    item: Item
    grade: Grade
    anon: str
    text: str
    revision: int
    out: Path
    block: JudgeBlock | None = None  # set before the calls when a regrade carries it forward
    error: str | None = None
    spotcheck: SpotcheckBlock | None = None  # a human verdict a regrade carries forward
    carried_outcome: Outcome | None = None  # the earlier outcome, when the verdicts are carried


def _sensitivity_sample(
    jobs: list[JudgeJob], overlap: list[str], share: float, secret: bytes
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
        chosen |= sensitivity_sample(anons, share, seed_for(secret, "sensitivity/" + "/".join(key)))
    return chosen


def run_judges(
    summary: GradeSummary,
    manifest: EditionManifest,
    pricing: PricingTable,
    jobs: list[JudgeJob],
    secret: bytes,
    client: httpx.AsyncClient | None,
    retry: RetryPolicy,
    show_progress: bool | None,
) -> None:
    assert manifest.judge is not None
    # The judge sees runs in an order that carries no information about their source.
    random.Random(seed_for(secret, "judge-order")).shuffle(jobs)
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

    def wants_second(job: JudgeJob) -> bool:
        return (
            second is not None
            and job.block is not None
            and job.block.second_opinion is None
            and job.anon in sample
        )

    # Carried-forward verdicts are not asked again; they still count in the sensitivity
    # sample's population, so a regrade draws the same sample as the first grade did.
    todo = [job for job in jobs if job.block is None or wants_second(job)]
    if not todo:
        return

    async def main(http: httpx.AsyncClient, progress: CellProgress) -> None:
        # The runner's caps: a global one (the judge's concurrency) and one adaptive cap per
        # endpoint that a 429 lowers; the runner's retry policy for 429s, 5xx and timeouts.
        limits = Limits(spec1.concurrency, retry.recover_after)

        def guarded(provider: Provider) -> Callable[[CompletionRequest], Awaitable[Completion]]:
            spec = provider.spec
            limit = limits.provider(f"{spec.provider} {spec.base_url}", spec.concurrency)

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

        key1 = api_key(spec1)
        provider = make_provider(spec1, http, key1)
        provider2 = make_provider(second[0], http, second[1]) if second is not None else None
        # A judge behind an echoing proxy can quote its key in the verdict it sends back.
        keys = [k for k in (key1, second[1] if second else "") if len(k) >= MIN_KEY_LENGTH]

        async def one(job: JudgeJob) -> None:
            key = f"{job.run.workload}/{job.run.model}/{job.run.mode}"
            if job.block is None:
                job.block, job.error = await _call(
                    summary, provider, guarded(provider), pricing, job
                )
            if provider2 is not None and wants_second(job):
                assert job.block is not None
                other, _err = await _call(summary, provider2, guarded(provider2), pricing, job)
                if other is not None:
                    job.block = job.block.model_copy(update={"second_opinion": other})
                    summary.second_opinions += 1
            if keys and job.block is not None:
                dumped = job.block.model_dump(mode="json")
                clean = redact(dumped, keys)
                if clean != dumped:
                    job.block = JudgeBlock.model_validate_json(canonical_json(clean))
            job.error = redact(job.error, keys) if job.error else job.error
            spent = job.block.cost.total_usd if job.block is not None else Decimal(0)
            if job.block is not None and job.block.second_opinion is not None:
                spent += job.block.second_opinion.cost.total_usd
            progress.spent(key, spent, "" if job.error is None else "judge call failed")
            progress.advance(key)

        await asyncio.gather(*(one(job) for job in todo))

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
        for job in todo:
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
    job: JudgeJob,
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
