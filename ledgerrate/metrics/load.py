"""The I/O edge of the metrics: an edition's manifest, registration and logs as pandas frames.

Everything after this module is a pure function of what it returns. Money stays Decimal inside
the frames (object columns) so that no cent is lost before the figures are quantized.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import pandas as pd

from ledgerrate.core.hashing import canonical_json
from ledgerrate.core.io import FileProblem, iter_jsonl, load_model
from ledgerrate.core.layout import EditionPaths, cell_log_files
from ledgerrate.schema import (
    CallRecord,
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

RUN_COLUMNS = [
    "run_id", "workload", "model", "mode", "sitting", "item_id", "attempt", "started_at",
    "finished_at", "latency_s", "status", "simulated", "outside_window", "dataset_hash",
    "usage_basis", "cost_basis", "spend_usd", "input", "cached_input", "cache_write", "output",
    "reasoning", "failure", "unpriced_calls", "call_seconds", "cpu_seconds", "calls",
    "billed_calls", "billed_usd", "billed_computed_usd",
]  # fmt: skip
GRADE_COLUMNS = [
    "run_id", "workload", "model", "mode", "sitting", "item_id", "revision", "graded_at",
    "outcome", "judge_usd", "grader_hash", "rubric_hash", "diagnostics",
    "judge_passed", "second_passed", "human_passed", "human_scope", "judge_calls",
]  # fmt: skip

CellKey = tuple[str, str, str]  # (workload, model, mode)


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


def unpriced(call: CallRecord) -> bool:
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


def run_row(record: RunRecord) -> dict[str, object]:
    u = record.usage
    return {
        "run_id": record.run_id,
        "workload": record.workload,
        "model": record.model,
        "mode": str(record.mode),
        "sitting": record.sitting,
        "item_id": record.item_id,
        "attempt": record.attempt,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "latency_s": record.latency_s,
        "status": str(record.status),
        "simulated": record.simulated,
        "outside_window": record.outside_window,
        "dataset_hash": record.dataset_hash,
        "usage_basis": str(record.usage_basis),
        "cost_basis": str(record.cost_basis),
        "spend_usd": record.cost.total_usd,
        "input": u.input_tokens,
        "cached_input": u.cached_input_tokens,
        "cache_write": u.cache_write_tokens,
        "output": u.output_tokens,
        "reasoning": u.reasoning_tokens,
        "failure": record.failure,
        "unpriced_calls": sum(unpriced(call) for call in record.calls),
        # The seconds a time-priced cost is computed from, as cost.py rounds them: a
        # self-hosted model's calls' server time, a reference baseline's CPU time.
        "call_seconds": sum((priced_seconds(call.latency_s) for call in record.calls), Decimal(0)),
        "cpu_seconds": (None if record.cpu_seconds is None else priced_seconds(record.cpu_seconds)),
        **billed_columns(record.calls),
    }


def billed_columns(calls: list[CallRecord]) -> dict[str, object]:
    """The calls of a run, those that stated what they cost, that cost as stated and the model
    spend computed for the same calls (`metrics/billed.py` reconciles them per cell)."""
    billed = [c for c in calls if c.billed_usd is not None]
    return {
        "calls": len(calls),
        "billed_calls": len(billed),
        "billed_usd": sum((c.billed_usd or Decimal(0) for c in billed), Decimal(0)),
        "billed_computed_usd": sum((c.cost.model_usd for c in billed), Decimal(0)),
    }


def priced_seconds(seconds: float) -> Decimal:
    """Seconds as `cost.py` prices them: rounded to 6 decimals, read exactly."""
    return Decimal(str(round(seconds, 6)))


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


def grade_row(record: GradeRecord) -> dict[str, object]:
    judge = record.judge
    judge_usd = judge.cost.total_usd if judge else 0
    if judge and judge.second_opinion is not None:
        judge_usd += judge.second_opinion.cost.total_usd
    return {
        "run_id": record.run_id,
        "workload": record.workload,
        "model": record.model,
        "mode": str(record.mode),
        "sitting": record.sitting,
        "item_id": record.item_id,
        "revision": record.revision,
        "graded_at": record.graded_at,
        "outcome": str(record.outcome),
        "judge_usd": judge_usd,
        "grader_hash": record.grader_hash,
        "rubric_hash": judge.rubric_hash if judge else None,
        "diagnostics": dict(record.diagnostics),
        # The judged-task protocol's evidence (standard §5), read by metrics/protocol.py.
        "judge_passed": judge.passed if judge else None,
        "second_passed": (
            judge.second_opinion.passed if judge and judge.second_opinion is not None else None
        ),
        "human_passed": record.spotcheck.passed if record.spotcheck else None,
        "human_scope": record.spotcheck.scope if record.spotcheck else None,
        "judge_calls": judge_calls(judge),
    }


def runs_frame(records: Iterable[RunRecord]) -> pd.DataFrame:
    """Registered attempts only: a reproduction never enters a published figure."""
    rows = [run_row(r) for r in records if r.kind == "registered"]
    return pd.DataFrame(rows, columns=RUN_COLUMNS)


def grades_frame(records: Iterable[GradeRecord]) -> pd.DataFrame:
    return pd.DataFrame([grade_row(r) for r in records], columns=GRADE_COLUMNS)


def _read_logs(folder: Path, model: type[RunRecord] | type[GradeRecord], edition: str) -> Iterator:
    """Every record under folder/<workload>/<model>/<mode>.jsonl, checked against its path."""
    return _filed(((path, iter_jsonl(path, model)) for path in cell_log_files(folder)), edition)


def _filed(logs: Iterable[tuple[Path, Iterable]], edition: str) -> Iterator:
    """The records of each (log path, its records), checked against the cell of their path.

    Streamed: each record becomes a frame row as it is read and is then let go, so an
    edition's records are never all held as objects at once (only the frame's columns are)."""
    for path, found in logs:
        workload, model_id, mode = path.parent.parent.name, path.parent.name, path.stem
        for number, record in enumerate(found, start=1):
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


def cell_logs(folder: Path, logs: Iterable[tuple[Path, Iterable]]) -> list:
    """Of (log path, records) pairs, those of `folder/<workload>/<model>/<mode>.jsonl`, in the
    order `load_inputs` reads them (a caller that has already read the logs passes them)."""
    return sorted(
        ((path, records) for path, records in logs if path.parent.parent.parent == folder),
        key=lambda pair: pair[0],
    )


def load_inputs(
    edition_dir: Path,
    *,
    run_logs: Iterable[tuple[Path, Iterable[RunRecord]]] | None = None,
    grade_logs: Iterable[tuple[Path, Iterable[GradeRecord]]] | None = None,
) -> EditionInputs:
    """The edition's inputs, its logs read here or, when given, from records already read
    (each as (path, records), e.g. verify's single parse; only cell logs are used)."""
    root = Path(edition_dir)
    manifest, registration, pricing = _load_parts(root)
    paths = EditionPaths(root)
    if run_logs is None:
        runs = _read_logs(paths.runs_dir, RunRecord, manifest.id)
    else:
        runs = _filed(cell_logs(paths.runs_dir, run_logs), manifest.id)
    if grade_logs is None:
        grades = _read_logs(paths.grades_dir, GradeRecord, manifest.id)
    else:
        grades = _filed(cell_logs(paths.grades_dir, grade_logs), manifest.id)
    return EditionInputs(
        root=root,
        manifest=manifest,
        registration=registration,
        runs=runs_frame(runs),
        grades=grades_frame(grades),
        flags=spotcheck_flags(root),
        probe_spend=_probe_spend(paths, pricing),
        pricing=pricing,
        manual=manual_sittings(paths),
    )
