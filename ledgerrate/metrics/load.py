"""The I/O edge of the metrics: an edition's manifest, registration and logs as pandas frames.

Everything after this module is a pure function of what it returns. Money stays Decimal inside
the frames (object columns) so that no cent is lost before the figures are quantized.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from ledgerrate.core.hashing import canonical_json
from ledgerrate.core.io import FileProblem, load_model
from ledgerrate.core.layout import EditionPaths, cell_log_files
from ledgerrate.metrics import columns
from ledgerrate.schema import (
    EditionManifest,
    GradeRecord,
    JudgeBlock,
    ManualSitting,
    PricingTable,
    ProbeSpend,
    Registration,
    RunRecord,
    UsageBasis,
)

# The columns of `key_values`, first in both frames.
KEY_COLUMNS = ["run_id", "workload", "model", "mode", "sitting", "item_id"]
RUN_COLUMNS = [
    *KEY_COLUMNS, "attempt", "started_at",
    "finished_at", "latency_s", "status", "simulated", "outside_window", "dataset_hash",
    "usage_basis", "cost_basis", "spend_usd", "input", "cached_input", "cache_write", "output",
    "reasoning", "failure", "unpriced_calls", "call_latencies", "cpu_seconds", "calls",
    "billed_calls", "billed_usd", "billed_computed_usd",
]  # fmt: skip
GRADE_COLUMNS = [
    *KEY_COLUMNS, "revision", "graded_at",
    "outcome", "judge_usd", "grader_hash", "rubric_hash", "diagnostics",
    "judge_passed", "second_passed", "human_passed", "human_scope", "judge_costs", "judge_json",
]  # fmt: skip

CellKey = tuple[str, str, str]  # (workload, model, mode)
R = TypeVar("R", columns.Run, columns.Grade)


@dataclass(frozen=True)
class EditionInputs:
    """Everything the figures of one edition are computed from."""

    root: Path
    manifest: EditionManifest
    registration: Registration | None
    runs: pd.DataFrame
    grades: pd.DataFrame
    flags: Mapping[CellKey, list[str]] = field(default_factory=dict)
    probe_spend: list[ProbeSpend] = field(default_factory=list)
    """Each model's tools probe spend (`probes/`), outside every cell."""
    pricing: PricingTable | None = None
    """The frozen price table: which cells are priced by time, and at what hourly rate."""
    manual: Mapping[str, list[ManualSitting]] = field(default_factory=dict)
    """The manual arm's recorded sittings by workload, in sitting order (ARCHITECTURE.md §12)."""

    # Each frame split by workload once, on first use (not a mask per workload).
    _parts: dict[str, dict[str, pd.DataFrame]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def runs_of(self, workload: str) -> pd.DataFrame:
        return self._part("runs", self.runs, workload)

    def grades_of(self, workload: str) -> pd.DataFrame:
        return self._part("grades", self.grades, workload)

    def _part(self, name: str, frame: pd.DataFrame, workload: str) -> pd.DataFrame:
        if name not in self._parts:
            self._parts[name] = (
                {} if frame.empty else dict(tuple(frame.groupby("workload", sort=False)))
            )
        return self._parts[name].get(workload, frame.iloc[0:0])


def unpriced(call: columns.Call) -> bool:
    """An unfinished call recorded before its server time was bounded: latency 0 and so, for a
    self-hosted model, $0, though its time and spend are unknown, not zero (run/unfinished.py
    now records an upper bound with its basis in `latency_estimate`)."""
    return (
        call.latency_s == 0
        and call.latency_estimate is None
        and call.usage_basis == UsageBasis.estimated
        and call.cost.total_usd == 0
        and (call.error or "").startswith("unfinished")
    )


def key_values(record: columns.Keyed) -> tuple[object, ...]:
    """A run's or a grade's values in the order of `KEY_COLUMNS`."""
    return (
        record.run_id,
        record.workload,
        record.model,
        str(record.mode),
        record.sitting,
        record.item_id,
    )


def run_row(record: columns.Run) -> tuple[object, ...]:
    """A run's values in the order of `RUN_COLUMNS`."""
    u = record.usage
    calls = record.calls
    billed = [c for c in calls if c.billed_usd is not None]
    return (
        *key_values(record),
        record.attempt,
        record.started_at,
        record.finished_at,
        record.latency_s,
        str(record.status),
        record.simulated,
        record.outside_window,
        record.dataset_hash,
        str(record.usage_basis),
        str(record.cost_basis),
        record.cost.total_usd,
        u.input_tokens,
        u.cached_input_tokens,
        u.cache_write_tokens,
        u.output_tokens,
        u.reasoning_tokens,
        record.failure,
        # Only a call of latency 0 can be unpriced: the others are not asked.
        sum(1 for call in calls if call.latency_s == 0 and unpriced(call)),
        # The seconds a time-priced cost is computed from: a self-hosted model's calls' server
        # time (each call's, priced by `call_seconds` only for a cell priced by time, which few
        # are), a reference baseline's CPU time, as cost.py rounds them.
        [call.latency_s for call in calls],
        None if record.cpu_seconds is None else priced_seconds(record.cpu_seconds),
        # The calls of a run, those that stated what they cost, that cost as stated and the
        # model spend computed for the same calls (`metrics/billed.py` reconciles them per cell).
        len(calls),
        len(billed),
        *(_billed_sums(billed) if billed else (Decimal(0), Decimal(0))),
    )


def _billed_sums(billed: list[columns.Call]) -> tuple[Decimal, Decimal]:
    """What the calls that stated their cost stated, and their model spend as computed (most
    runs have no such call, and are not summed)."""
    return (
        sum((columns.usd(c.billed_usd) for c in billed if c.billed_usd), Decimal(0)),
        sum((columns.usd(c.cost.model_usd) for c in billed), Decimal(0)),
    )


def priced_seconds(seconds: float) -> Decimal:
    """Seconds as `cost.py` prices them: rounded to 6 decimals, read exactly."""
    return Decimal(str(round(seconds, 6)))


def call_seconds(latencies: Iterable[float]) -> Decimal:
    """A run's calls' server time as `cost.py` prices it (the `call_latencies` of a run)."""
    return sum((priced_seconds(latency) for latency in latencies), Decimal(0))


def judge_calls(judge: JudgeBlock | None) -> tuple[tuple[str, Decimal], ...]:
    """Each judge call a grade record holds, as (its block as canonical JSON, its cost): the
    first opinion without its second, then the second (see metrics/grading_cost.py)."""
    if judge is None:
        return ()
    first = judge.model_dump(mode="json", exclude={"second_opinion"})
    calls = [(canonical_json(first), judge.cost.total_usd)]
    if judge.second_opinion is not None:
        second = judge.second_opinion
        calls.append((canonical_json(second.model_dump(mode="json")), second.cost.total_usd))
    return tuple(calls)


def grade_row(record: columns.Grade) -> tuple[object, ...]:
    """A grade's values in the order of `GRADE_COLUMNS`."""
    judge = columns.judge_of(record)
    second = judge.second_opinion if judge else None
    costs: tuple[Decimal, ...] = () if judge is None else (judge.cost.total_usd,)
    judge_usd: Decimal | int = costs[0] if costs else 0
    if second is not None:
        costs += (second.cost.total_usd,)
        judge_usd += costs[1]
    spot = record.spotcheck
    return (
        *key_values(record),
        record.revision,
        record.graded_at,
        str(record.outcome),
        judge_usd,
        record.grader_hash,
        judge.rubric_hash if judge else None,
        dict(record.diagnostics),
        # The judged-task protocol's evidence (standard §5), read by metrics/protocol.py.
        judge.passed if judge else None,
        second.passed if second is not None else None,
        spot.passed if spot else None,
        spot.scope if spot else None,
        costs,
        bytes(record.judge) if judge else None,
    )


# Text columns that always hold a string, kept as Python objects: pandas would copy each into
# its string dtype and every `tolist` back again (about 0.2 CPU-s of a 215-model edition's
# `results`), for the same values, compared, sorted and grouped the same way. Columns that may
# hold None are left to pandas, which reads None as its missing value as the figures expect.
PLAIN_TEXT = {
    "run_id", "workload", "model", "mode", "item_id", "status", "dataset_hash", "usage_basis",
    "cost_basis", "outcome", "grader_hash",
}  # fmt: skip


def _frame(rows: Iterable[tuple[object, ...]], names: list[str]) -> pd.DataFrame:
    """Rows into a frame, column by column."""
    found = list(zip(*rows, strict=True))
    if not found:
        return pd.DataFrame([], columns=names)
    return pd.DataFrame(
        {
            name: pd.Series(values, dtype=object) if name in PLAIN_TEXT else list(values)
            for name, values in zip(names, found, strict=True)
        },
        columns=names,
    )


def runs_frame(records: Iterable[RunRecord | columns.Run]) -> pd.DataFrame:
    return _runs_frame(_as(records, columns.Run))


def grades_frame(records: Iterable[GradeRecord | columns.Grade]) -> pd.DataFrame:
    return _grades_frame(_as(records, columns.Grade))


def _runs_frame(runs: Iterable[columns.Run]) -> pd.DataFrame:
    """Registered attempts only: a reproduction never enters a published figure."""
    return _frame((run_row(r) for r in runs if r.kind == "registered"), RUN_COLUMNS)


def _grades_frame(grades: Iterable[columns.Grade]) -> pd.DataFrame:
    return _frame(map(grade_row, grades), GRADE_COLUMNS)


def _as(records: Iterable[Any], kind: type[R]) -> Iterator[R]:
    """Records as the column reader's structs; schema models (a test's records) are read from
    the JSON the schema writes of them, so both take the one path to a row."""
    for record in records:
        if isinstance(record, kind):
            yield record
        else:
            yield from columns.from_records([record], kind)


def _read_logs(folder: Path, kind: type[R], edition: str) -> Iterator[R]:
    """Every record under folder/<workload>/<model>/<mode>.jsonl, checked against its path."""
    for path in cell_log_files(folder):
        workload, model_id, mode = path.parent.parent.name, path.parent.name, path.stem
        records = columns.read_log(path, kind)
        # A log's records all name its cell and edition: one set says so, and only a log where
        # one does not is read record by record to name it.
        named = {(r.workload, r.model, r.mode, r.edition) for r in records}
        if all((w, m, str(d), e) == (workload, model_id, mode, edition) for w, m, d, e in named):
            yield from records
            continue
        for number, record in enumerate(records, start=1):
            # A record filed under the wrong cell or edition would silently move a figure.
            found = (record.workload, record.model, str(record.mode))
            if found != (workload, model_id, mode) or record.edition != edition:
                raise FileProblem(
                    path,
                    [
                        f"{path}: record {number} ({record.run_id}) belongs to "
                        f"{record.edition}/{'/'.join(found)}, not the cell of this file"
                    ],
                )
            yield record


def _load_parts(root: Path) -> tuple[EditionManifest, Registration | None, PricingTable | None]:
    try:
        from ledgerrate.core.edition import load_edition
    except ImportError:  # the shared loader is optional: read the files ourselves
        paths = EditionPaths(root)
        manifest = load_model(EditionManifest, paths.manifest)
        registration = (
            load_model(Registration, paths.registration) if paths.registration.exists() else None
        )
        pricing = load_model(PricingTable, paths.pricing) if paths.pricing.exists() else None
        return manifest, registration, pricing
    edition = load_edition(root)
    return edition.manifest, edition.registration, edition.pricing


def _probe_spend(paths: EditionPaths, pricing: PricingTable | None) -> list[ProbeSpend]:
    """Each model's tools probe spend, every call priced afresh at the frozen prices."""
    from ledgerrate.core.probe_spend import probe_spend, read_probes

    probes = read_probes(paths)
    if not probes:
        return []
    if pricing is None:
        raise FileProblem(
            paths.pricing,
            [
                f"{paths.pricing}: missing; the tools probes in {paths.probes_dir} are priced "
                "from it, so restore the edition's frozen price table"
            ],
        )
    return probe_spend(probes, pricing)


def spotcheck_flags(root: Path) -> dict[CellKey, list[str]]:
    """Cell flags from the spot-check stage (e.g. "full manual regrade required")."""
    from ledgerrate.core.spotcheck_flags import flags_for

    return {key: list(messages) for key, messages in flags_for(root).items()}


def manual_sittings(paths: EditionPaths) -> dict[str, list[ManualSitting]]:
    """Every recorded manual sitting, by workload (`manual import` writes them)."""
    return {
        workload: [load_model(ManualSitting, path) for path in found]
        for workload, found in paths.manual_sittings().items()
    }


def load_inputs(edition_dir: Path) -> EditionInputs:
    """The edition's inputs, its logs read into columns (metrics/columns.py)."""
    root = Path(edition_dir)
    manifest, registration, pricing = _load_parts(root)
    paths = EditionPaths(root)
    return EditionInputs(
        root=root,
        manifest=manifest,
        registration=registration,
        runs=_runs_frame(_read_logs(paths.runs_dir, columns.Run, manifest.id)),
        grades=_grades_frame(_read_logs(paths.grades_dir, columns.Grade, manifest.id)),
        flags=spotcheck_flags(root),
        probe_spend=_probe_spend(paths, pricing),
        pricing=pricing,
        manual=manual_sittings(paths),
    )
