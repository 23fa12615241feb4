"""Requests that left but whose attempt never ended: paid for, so accounted on resume.

Before a request leaves, its start is appended to the cell's `.started` journal and fsynced.
A kill between that moment and the record's fsync leaves a start without a record: the provider
may well have answered and billed it. On resume each such attempt becomes an infrastructure
exclusion (re-run, never counted against the model) whose calls are costed as estimates: input
from the request's size (characters ÷ 4, the runner's rule when a provider reports nothing) and
output at the model's cap, the most it could have cost. Basis `estimated`, so nobody reads it
as measured.

A self-hosted model is priced by its calls' server time, which for these calls was never
measured. Each gets the most it can have been, from the recorded clocks, with its basis in
`latency_estimate` (never a zero, which would price the call at $0): a call followed by another
of the same attempt was answered before the next was sent; the last one ran at most until the
runner gives up on a request (`timeout_s`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from ledgerrate.core.cost import call_cost
from ledgerrate.core.edition import Edition
from ledgerrate.core.io import append_jsonl
from ledgerrate.providers.base import CompletionRequest, Message
from ledgerrate.run import agent, bodies
from ledgerrate.schema import (
    AttemptStart,
    CallRecord,
    Cost,
    CostBasis,
    Mode,
    ModelSpec,
    RunRecord,
    RunStatus,
    Usage,
    UsageBasis,
)
from ledgerrate.workloads.base import Dataset, Workload

FAILURE = (
    "unfinished: the run ended (killed or interrupted) after this request was sent and before "
    "its answer was recorded; spend estimated from the request's size and the output cap"
)


def started_path(log: Path) -> Path:
    """The journal beside a cell's log (not `.jsonl`: it holds starts, not run records)."""
    return log.with_suffix(".started")


def read_starts(path: Path) -> list[AttemptStart]:
    """Every start in a journal; a line torn by a kill mid-write is a start that never left."""
    if not path.exists():
        return []
    starts = []
    for line in path.read_bytes().splitlines():
        try:
            starts.append(AttemptStart.model_validate(json.loads(line)))
        except (ValueError, ValidationError):
            continue  # only the last line can be torn; its request was never sent
    return starts


def account_unfinished(
    edition: Edition,
    workload: Workload,
    spec: ModelSpec,
    mode: Mode,
    dataset: Dataset,
    dataset_hash: str,
    log: Path,
    records: Sequence[RunRecord],
    *,
    kind: str = "registered",
) -> list[RunRecord]:
    """`records` plus one appended infra-excluded record per started attempt with no record."""
    recorded = {r.run_id for r in records}
    by_run: dict[str, list[AttemptStart]] = {}
    for start in read_starts(started_path(log)):
        if start.run_id not in recorded:
            by_run.setdefault(start.run_id, []).append(start)
    if not by_run:
        return list(records)
    added = []
    store = bodies.BodyStore(edition.paths.root) if _compact(records) else None
    for starts in by_run.values():
        record = _record(edition, workload, spec, mode, dataset, dataset_hash, starts, kind)
        if store is not None:
            assert record.request is not None
            stored = store.store(record.request)
            record = record.model_copy(update={"request": None, "request_stored": stored})
        append_jsonl(log, record)
        added.append(record)
    return [*records, *added]


def _compact(records: Sequence[RunRecord]) -> bool:
    """A log never mixes forms: one that holds whole requests keeps them whole."""
    return not any(r.request is not None for r in records)


def _record(
    edition: Edition,
    workload: Workload,
    spec: ModelSpec,
    mode: Mode,
    dataset: Dataset,
    dataset_hash: str,
    starts: list[AttemptStart],
    kind: str,
) -> RunRecord:
    starts = sorted({s.call: s for s in starts}.values(), key=lambda s: s.call)
    first = starts[0]
    prompt = workload.prompt(dataset.item(first.item_id))
    request = CompletionRequest(system=prompt.system, messages=[Message("user", prompt.user)])
    calls = []
    for start, seconds, basis in _latency_bounds(starts, spec.timeout_s):
        usage = Usage(
            input_tokens=-(-start.input_chars // 4), output_tokens=start.max_output_tokens
        )
        calls.append(
            CallRecord(
                step=start.call,
                started_at=start.started_at,
                latency_s=seconds,
                latency_estimate=basis,
                error="unfinished: no answer was recorded before the run ended",
                usage=usage,
                usage_basis=UsageBasis.estimated,
                cost=call_cost(usage, seconds, edition.pricing, spec.id),
            )
        )
    return RunRecord(
        run_id=first.run_id,
        edition=edition.manifest.id,
        sitting=first.sitting,
        kind=kind,
        workload=workload.id,
        model=spec.id,
        mode=mode,
        item_id=first.item_id,
        attempt=first.attempt,
        started_at=first.started_at,
        finished_at=starts[-1].started_at,
        latency_s=(starts[-1].started_at - first.started_at).total_seconds(),
        status=RunStatus.infra_excluded,
        failure=FAILURE,
        dataset_hash=dataset_hash,
        prompt_hash=prompt.hash,
        request=agent.request_body(spec, request),
        calls=calls,
        usage=sum((c.usage for c in calls), Usage()),
        usage_basis=UsageBasis.estimated,
        cost=sum((c.cost for c in calls), Cost()),
        cost_basis=CostBasis.estimated,
    )


NEXT_SENT = (
    "upper bound, not measured: from this request's start to the start of the attempt's next "
    "request, which was sent only once this one was answered"
)
TIMED_OUT = (
    "upper bound, not measured: the request's timeout (timeout_s = {timeout:g} s), the longest "
    "the runner waits for an answer; the run ended before its answer was recorded"
)


def _latency_bounds(
    starts: Sequence[AttemptStart], timeout_s: float
) -> list[tuple[AttemptStart, float, str]]:
    """Each call of an unfinished attempt (in call order) with the most its time can have been,
    to the microsecond, and how that bound was found."""
    bounds = []
    for start, following in zip(starts, [*starts[1:], None], strict=True):
        if following is None:
            bounds.append((start, round(timeout_s, 6), TIMED_OUT.format(timeout=timeout_s)))
            continue
        gap = (following.started_at - start.started_at).total_seconds()
        bounds.append((start, round(max(gap, 0.0), 6), NEXT_SENT))
    return bounds


__all__ = ["FAILURE", "account_unfinished", "read_starts", "started_path"]
