"""`ledgerrate reproduce`: run one cell again, live, recorded as a reproduction.

A reproduction is a measurement made later, by anyone, against the same registered items. It is
written under `reproductions/`, numbered in its own sittings, and marked `kind="reproduction"`,
so no stage can take it for (or pool it with) the registered result: otherwise pressing a button
could replace a registered figure. The edition window does not bind it (it is later by nature),
but every record still says honestly whether it started outside the window. Everything else is
held to the registered run's rules: the code must match the registration, prices come from the
frozen table, and the dataset is regenerated from its seeds and checked against its hash.
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
from ledgerrate.providers.base import ProviderFactory
from ledgerrate.run import rawlog, unfinished
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.progress import CellSummary, usd
from ledgerrate.run.runner import (
    Cell,
    Runner,
    api_keys,
    cell_applies,
    make_cell,
)
from ledgerrate.schema import Mode
from ledgerrate.workloads.base import Dataset


@dataclass
class ReproduceSummary:
    """What one `reproduce` call did."""

    edition: str
    cell: CellSummary
    log: Path
    outside_window: int
    """Records of this reproduction sitting that started outside the edition window."""

    @property
    def sitting(self) -> int:
        return self.cell.sitting

    def line(self) -> str:
        c = self.cell
        text = (
            f"reproduction of {c.workload} · {c.model} · {c.mode}, reproduction sitting "
            f"{c.sitting}: {c.finished}/{c.items} finished, {usd(c.spend_usd)} spent"
        )
        if c.infra_excluded:
            text += f", {c.infra_excluded} infra-excluded attempt(s)"
        if self.outside_window:
            text += f", {self.outside_window} record(s) outside the edition window (flagged)"
        if c.missing:
            text += f"; missing after retries: {', '.join(sorted(c.missing))}"
        return text + f"; written to {self.log}, shown apart from the registered result"


def parse_cell(edition: Edition, cell: str, lookup: WorkloadLookup) -> tuple[str, str, Mode]:
    """`workload/model/mode` → its parts, refused unless it is a cell of this edition."""
    parts = cell.split("/")
    if len(parts) != 3 or not all(parts):
        raise UsageProblem(f"--cell {cell!r}: expected workload/model/mode")
    wid, mid, mode_text = parts
    manifest = edition.manifest
    known = {
        "workload": [w.id for w in manifest.workloads],
        "model": [m.id for m in manifest.models],
        "mode": [m.value for m in Mode],
    }
    problems = [
        f"unknown {what} {given!r}; this edition has: {', '.join(known[what])}"
        for what, given in zip(known, parts, strict=True)
        if given not in known[what]
    ]
    if problems:
        raise UsageProblem(*problems)
    mode = Mode(mode_text)
    if not cell_applies(lookup(wid), manifest.model(mid), mode):
        raise UsageProblem(f"{cell} is not a cell of edition {manifest.id!r}")
    return wid, mid, mode


def _chosen_items(dataset: Dataset, items: list[str] | None) -> list[str]:
    """Dataset order; `items` may repeat the option or separate ids by commas."""
    known = [i.id for i in dataset.items]
    if not items:
        return known
    chosen = {part.strip() for entry in items for part in entry.split(",") if part.strip()}
    unknown = sorted(chosen - set(known))
    if unknown:
        raise UsageProblem(*(f"unknown item {u!r} in {dataset.workload}" for u in unknown))
    return [i for i in known if i in chosen]


def reproduce_cell(
    edition_dir: Path,
    cell: str,
    *,
    items: list[str] | None = None,
    lookup: WorkloadLookup | None = None,
    provider_factory: ProviderFactory | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    retry: RetryPolicy | None = None,
    now: Callable[[], dt.datetime] | None = None,
    concurrency: int = 8,
    console: Console | None = None,
    show_progress: bool = True,
) -> ReproduceSummary:
    """Run `cell` (`workload/model/mode`) again as a new reproduction sitting; never grades."""
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    clock = now or (lambda: dt.datetime.now(dt.UTC))
    console = console or Console(stderr=True, highlight=False)
    edition = load_edition(edition_dir)
    problems = pricing_problems(edition) + registration_mismatches(edition, lookup)
    if problems:
        raise UsageProblem(*problems)
    registration = require_current_registration(edition, lookup)
    wid, mid, mode = parse_cell(edition, cell, lookup)
    paths = edition.paths
    # A reproduction repeats a registered result; with none there is nothing to reproduce, and
    # a "reproduction" run first would be a preview of the items outside the registered run.
    registered = rawlog.read_cell(paths.runs(wid, mid, mode.value))
    if not registered:
        raise UsageProblem(
            f"{cell}: no registered runs in {paths.runs(wid, mid, mode.value)}; "
            "a reproduction repeats a registered result, so run the cell first"
        )
    spec = edition.manifest.model(mid)
    keys = api_keys([spec])
    workload = lookup(wid)
    dataset = dataset_for(paths.root, wid, lookup=lookup)
    chosen = _chosen_items(dataset, items)
    log = paths.reproductions(wid, mid, mode.value)
    dataset_hash = registration.workloads[wid].dataset_hash
    earlier = unfinished.account_unfinished(
        edition,
        workload,
        spec,
        mode,
        dataset,
        dataset_hash,
        log,
        rawlog.read_cell(log),
        kind="reproduction",
    )
    # Every call is a sitting of its own: a reproduction is never resumed into an earlier one.
    sitting = max((r.sitting for r in earlier), default=0) + 1
    plan = rawlog.SittingPlan(
        sitting=sitting, todo={i: 1 for i in chosen}, earlier_sittings=sitting - 1
    )
    target: Cell = make_cell(
        workload, spec, mode, dataset, dataset_hash, log, earlier, plan, kind="reproduction"
    )
    runner = Runner(
        edition=edition,
        keys=keys,
        factory=provider_factory,
        retry=retry or RetryPolicy(),
        clock=clock,
        # Judged per record from its own start time, never from when the call began.
        outside=False,
        concurrency=concurrency,
        # The window does not bind a reproduction; each record is flagged when outside it.
        allow_outside_window=True,
    )
    runner.execute([target], transport=transport, console=console, show_progress=show_progress)
    flagged = sum(1 for r in rawlog.read_cell(log) if r.sitting == sitting and r.outside_window)
    return ReproduceSummary(edition.manifest.id, target.summary, log, flagged)
