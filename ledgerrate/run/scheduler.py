"""`ledgerrate run`: every cell of a registered edition, concurrently, resumably, never graded.

The run refuses to start on anything it could not publish honestly: an unregistered edition or
one whose code drifted from its registration, a model without a price, a missing API key, a
dataset whose hash differs from the registered one, or a clock outside the edition window
(unless explicitly allowed, and then every record says so). Everything is checked before the
first call. Then items run under a global cap and per-provider adaptive caps (`runner.py`); each
attempt is appended to its cell's log as soon as it ends.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
from rich.console import Console

from ledgerrate.core.edition import (
    Edition,
    WorkloadLookup,
    load_edition,
    pricing_problems,
    registration_mismatches,
    require_current_registration,
)
from ledgerrate.core.errors import UsageProblem
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.providers import local
from ledgerrate.providers.base import ProviderFactory
from ledgerrate.run import celllock, rawlog, unfinished
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.progress import RunSummary
from ledgerrate.run.runner import (
    Cell,
    Runner,
    api_keys,
    baseline_mode,
    cell_applies,
    make_cell,
    outside_window,
)
from ledgerrate.schema import Mode

__all__ = ["RunOptions", "baseline_mode", "run_edition"]


@dataclass
class RunOptions:
    workloads: list[str] | None = None
    models: list[str] | None = None
    modes: list[str] | None = None
    concurrency: int = 8
    allow_outside_window: bool = False
    new_sitting: bool = False


def _select(chosen: list[str] | None, known: list[str], what: str) -> list[str]:
    if not chosen:
        return known
    unknown = [c for c in chosen if c not in known]
    if unknown:
        raise UsageProblem(
            *(f"unknown {what} {u!r}; this edition has: {', '.join(known)}" for u in unknown)
        )
    return [k for k in known if k in chosen]


def _modes(chosen: list[str] | None) -> list[Mode]:
    """The model modes a run may make; `by-hand` is the manual arm's, which no model runs."""
    if chosen and Mode.by_hand.value in chosen:
        raise UsageProblem(
            "mode 'by-hand' is the manual arm's, which an analyst does: hand out work packets "
            "with `ledgerrate manual packet` and record them with `ledgerrate manual import`"
        )
    known = [m.value for m in Mode if m is not Mode.by_hand]
    return [Mode(m) for m in _select(chosen, known, "mode")]


def _window(edition: Edition, now: dt.datetime, allow: bool) -> bool:
    window = edition.manifest.window
    outside = outside_window(edition, now)
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
) -> list[Cell]:
    manifest = edition.manifest
    registration = require_current_registration(edition, lookup)
    workload_ids = _select(options.workloads, [w.id for w in manifest.workloads], "workload")
    model_ids = _select(options.models, [m.id for m in manifest.models], "model")
    modes = _modes(options.modes)
    cells = []
    for wid in workload_ids:
        workload = lookup(wid)
        dataset = dataset_for(edition.paths.root, wid, lookup=lookup)
        dataset_hash = registration.workloads[wid].dataset_hash
        for mid in model_ids:
            spec = manifest.model(mid)
            for mode in modes:
                if not cell_applies(workload, spec, mode):
                    continue
                path = edition.paths.runs(wid, mid, mode.value)
                records = unfinished.account_unfinished(
                    edition,
                    workload,
                    spec,
                    mode,
                    dataset,
                    dataset_hash,
                    path,
                    rawlog.read_cell(path),
                )
                plan = rawlog.plan_sitting(
                    records, [i.id for i in dataset.items], new_sitting=options.new_sitting
                )
                cells.append(
                    make_cell(workload, spec, mode, dataset, dataset_hash, path, records, plan)
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
    keys = api_keys([edition.manifest.model(m) for m in selected])
    served = {
        spec.id: local.served(spec)
        for spec in (edition.manifest.model(m) for m in selected)
        if spec.local is not None
    }
    # Planned and run under the cells' locks: another runner's attempts are never ours.
    with celllock.locked(_cell_logs(edition, options, lookup)):
        cells = _plan_cells(edition, options, lookup)
        runner = Runner(
            edition=edition,
            keys=keys,
            factory=provider_factory,
            retry=retry or RetryPolicy(),
            clock=clock,
            outside=outside,
            concurrency=options.concurrency,
            allow_outside_window=options.allow_outside_window,
            served=served,
        )
        runner.execute(cells, transport=transport, console=console, show_progress=show_progress)
    summary = RunSummary(edition.manifest.id, outside, [c.summary for c in cells])
    summary.probes = [p.line() for p in runner.probes]
    for line in summary.lines():
        console.print(line, markup=False)
    return summary


def _cell_logs(edition: Edition, options: RunOptions, lookup: WorkloadLookup) -> list[Path]:
    """The log of every cell this run may write."""
    manifest = edition.manifest
    workload_ids = _select(options.workloads, [w.id for w in manifest.workloads], "workload")
    model_ids = _select(options.models, [m.id for m in manifest.models], "model")
    modes = _modes(options.modes)
    return [
        edition.paths.runs(wid, mid, mode.value)
        for wid in workload_ids
        for mid in model_ids
        for mode in modes
        if cell_applies(lookup(wid), manifest.model(mid), mode)
    ]
