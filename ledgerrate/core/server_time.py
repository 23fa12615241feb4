"""Server time of the calls a one-request-at-a-time server answered, from their recorded clocks.

Before the call clock was fixed (providers/clock.py), a call's clock started before the call
waited for its concurrency slot, so where two items of a cell shared one slot the recorded
latency of the second included the first's service. A locally served model is started with one
slot (`concurrency: 1`, llama.cpp's server answering one request at a time), so its calls were
served one after another, and each call's service began when it was sent or when the call served
before it ended, whichever is later:

    recorded end  = recorded start + recorded latency
    served from   = max(recorded start, the latest recorded end of the calls that ended before)
    server time   = recorded end − served from        (its wait: served from − recorded start)

The rule uses nothing but the recorded clocks. It is exact when every call the server answered
in that span is recorded with its end. A call whose end was never recorded (an attempt in flight
when its runner was stopped, kept only in a start journal) may have been served inside another
call's span; from its start on, the rule's figure is an upper bound on the server time (still
below the recorded latency), and `unknowable_after` names that moment.

Pure: the edition reader (`edition_server_time`) is the only I/O, at the bottom.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import numpy as np

from ledgerrate.core.cost import self_hosted_cost
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import iter_jsonl, load_model, read_jsonl
from ledgerrate.core.layout import RUNS, EditionPaths
from ledgerrate.schema import (
    AttemptStart,
    CallRecord,
    EditionManifest,
    PricingTable,
    ProbeRecord,
    RunRecord,
    RunStatus,
)


@dataclass(frozen=True)
class Timed:
    """One call as recorded: when its clock started and how long it read."""

    start: dt.datetime
    latency_s: float

    @property
    def end(self) -> dt.datetime:
        return self.start + dt.timedelta(seconds=self.latency_s)


def served(calls: Sequence[Timed]) -> list[tuple[float, float]]:
    """(server time, wait) of each call, in the order given, on one serial server."""
    order = sorted(range(len(calls)), key=lambda i: (calls[i].end, calls[i].start))
    out: list[tuple[float, float]] = [(0.0, 0.0)] * len(calls)
    busy_until: dt.datetime | None = None
    for i in order:
        call = calls[i]
        begins = call.start if busy_until is None or call.start >= busy_until else busy_until
        wait = (begins - call.start).total_seconds()
        out[i] = ((call.end - begins).total_seconds(), wait)
        busy_until = call.end if busy_until is None or call.end > busy_until else busy_until
    return out


# --------------------------------------------------------------------------- one edition


@dataclass(frozen=True)
class CellTime:
    """A cell of a locally served model: its published time and spend figures as recorded and
    as the serial-server rule reconstructs them."""

    workload: str
    mode: str
    runs: int
    calls: int
    waited: int  # calls whose recorded latency included a wait
    call_s: float  # Σ recorded call latency
    server_s: float  # Σ reconstructed server time
    spend_usd: Decimal  # as recorded (Σ of the counted runs' cost)
    server_spend_usd: Decimal  # reconstructed server time × the instance price, per call
    latency_median_s: float
    latency_p90_s: float
    server_latency_median_s: float  # each run's latency less its calls' waits
    server_latency_p90_s: float
    exact: bool  # False: a call of unknown end may have been served inside these calls' spans


@dataclass(frozen=True)
class EditionTime:
    model: str
    cells: list[CellTime]
    unknowable_after: dt.datetime | None  # first start of a call whose end was never recorded
    open_calls: int


def _ended(call: CallRecord) -> bool:
    """The call's end was recorded: not an accounted unfinished call (latency 0 in records
    written before estimates were recorded, an upper bound in `latency_estimate` since)."""
    return call.latency_s > 0 and call.latency_estimate is None


def _percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values, dtype=float), q))


def edition_server_time(edition_dir: Path, model: str) -> EditionTime:
    """Every call the edition recorded for `model` (registered cells, the tools probes and any
    set-aside logs under incidents/, which all shared the server), reconstructed by the
    serial-server rule."""
    paths = EditionPaths(Path(edition_dir))
    manifest = load_model(EditionManifest, paths.manifest)
    local = [m.id for m in manifest.models if m.local is not None]
    if model not in local:
        raise UsageProblem(
            f"{paths.manifest}: models: {model!r} is not served locally (no `local:`); name one "
            f"of this edition's local models ({', '.join(local) or 'it has none'})"
        )
    pricing = load_model(PricingTable, paths.pricing)
    # An incident sets a cell's logs aside under incidents/<id>/runs/, laid out like runs/.
    logs = sorted(paths.runs_dir.glob(f"*/{model}/*.jsonl"))
    set_aside = sorted(paths.incidents_dir.glob(f"*/{RUNS}/*/{model}/*.jsonl"))
    journals = sorted(paths.runs_dir.glob(f"*/{model}/*.started"))
    journals += sorted(paths.incidents_dir.glob(f"*/{RUNS}/*/{model}/*.started"))

    timed: list[Timed] = []
    where: list[tuple[Path, str, int]] = []  # log, run id, call index
    runs: dict[Path, list[RunRecord]] = {}
    for log in logs + set_aside:
        runs[log] = read_jsonl(log, RunRecord)
        for run in runs[log]:
            for index, call in enumerate(run.calls):
                if _ended(call):
                    timed.append(Timed(call.started_at, call.latency_s))
                    where.append((log, run.run_id, index))
    # The tools probe before each `run` asks the same server too.
    probes = paths.probes(model)
    for probe in read_jsonl(probes, ProbeRecord) if probes.exists() else []:
        for index, call in enumerate(probe.calls):
            timed.append(Timed(call.started_at, call.latency_s))
            where.append((probes, f"probe {probe.started_at.isoformat()}", index))
    ended = {(run.run_id, run.attempt, call.step) for rs in runs.values() for run in rs
             for call in run.calls if _ended(call)}  # fmt: skip
    open_starts = [
        start.started_at
        for journal in journals
        for start in iter_jsonl(journal, AttemptStart)
        if (start.run_id, start.attempt, start.call) not in ended
    ]
    unknowable = min(open_starts) if open_starts else None
    result = dict(zip(where, served(timed), strict=True))

    cells: list[CellTime] = []
    for log in logs:
        counted = [r for r in runs[log] if r.status != RunStatus.infra_excluded]
        if not counted:
            continue
        server_s = waited = 0.0
        spend = Decimal(0)
        server_latency: list[float] = []
        exact = True
        n_calls = 0
        for run in counted:
            waits = 0.0
            for index, call in enumerate(run.calls):
                if (log, run.run_id, index) not in result:
                    continue
                seconds, wait = result[(log, run.run_id, index)]
                n_calls += 1
                server_s += seconds
                waits += wait
                waited += wait > 0
                spend += self_hosted_cost(seconds, pricing, model).compute_usd
                if (
                    unknowable is not None
                    and call.started_at + dt.timedelta(seconds=call.latency_s) > unknowable
                ):
                    exact = False
            server_latency.append(run.latency_s - waits)
        recorded = [r.latency_s for r in counted]
        cells.append(
            CellTime(
                workload=log.parent.parent.name,
                mode=log.stem,
                runs=len(counted),
                calls=n_calls,
                waited=int(waited),
                call_s=sum(c.latency_s for r in counted for c in r.calls),
                server_s=server_s,
                spend_usd=sum((r.cost.total_usd for r in counted), Decimal(0)),
                server_spend_usd=spend,
                latency_median_s=_percentile(recorded, 50),
                latency_p90_s=_percentile(recorded, 90),
                server_latency_median_s=_percentile(server_latency, 50),
                server_latency_p90_s=_percentile(server_latency, 90),
                exact=exact,
            )
        )
    return EditionTime(
        model=model, cells=cells, unknowable_after=unknowable, open_calls=len(open_starts)
    )


def _usd(value: Decimal) -> str:
    return f"${value:.6f}"


def cell_line(cell: CellTime) -> str:
    """One cell's figures as recorded → as the rule reconstructs them (quoted in errata)."""
    how = "exactly" if cell.exact else "at most"
    return (
        f"{cell.workload} {cell.mode}: {cell.waited} of {cell.calls} calls waited; call time "
        f"{cell.call_s:.1f} s recorded, server time {how} {cell.server_s:.1f} s; spend "
        f"{_usd(cell.spend_usd)} recorded, {how} {_usd(cell.server_spend_usd)}; latency median "
        f"{cell.latency_median_s:.1f} s → {how} {cell.server_latency_median_s:.1f} s, p90 "
        f"{cell.latency_p90_s:.1f} s → {how} {cell.server_latency_p90_s:.1f} s"
    )


def summary_line(model: str, cells: Sequence[CellTime]) -> str:
    recorded = sum((c.spend_usd for c in cells), Decimal(0))
    server = sum((c.server_spend_usd for c in cells), Decimal(0))
    call_s = sum(c.call_s for c in cells)
    server_s = sum(c.server_s for c in cells)
    return (
        f"{model}, {len(cells)} cells: call time {call_s:.1f} s recorded, server time at most "
        f"{server_s:.1f} s ({server_s / call_s:.0%}); spend {_usd(recorded)} recorded, at most "
        f"{_usd(server)} ({server / recorded:.0%})"
    )
