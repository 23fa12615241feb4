"""`ledgerrate run`: every cell of a registered edition, concurrently, resumably, never graded.

The run refuses to start on anything it could not publish honestly: an unregistered edition or
one whose code drifted from its registration, a model without a price, a missing API key, a
dataset whose hash differs from the registered one, or a clock outside the edition window
(unless explicitly allowed, and then every record says so). Everything is checked before the
first call. Then items run under a global cap and per-provider adaptive caps; each attempt is
appended to its cell's log as soon as it ends.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console

from ledgerrate.edition import (
    Edition,
    WorkloadLookup,
    load_edition,
    pricing_problems,
    registration_mismatches,
    require_current_registration,
)
from ledgerrate.errors import UsageProblem
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.providers.base import (
    Completion,
    CompletionRequest,
    InfraError,
    Provider,
    ProviderFactory,
    RateLimited,
)
from ledgerrate.providers.baseline import baseline_record
from ledgerrate.run import agent, rawlog
from ledgerrate.run.limits import Limits, RetryPolicy
from ledgerrate.run.progress import CellProgress, CellSummary, RunSummary
from ledgerrate.schema import (
    Cost,
    Mode,
    ModelSpec,
    ProviderFamily,
    RunRecord,
    RunStatus,
    Usage,
)
from ledgerrate.workloads.base import Dataset, Item, Workload


@dataclass
class RunOptions:
    workloads: list[str] | None = None
    models: list[str] | None = None
    modes: list[str] | None = None
    concurrency: int = 8
    allow_outside_window: bool = False
    new_sitting: bool = False


@dataclass
class _Cell:
    workload: Workload
    spec: ModelSpec
    mode: Mode
    dataset: Dataset
    dataset_hash: str
    path: Path
    plan: rawlog.SittingPlan
    summary: CellSummary

    @property
    def key(self) -> str:
        return f"{self.workload.id}/{self.spec.id}/{self.mode.value}"


class _StopRun(Exception):
    """Ends the whole run: a configuration the provider refuses, or the window closing."""


def baseline_mode(workload: Workload) -> Mode:
    """A reference solver does not change with the mode: it runs once, single-shot if allowed."""
    return Mode.single_shot if Mode.single_shot.value in workload.modes else Mode(workload.modes[0])


def _select(chosen: list[str] | None, known: list[str], what: str) -> list[str]:
    if not chosen:
        return known
    unknown = [c for c in chosen if c not in known]
    if unknown:
        raise UsageProblem(
            *(f"unknown {what} {u!r}; this edition has: {', '.join(known)}" for u in unknown)
        )
    return [k for k in known if k in chosen]


def _api_keys(models: list[ModelSpec]) -> dict[str, str]:
    keys, problems = {}, []
    for spec in models:
        if spec.provider == ProviderFamily.baseline:
            continue
        assert spec.api_key_env is not None
        value = os.environ.get(spec.api_key_env, "")
        if not value.strip():
            problems.append(
                f"model {spec.id!r}: environment variable {spec.api_key_env} is not set "
                "(it must hold the API key)"
            )
        keys[spec.id] = value
    if problems:
        raise UsageProblem(*problems)
    return keys


def _window(edition: Edition, now: dt.datetime, allow: bool) -> bool:
    window = edition.manifest.window
    outside = not (window.opens <= now <= window.closes)
    if outside and not allow:
        raise UsageProblem(
            f"edition {edition.manifest.id!r}: now ({now.isoformat(timespec='seconds')}) is "
            f"outside its window {window.opens.isoformat()} – {window.closes.isoformat()}; "
            "pass --allow-outside-window to run anyway (every record is then flagged)"
        )
    return outside


def _plan_cells(
    edition: Edition,
    options: RunOptions,
    lookup: WorkloadLookup,
) -> list[_Cell]:
    manifest = edition.manifest
    registration = require_current_registration(edition, lookup)
    workload_ids = _select(options.workloads, [w.id for w in manifest.workloads], "workload")
    model_ids = _select(options.models, [m.id for m in manifest.models], "model")
    modes = [Mode(m) for m in _select(options.modes, [m.value for m in Mode], "mode")]
    cells = []
    for wid in workload_ids:
        workload = lookup(wid)
        dataset = dataset_for(edition.paths.root, wid, lookup=lookup)
        for mid in model_ids:
            spec = manifest.model(mid)
            for mode in modes:
                if mode.value not in workload.modes:
                    continue
                if spec.provider == ProviderFamily.baseline and (
                    workload.baseline is None or mode != baseline_mode(workload)
                ):
                    continue
                path = edition.paths.runs(wid, mid, mode.value)
                records = rawlog.read_cell(path)
                plan = rawlog.plan_sitting(
                    records, [i.id for i in dataset.items], new_sitting=options.new_sitting
                )
                spent = sum(
                    (r.cost.total_usd for r in records if r.sitting == plan.sitting), Decimal(0)
                )
                summary = CellSummary(
                    wid,
                    mid,
                    mode.value,
                    plan.sitting,
                    len(dataset.items),
                    plan.finished,
                    spend_usd=spent,
                    already_complete=plan.complete_already,
                )
                cells.append(
                    _Cell(
                        workload,
                        spec,
                        mode,
                        dataset,
                        registration.workloads[wid].dataset_hash,
                        path,
                        plan,
                        summary,
                    )
                )
    return cells


def run_edition(
    edition_dir: Path,
    options: RunOptions,
    *,
    lookup: WorkloadLookup | None = None,
    provider_factory: ProviderFactory | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    retry: RetryPolicy | None = None,
    now: Callable[[], dt.datetime] | None = None,
    console: Console | None = None,
    show_progress: bool = True,
) -> RunSummary:
    """Run (or resume) every selected cell of a registered edition; never grades."""
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    clock = now or (lambda: dt.datetime.now(dt.UTC))
    console = console or Console(stderr=True, highlight=False)
    edition = load_edition(edition_dir)
    problems = pricing_problems(edition) + registration_mismatches(edition, lookup)
    if problems:
        raise UsageProblem(*problems)
    outside = _window(edition, clock(), options.allow_outside_window)
    selected = _select(options.models, [m.id for m in edition.manifest.models], "model")
    keys = _api_keys([edition.manifest.model(m) for m in selected])
    cells = _plan_cells(edition, options, lookup)
    runner = _Runner(
        edition=edition,
        options=options,
        keys=keys,
        factory=provider_factory,
        retry=retry or RetryPolicy(),
        clock=clock,
        outside=outside,
    )
    with CellProgress(console, enabled=show_progress) as progress:
        for cell in cells:
            if not cell.plan.complete_already:
                summary = cell.summary
                progress.add(cell.key, cell.key, summary.items, summary.finished, summary.spend_usd)
        try:
            asyncio.run(runner.run([c for c in cells if c.plan.todo], progress, transport))
        except* _StopRun as group:
            message = str(group.exceptions[0])
            raise UsageProblem(rawlog.redact(message, list(keys.values()))) from None
    summary = RunSummary(edition.manifest.id, outside, [c.summary for c in cells])
    for line in summary.lines():
        console.print(line, markup=False)
    return summary


class _Runner:
    def __init__(
        self,
        *,
        edition: Edition,
        options: RunOptions,
        keys: dict[str, str],
        factory: ProviderFactory | None,
        retry: RetryPolicy,
        clock: Callable[[], dt.datetime],
        outside: bool,
    ) -> None:
        self.edition = edition
        self.options = options
        self.keys = keys
        self.secrets = [k for k in keys.values() if k]
        self.factory = factory
        self.retry = retry
        self.clock = clock
        self.outside = outside
        self.rng = random.Random()
        self.completes: dict[str, agent.Complete] = {}
        self.bodies: dict[str, agent.BodyFn | None] = {}

    async def run(
        self, cells: list[_Cell], progress: CellProgress, transport: httpx.AsyncBaseTransport | None
    ) -> None:
        if not cells:
            return
        concurrency = max(1, self.options.concurrency)
        self.limits = Limits(concurrency, self.retry.recover_after)
        # Bounds how many items hold a sandbox at once; requests are bounded by `limits`.
        self.active = asyncio.Semaphore(concurrency * 2)
        self.progress = progress
        # A pool no larger than the requests in flight: httpcore scans every pooled connection
        # on each request, so idle extras cost CPU for nothing.
        pool = httpx.Limits(max_connections=concurrency + 4, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(transport=transport, limits=pool) as client:
            factory = self.factory
            if factory is None:
                from ledgerrate.providers import make_provider

                factory = make_provider
            for cell in cells:
                spec = cell.spec
                if spec.provider != ProviderFamily.baseline and spec.id not in self.completes:
                    provider = factory(spec, client, self.keys[spec.id])
                    self.completes[spec.id] = self._limited(spec, provider)
                    self.bodies[spec.id] = getattr(provider, "request_body", None)
            async with asyncio.TaskGroup() as group:
                for cell in cells:
                    for item_id, attempt in cell.plan.todo.items():
                        group.create_task(self.item(cell, cell.dataset.item(item_id), attempt))

    def _limited(self, spec: ModelSpec, provider: Provider) -> agent.Complete:
        """provider.complete under the global and the endpoint's adaptive cap."""
        limit = self.limits.provider(f"{spec.provider.value} {spec.base_url}", spec.concurrency)

        async def complete(request: CompletionRequest) -> Completion:
            async with self.limits.request(limit) as epoch:
                try:
                    result = await provider.complete(request)
                except InfraError as exc:
                    if isinstance(exc, RateLimited) or exc.status == 429:
                        await limit.throttled(exc.retry_after, epoch)
                    raise
            await limit.succeeded()
            return result

        return complete

    async def item(self, cell: _Cell, item: Item, first_attempt: int) -> None:
        """Attempts of one item until one counts (completed or model failure) or retries end."""
        for k in range(self.retry.max_attempts):
            async with self.active:
                record, attempt = await self.attempt(cell, item, first_attempt + k)
            if attempt is not None and attempt.config_error is not None:
                raise _StopRun(
                    f"model {cell.spec.id!r}: the provider refused the request "
                    f"({attempt.config_error}); check base_url, api_model and the key in "
                    f"${cell.spec.api_key_env}. The run stopped; finished records are kept."
                )
            # fsync per record (~5 ms) is slow next to an HTTP round trip: a worker thread keeps
            # it off the event loop. Appends to one cell from several threads are safe (one
            # O_APPEND write per record) and their fsyncs overlap, so a busy cell is not capped
            # at one record per fsync.
            await asyncio.to_thread(rawlog.append_record, cell.path, record)
            cell.summary.attempts += 1
            cell.summary.spend_usd += record.cost.total_usd
            if record.status != RunStatus.infra_excluded:
                cell.summary.finished += 1
                self.progress.spent(cell.key, record.cost.total_usd)
                self.progress.advance(cell.key)
                return
            cell.summary.infra_excluded += 1
            note = f"{cell.summary.infra_excluded} infra-excluded"
            self.progress.spent(cell.key, record.cost.total_usd, note)
            if k + 1 < self.retry.max_attempts:
                retry_after = attempt.retry_after if attempt is not None else None
                await asyncio.sleep(self.retry.delay(k + 1, retry_after, self.rng))
        cell.summary.missing.append(item.id)

    def _outside(self, started: dt.datetime) -> bool:
        """Whether this attempt starts outside the window; a window that closes mid-run stops
        the run (unless allowed), since records started after it would not be registered runs."""
        window = self.edition.manifest.window
        outside = self.outside or not (window.opens <= started <= window.closes)
        if outside and not self.options.allow_outside_window:
            raise _StopRun(
                f"the edition window closed at {window.closes.isoformat()}; the run stopped and "
                "finished records are kept (--allow-outside-window continues, flagged)"
            )
        return outside

    async def attempt(
        self, cell: _Cell, item: Item, number: int
    ) -> tuple[RunRecord, agent.Attempt | None]:
        started = self.clock()
        outside = self._outside(started)
        clock = time.perf_counter()
        prompt = cell.workload.prompt(item)
        if cell.spec.provider == ProviderFamily.baseline:
            record = await baseline_record(
                cell.workload,
                item,
                cell.dataset,
                self.edition.pricing,
                **self._ids(cell, item, number),
                started_at=started,
                outside_window=outside,
                dataset_hash=cell.dataset_hash,
                prompt_hash=prompt.hash,
            )
            return record, None
        complete = self.completes[cell.spec.id]
        pricing = self.edition.pricing
        if cell.mode == Mode.single_shot:
            body = self.bodies[cell.spec.id]
            result = await agent.single_shot(complete, cell.spec, prompt, pricing, body)
        else:
            result = await agent.agentic_in_sandbox(
                complete,
                cell.spec,
                prompt,
                pricing,
                (cell.workload, item, cell.dataset),
                body=self.bodies[cell.spec.id],
            )
        usage_basis, cost_basis = rawlog.call_bases(result.calls)
        record = RunRecord(
            **self._ids(cell, item, number),
            started_at=started,
            finished_at=self.clock(),
            latency_s=time.perf_counter() - clock,
            status=result.status,
            failure=result.failure,
            outside_window=outside,
            dataset_hash=cell.dataset_hash,
            prompt_hash=prompt.hash,
            request=result.request,
            calls=result.calls,
            steps=result.steps,
            answer=result.answer,
            tool_state=result.tool_state,
            usage=sum((c.usage for c in result.calls), Usage()),
            usage_basis=usage_basis,
            cost=sum((c.cost for c in result.calls), Cost()),
            cost_basis=cost_basis,
        )
        return rawlog.seal(record, self.secrets), result

    def _ids(self, cell: _Cell, item: Item, number: int) -> dict[str, Any]:
        edition = self.edition.manifest.id
        sitting = cell.plan.sitting
        return {
            "run_id": rawlog.run_id(
                edition, sitting, cell.workload.id, cell.spec.id, cell.mode.value, item.id, number
            ),
            "edition": edition,
            "sitting": sitting,
            "workload": cell.workload.id,
            "model": cell.spec.id,
            "mode": cell.mode,
            "item_id": item.id,
            "attempt": number,
        }
