"""Running planned cells: the one code path behind `run` (registered sittings) and `reproduce`.

A cell says which log it appends to and which kind of record it writes; everything else (caps,
retries, the window check per attempt, sealing, fsync per record) is the same for both, so a
reproduction is measured exactly as the registered run it repeats.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import os
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import httpx
from rich.console import Console

from ledgerrate.core.edition import Edition
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import to_json
from ledgerrate.core.keys import key_problem, redact
from ledgerrate.providers.base import (
    Completion,
    CompletionRequest,
    Provider,
    ProviderFactory,
)
from ledgerrate.providers.client import api_client
from ledgerrate.run import agent, bodies, calls, probe, rawlog, unfinished
from ledgerrate.run.durable import GroupCommit
from ledgerrate.run.limits import Limits, RetryPolicy, call_limited
from ledgerrate.run.progress import CellProgress, CellSummary
from ledgerrate.schema import (
    AttemptStart,
    Cost,
    CostBasis,
    Mode,
    ModelSpec,
    RunRecord,
    RunStatus,
    ServedModel,
    Usage,
)
from ledgerrate.workloads.base import Dataset, Item, Workload
from ledgerrate.workloads.reference import reference_record

RecordKind = Literal["registered", "reproduction"]
BeforeSend = Callable[[CompletionRequest], Awaitable[None]]
Limited = Callable[[CompletionRequest, BeforeSend], Awaitable[Completion]]


def baseline_mode(workload: Workload) -> Mode:
    """A reference solver does not change with the mode: it runs once, single-shot if allowed."""
    return Mode.single_shot if Mode.single_shot.value in workload.modes else Mode(workload.modes[0])


def cell_applies(workload: Workload, spec: ModelSpec, mode: Mode) -> bool:
    """Whether (workload, model, mode) is a cell of the edition at all."""
    if mode.value not in workload.modes:
        return False
    if spec.is_reference:
        return workload.baseline is not None and mode == baseline_mode(workload)
    return True


def api_keys(models: Sequence[ModelSpec]) -> dict[str, str]:
    """Each model's key from its environment variable; a loopback server may have none."""
    keys, problems = {}, []
    for spec in models:
        if spec.is_reference:
            continue
        value = os.environ.get(spec.api_key_env, "") if spec.api_key_env else ""
        problem = key_problem(spec.id, spec.api_key_env, value, spec.base_url)
        if problem:
            problems.append(problem)
        keys[spec.id] = value.strip()
    if problems:
        raise UsageProblem(*problems)
    return keys


def outside_window(edition: Edition, now: dt.datetime) -> bool:
    window = edition.manifest.window
    return not (window.opens <= now <= window.closes)


@dataclass
class Cell:
    workload: Workload
    spec: ModelSpec
    mode: Mode
    dataset: Dataset
    dataset_hash: str
    path: Path
    plan: rawlog.SittingPlan
    summary: CellSummary
    kind: RecordKind = "registered"
    # New logs keep long request strings once in the edition's bodies/; a log that already holds
    # whole requests (the bundled editions) keeps that form, so no log mixes the two.
    compact: bool = True

    @property
    def key(self) -> str:
        return f"{self.workload.id}/{self.spec.id}/{self.mode.value}"


def make_cell(
    workload: Workload,
    spec: ModelSpec,
    mode: Mode,
    dataset: Dataset,
    dataset_hash: str,
    path: Path,
    records: Sequence[RunRecord],
    plan: rawlog.SittingPlan,
    kind: RecordKind = "registered",
) -> Cell:
    """A planned cell; its summary starts from what the planned sitting already holds."""
    spent = sum((r.cost.total_usd for r in records if r.sitting == plan.sitting), Decimal(0))
    summary = CellSummary(
        workload.id,
        spec.id,
        mode.value,
        plan.sitting,
        len(plan.todo) + plan.finished,
        plan.finished,
        spend_usd=spent,
        already_complete=plan.complete_already,
        timeout_s=spec.timeout_s if not spec.is_reference else None,
    )
    compact = not any(r.request is not None for r in records)
    return Cell(workload, spec, mode, dataset, dataset_hash, path, plan, summary, kind, compact)


PROBE_OUTPUT_CAP = 64
# Allocations between two young-generation collections while cells run (CPython's default: 700).
YOUNG_COLLECTION_EVERY = 20_000


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """The cyclic collector run less often while requests are in flight, then as before.

    Each request leaves objects for the collector (HTTP, JSON, pydantic), and every full
    collection walks everything already loaded (the edition, its datasets, every module).
    Freezing what exists before the run moves it out of that walk; cycles made during the run
    are still collected. Measured in `benchmarks/runner_throughput.py` (2,000 requests): 0.55 s
    of collections in the whole process before (401 young, 36 middle, 3 full), 0.33 s after
    (250, 22, 1), i.e. about 0.1 ms per request.
    """
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_EVERY, 50, 50)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


async def _nothing(_request: CompletionRequest) -> None:
    """Probes are not item attempts, so they are not journaled as one."""


class StopRun(Exception):
    """Ends the whole run: a configuration the provider refuses, or the window closing."""


class Runner:
    def __init__(
        self,
        *,
        edition: Edition,
        keys: dict[str, str],
        factory: ProviderFactory | None,
        retry: RetryPolicy,
        clock: Callable[[], dt.datetime],
        outside: bool,
        concurrency: int,
        allow_outside_window: bool,
        served: dict[str, ServedModel] | None = None,
    ) -> None:
        self.edition = edition
        # Self-hosted models: the weights their local server runs, copied into every record.
        self.served = served or {}
        self.keys = keys
        self.secrets = [k for k in keys.values() if k]
        self.factory = factory
        self.retry = retry
        self.clock = clock
        self.outside = outside
        self.concurrency = max(1, concurrency)
        self.allow_outside_window = allow_outside_window
        self.rng = random.Random()
        self.completes: dict[str, Limited] = {}
        self.probes: list[probe.ProbeResult] = []
        self.bodies: dict[str, agent.BodyFn | None] = {}

    def execute(
        self,
        cells: list[Cell],
        *,
        transport: httpx.AsyncBaseTransport | None,
        console: Console,
        show_progress: bool,
    ) -> None:
        """Run every cell's plan under one progress display; a StopRun becomes a UsageProblem."""
        with CellProgress(console, enabled=show_progress) as progress:
            for cell in cells:
                if not cell.plan.complete_already:
                    s = cell.summary
                    progress.add(cell.key, cell.key, s.items, s.finished, s.spend_usd)
            try:
                self._run_loop(cells, progress, transport)
            except KeyboardInterrupt:
                raise UsageProblem(
                    "interrupted: finished records are kept; resume with `ledgerrate run "
                    f"{self.edition.paths.root}` (requests in flight are accounted as estimated "
                    "infrastructure spend)"
                ) from None

    def _run_loop(
        self, cells: list[Cell], progress: CellProgress, transport: httpx.AsyncBaseTransport | None
    ) -> None:
        try:
            with _fewer_collections():
                asyncio.run(self.run([c for c in cells if c.plan.todo], progress, transport))
        except* StopRun as group:
            message = str(group.exceptions[0])
            raise UsageProblem(redact(message, self.secrets)) from None

    async def run(
        self, cells: list[Cell], progress: CellProgress, transport: httpx.AsyncBaseTransport | None
    ) -> None:
        if not cells:
            return
        concurrency = self.concurrency
        self.limits = Limits(concurrency, self.retry.recover_after)
        # Bounds how many items hold a sandbox at once; requests are bounded by `limits`.
        self.active = asyncio.Semaphore(concurrency * 2)
        self.progress = progress
        # A pool no larger than the requests in flight: httpcore scans every pooled connection
        # on each request, so idle extras cost CPU for nothing.
        pool = httpx.Limits(max_connections=concurrency + 4, max_keepalive_connections=concurrency)
        self.writer = GroupCommit()
        self.store = bodies.BodyStore(self.edition.paths.root)
        try:
            await self._run(cells, transport, pool)
        finally:
            # Records handed over before a Ctrl-C or a stop are still written (and fsynced).
            try:
                await self.writer.drain()
            finally:
                self.writer.close()

    async def _run(
        self, cells: list[Cell], transport: httpx.AsyncBaseTransport | None, pool: httpx.Limits
    ) -> None:
        # httpx over aiohttp's pool, without cookies (see providers/client.py); tests inject
        # their own transport.
        async with api_client(transport, pool) as client:
            factory = self.factory
            if factory is None:
                from ledgerrate.providers import make_provider

                factory = make_provider
            for cell in cells:
                spec = cell.spec
                if not spec.is_reference and spec.id not in self.completes:
                    provider = factory(spec, client, self.keys[spec.id])
                    self.completes[spec.id] = self._limited(spec, provider)
                    self.bodies[spec.id] = getattr(provider, "request_body", None)
            refused = await self._probe_tools(cells, factory, client)
            async with asyncio.TaskGroup() as group:
                for cell in cells:
                    if cell.mode == Mode.agentic and cell.spec.id in refused:
                        cell.summary.refused = refused[cell.spec.id]
                        continue
                    # By id once per cell: `Dataset.item` scans the items, so looking each up
                    # there costs time quadratic in the cell's size (0.1 ms a request at 2,000).
                    items = {item.id: item for item in cell.dataset.items}
                    for item_id, attempt in cell.plan.todo.items():
                        group.create_task(self.item(cell, items[item_id], attempt))

    async def _probe_tools(
        self, cells: list[Cell], factory: ProviderFactory, client: httpx.AsyncClient
    ) -> dict[str, str]:
        """Probe each model that has agentic items to run, once, before any of them starts;
        model id → the one-line reason for each model whose endpoint drops the tools."""
        refused: dict[str, str] = {}
        models = {
            c.spec.id: c.spec for c in cells if c.mode == Mode.agentic and not c.spec.is_reference
        }
        for spec in models.values():
            # A small cap: the probe needs a few tokens, never the model's full budget.
            small = spec.model_copy(
                update={"max_output_tokens": min(spec.max_output_tokens, PROBE_OUTPUT_CAP)}
            )
            limited = self._limited(small, factory(small, client, self.keys[spec.id]))

            async def complete(
                request: CompletionRequest, limited: Limited = limited
            ) -> Completion:
                return await limited(request, _nothing)

            result = await probe.probe_tools(
                complete, spec, self.edition.manifest.id, self.edition.pricing, self.secrets
            )
            record = result.record
            path = self.edition.paths.probes(spec.id)
            await self.writer.append(path, (to_json(record) + "\n").encode("utf-8"))
            self.probes.append(result)
            if not result.ok:
                refused[spec.id] = (
                    f"agentic cells refused: the endpoint at {spec.base_url} does not hand tools "
                    f"to model {spec.id!r}: {record.evidence}"
                )
        return refused

    def _limited(self, spec: ModelSpec, provider: Provider) -> Limited:
        """provider.complete under the global and the endpoint's adaptive cap."""
        limit = self.limits.provider(f"{spec.provider} {spec.base_url}", spec.concurrency)

        async def complete(request: CompletionRequest, before_send: BeforeSend) -> Completion:
            # Journaled once a slot is held, so a start means the request really left.
            return await call_limited(
                self.limits,
                limit,
                lambda: provider.complete(request),
                lambda: before_send(request),
            )

        return complete

    async def item(self, cell: Cell, item: Item, first_attempt: int) -> None:
        """Attempts of one item until one counts (completed or model failure) or retries end."""
        timeouts = 0
        for k in range(self.retry.max_attempts):
            async with self.active:
                record, attempt = await self.attempt(cell, item, first_attempt + k)
            if attempt is not None and attempt.config_error is not None:
                raise StopRun(
                    f"model {cell.spec.id!r}: the provider refused the request "
                    f"({attempt.config_error}); check base_url, api_model and the key in "
                    f"${cell.spec.api_key_env}. The run stopped; finished records are kept."
                )
            # Acknowledged once fsynced; records ending together share one write and fsync.
            await self.writer.append(cell.path, (to_json(record) + "\n").encode("utf-8"))
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
            if attempt is not None and attempt.unreachable:
                cell.summary.unreachable = attempt.unreachable
            if attempt is not None and attempt.timed_out:
                timeouts += 1
                if timeouts >= self.retry.max_timeouts:
                    cell.summary.timed_out.append(item.id)
                    break
            if k + 1 < self.retry.max_attempts:
                retry_after = attempt.retry_after if attempt is not None else None
                await asyncio.sleep(self.retry.delay(k + 1, retry_after, self.rng))
        cell.summary.missing.append(item.id)

    def _outside(self, started: dt.datetime) -> bool:
        """Whether this attempt starts outside the window; a window that closes mid-run stops
        the run (unless allowed), since records started after it would not be registered runs."""
        outside = self.outside or outside_window(self.edition, started)
        if outside and not self.allow_outside_window:
            closes = self.edition.manifest.window.closes
            raise StopRun(
                f"the edition window closed at {closes.isoformat()}; the run stopped and "
                "finished records are kept (--allow-outside-window continues, flagged)"
            )
        return outside

    async def attempt(
        self, cell: Cell, item: Item, number: int
    ) -> tuple[RunRecord, agent.Attempt | None]:
        # An attempt starts when its first request holds a concurrency slot and leaves, not
        # when it joins the queue: time spent waiting for a slot is the runner's, not the
        # model's, and must not enter latency or decide the window. Refused at once if the
        # window has already closed.
        started = self.clock()
        outside = self._outside(started)
        clock = time.perf_counter()
        prompt = cell.workload.prompt(item)
        if cell.spec.is_reference:
            record = await reference_record(
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
        ids = self._ids(cell, item, number)
        sent: dict[str, Any] = {}

        def first_send() -> None:
            sent["at"] = self.clock()
            sent["outside"] = self._outside(sent["at"])
            sent["clock"] = time.perf_counter()

        complete = self._journaled(cell, ids, first_send)
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
        if cell.spec.id in pricing.self_hosted:
            cost_basis = CostBasis.compute  # server time × the declared instance price
        request: dict[str, Any] | None = result.request
        stored = None
        if cell.compact:
            request, stored = None, self.store.store(result.request)
        # The first request's start; when none left (e.g. the sandbox failed first), the
        # attempt's own start stands.
        if sent:
            started, outside, clock = sent["at"], sent["outside"], sent["clock"]
        record = RunRecord(
            **ids,
            started_at=started,
            finished_at=self.clock(),
            latency_s=time.perf_counter() - clock,
            status=result.status,
            failure=result.failure,
            outside_window=outside,
            dataset_hash=cell.dataset_hash,
            prompt_hash=prompt.hash,
            request=request,
            request_stored=stored,
            calls=result.calls,
            steps=result.steps,
            answer=result.answer,
            tool_state=result.tool_state,
            usage=sum((c.usage for c in result.calls), Usage()),
            usage_basis=usage_basis,
            cost=sum((c.cost for c in result.calls), Cost()),
            cost_basis=cost_basis,
            served_model=self.served.get(cell.spec.id),
        )
        return rawlog.seal(record, self.secrets), result

    def _journaled(
        self, cell: Cell, ids: dict[str, Any], first_send: Callable[[], None] = lambda: None
    ) -> calls.Complete:
        """This attempt's `complete`: each request's start fsynced to the journal as it leaves
        (`first_send` runs once, when the first request holds its slot)."""
        limited = self.completes[cell.spec.id]
        journal = unfinished.started_path(cell.path)
        leaving = 0  # requests of this attempt sent so far

        async def before_send(request: CompletionRequest) -> None:
            nonlocal leaving
            if leaving == 0:
                first_send()
            start = AttemptStart(
                run_id=ids["run_id"],
                sitting=ids["sitting"],
                item_id=ids["item_id"],
                attempt=ids["attempt"],
                call=leaving,
                # The wall clock, as for each call's start (`self.clock` times attempts and the
                # window).
                started_at=dt.datetime.now(dt.UTC),
                input_chars=calls.prompt_chars(request),
                max_output_tokens=cell.spec.max_output_tokens,
            )
            leaving += 1
            await self.writer.append(journal, (to_json(start) + "\n").encode("utf-8"))

        async def complete(request: CompletionRequest) -> Completion:
            return await limited(request, before_send)

        return complete

    def _ids(self, cell: Cell, item: Item, number: int) -> dict[str, Any]:
        edition = self.edition.manifest.id
        sitting = cell.plan.sitting
        wid, mid, mode = cell.workload.id, cell.spec.id, cell.mode.value
        return {
            "run_id": rawlog.run_id(
                edition, sitting, wid, mid, mode, item.id, number, kind=cell.kind
            ),
            "edition": edition,
            "sitting": sitting,
            "kind": cell.kind,
            "workload": wid,
            "model": mid,
            "mode": cell.mode,
            "item_id": item.id,
            "attempt": number,
        }
