"""Running a workload's reference solver (`Workload.baseline`): its deterministic, non-LLM
answer to an item, for the edition entries that say `solver: reference` (ARCHITECTURE.md §3).

The solver lives beside the workload it solves; this module runs it the way the runner runs a
model, and is no provider family: it calls no API and spends no model budget. Its cost is the
CPU time of the solver, measured in the worker thread that runs it and priced at the edition's
compute rate, so records say `compute`, never token spend. It sees what a model sees (the item
and the dataset), never the grader.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from ledgerrate.core.cost import compute_cost
from ledgerrate.schema import Cost, CostBasis, PricingTable, RunRecord, RunStatus, UsageBasis
from ledgerrate.workloads.base import Answer, Dataset, Item, Workload

# SQLite errors that come from the machine (files, locks, disks), not from the solver's logic.
_HARNESS_SQLITE = ("readonly database", "disk I/O error", "database is locked", "unable to open")


@dataclass(frozen=True)
class ReferenceResult:
    answer: Answer | None
    cpu_seconds: float
    cost: Cost
    error: str | None = None
    infra: bool = False


def is_harness_error(exc: BaseException) -> bool:
    """The environment failed the solver (the standard's infrastructure error, re-run), as
    opposed to the solver failing the item (a failure that counts)."""
    if isinstance(exc, (OSError, MemoryError)):
        return True
    return isinstance(exc, sqlite3.OperationalError) and any(
        marker in str(exc) for marker in _HARNESS_SQLITE
    )


def is_harness_failure(failure: str | None) -> bool:
    """Whether a logged failure text records a machine fault (for records written before such
    faults were classified as infrastructure errors)."""
    return failure is not None and any(marker in failure for marker in _HARNESS_SQLITE)


def _timed(
    workload: Workload, item: Item, dataset: Dataset
) -> tuple[Answer | None, float, str | None, bool]:
    assert workload.baseline is not None
    # thread_time counts only this worker thread, so other runs in flight do not inflate it.
    start = time.thread_time()
    try:
        answer = workload.baseline(item, dataset)
        error, infra = None, False
    except Exception as exc:  # a solver crash is that run's failure, not the whole run's
        answer, error = None, f"baseline raised {type(exc).__name__}: {exc}"
        infra = is_harness_error(exc)
    return answer, time.thread_time() - start, error, infra


async def run_reference(
    workload: Workload, item: Item, dataset: Dataset, pricing: PricingTable
) -> ReferenceResult:
    """Run the reference solver on one item in a worker thread and price its CPU time."""
    if workload.baseline is None:
        raise ValueError(f"{workload.id} has no reference solver")
    answer, cpu, error, infra = await asyncio.to_thread(_timed, workload, item, dataset)
    return ReferenceResult(
        answer=answer, cpu_seconds=cpu, cost=compute_cost(cpu, pricing), error=error, infra=infra
    )


def request_body(workload: Workload, item: Item) -> dict[str, str]:
    """What the record stores as the 'request': which solver ran on which item. Its keys are
    what sealed logs hold (`provider: baseline` included), so records stay alike."""
    return {
        "provider": "baseline",
        "solver": f"{workload.id} reference baseline",
        "item_id": item.id,
        "note": "deterministic non-LLM solver; no model was called",
    }


async def reference_record(
    workload: Workload,
    item: Item,
    dataset: Dataset,
    pricing: PricingTable,
    /,
    **fields: Any,
) -> RunRecord:
    """One reference-solver attempt as a run record: no calls, no tokens, compute cost only.

    `fields` are the identity and provenance fields the scheduler sets for every record
    (run id, edition, sitting, …, started_at, outside_window, dataset and prompt hashes).
    """
    clock = time.perf_counter()
    outcome = await run_reference(workload, item, dataset, pricing)
    answer = outcome.answer
    return RunRecord(
        **fields,
        finished_at=dt.datetime.now(dt.UTC),
        latency_s=time.perf_counter() - clock,
        status=(
            RunStatus.completed
            if outcome.error is None
            else RunStatus.infra_excluded
            if outcome.infra
            else RunStatus.model_failure
        ),
        failure=outcome.error,
        request=request_body(workload, item),
        answer=answer.text if answer else None,
        tool_state=dict(answer.tool_state) if answer and answer.tool_state is not None else None,
        usage_basis=UsageBasis.none,
        cost=outcome.cost,
        cost_basis=CostBasis.compute,
        # The figure that was priced, so a reader can recompute the cost exactly.
        cpu_seconds=round(outcome.cpu_seconds, 6),
    )
