"""Re-run an edition's reference baselines from its released seeds and compare with the logs.

Issue #5: anyone holding the released seeds must be able to regenerate each dataset, re-run the
deterministic baseline solvers and get the logged answers and the stored grades back exactly.
This module does that comparison and returns every difference as one readable line naming
edition, cell, item and field; the tests assert the list is empty and that something was
actually compared.

Only answers and grades are compared. The cost of a baseline is the CPU time the solver took on
the machine that ran it (priced at the edition's compute rate), which no re-run reproduces, so
`cpu_seconds`, `cost`, `latency_s` and timestamps are deliberately left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from ledgerrate import workloads
from ledgerrate.core.edition import load_edition, require_registration
from ledgerrate.core.hashing import canonical_json
from ledgerrate.core.io import load_model, read_jsonl
from ledgerrate.generate.seeds import dataset_for, load_seeds
from ledgerrate.grade.stage import latest_grades
from ledgerrate.metrics.load import runs_frame
from ledgerrate.metrics.sittings import choose_sitting, counted_attempts
from ledgerrate.schema import (
    ErrataFile,
    GradeRecord,
    Mode,
    Outcome,
    RunRecord,
    RunStatus,
)
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, Workload
from ledgerrate.workloads.reference import is_harness_failure

_STATE = TypeAdapter(dict[str, Any])


class DatasetCache:
    """Regenerated datasets, keyed by what `dataset_for` checks them against.

    The key is the workload, its released seed entry and its sealed registration entry: two
    editions (or two copies of one) that agree on those get the same dataset from the same
    code, so regenerating it again would prove nothing new and costs seconds for PDF datasets.
    """

    def __init__(self) -> None:
        self._held: dict[tuple[str, str, str], Dataset] = {}
        self.regenerated = 0

    def get(self, edition_dir: Path, workload_id: str) -> Dataset:
        edition = load_edition(edition_dir)
        sealed = require_registration(edition).workloads[workload_id]
        entry = load_seeds(edition.paths).seeds.get(workload_id)
        key = (
            workload_id,
            entry.model_dump_json() if entry is not None else "",
            sealed.model_dump_json(),
        )
        if key not in self._held:
            # dataset_for opens the seed commitment and checks the dataset hash; it raises
            # UsageProblem (failing the test loudly) when either does not match.
            self._held[key] = dataset_for(edition_dir, workload_id)
            self.regenerated += 1
        return self._held[key]


@dataclass
class Reproduction:
    """What one edition's comparison covered and every difference it found."""

    edition: str
    cells: list[str] = field(default_factory=list)
    items_checked: int = 0
    differences: list[str] = field(default_factory=list)
    explained: list[str] = field(default_factory=list)

    def report(self) -> str:
        head = (
            f"edition {self.edition}: {len(self.differences)} difference(s) over "
            f"{self.items_checked} item(s) in {len(self.cells)} baseline cell(s)"
        )
        return "\n".join([head, *(f"  - {d}" for d in self.differences)])


@dataclass(frozen=True)
class _Rerun:
    """A baseline re-run, shaped the way `workloads/reference.py` logs it."""

    status: RunStatus
    failure: str | None
    answer: str | None
    tool_state: dict[str, Any] | None


def rerun_baseline(workload: Workload, item: Item, dataset: Dataset) -> _Rerun:
    """Run the solver exactly as the runner's baseline provider does.

    `workloads/reference.py` calls `workload.baseline(item, dataset)` directly in every mode:
    no sandbox and no tool loop, even for an agentic-only workload; the solver's own
    `Answer.tool_state` is what the record stores. A solver exception becomes a model failure
    with the text "baseline raised <Type>: <message>".
    """
    assert workload.baseline is not None
    try:
        answer = workload.baseline(item, dataset)
    except Exception as exc:  # mirrors the provider: a crash is that run's failure
        return _Rerun(
            RunStatus.model_failure, f"baseline raised {type(exc).__name__}: {exc}", None, None
        )
    state = dict(answer.tool_state) if answer.tool_state is not None else None
    return _Rerun(RunStatus.completed, None, answer.text, as_logged(state))


def as_logged(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """The tool state as it reads back from the log (pydantic JSON dump, canonical JSON).

    Tuples become lists and so on; comparing after the same round trip means a difference is a
    real difference in content, not in Python container types.
    """
    if state is None:
        return None
    return json.loads(canonical_json(_STATE.dump_python(state, mode="json")))


def _baseline_cells(root: Path, baseline_models: set[str]) -> list[tuple[str, str, Mode, Path]]:
    cells = []
    for path in sorted((root / "runs").glob("*/*/*.jsonl")):
        workload_id, model_id, mode = path.parent.parent.name, path.parent.name, path.stem
        if model_id in baseline_models:
            cells.append((workload_id, model_id, Mode(mode), path))
    return cells


def _published_attempts(records: list[RunRecord], n: int) -> tuple[int, list[RunRecord]]:
    """The published sitting and its counted attempt per item, as the metrics choose them."""
    frame = runs_frame(records)
    sitting, _others = choose_sitting(frame, n)
    counted = counted_attempts(frame[frame["sitting"] == sitting])
    by_id = {r.run_id: r for r in records}
    return sitting, [by_id[run_id] for run_id in counted["run_id"]]


def expected_outcome(workload: Workload, grade: Grade, stored: GradeRecord) -> Outcome:
    """The outcome `grade/stage.py` gives this grade, taking a judge's verdict as stored.

    A judge's verdict is a model's opinion that no offline re-run reproduces; when a judge did
    grade the run its stored verdict decides the judged part, and when none did the stage must
    have written exactly `pending-judge`.
    """
    if not grade.deterministic_pass:
        return Outcome.failed
    if not (workload.judged and grade.needs_judge):
        return Outcome.passed
    verdict = stored.judge.passed if stored.judge is not None else None
    if verdict is None:
        return Outcome.pending_judge
    return Outcome.passed if verdict else Outcome.failed


def compare_edition(edition_dir: Path, cache: DatasetCache) -> Reproduction:
    """Re-run every baseline cell of an edition and list each answer or grade that differs."""
    edition = load_edition(edition_dir)
    registration = require_registration(edition)
    result = Reproduction(edition=edition.manifest.id)
    withdrawn = withdrawn_cells(edition.paths.root)
    baseline_models = {m.id for m in edition.manifest.models if m.is_reference}
    for workload_id, model_id, mode, runs_path in _baseline_cells(
        edition.paths.root, baseline_models
    ):
        cell = f"{workload_id}/{model_id}/{mode.value}"
        result.cells.append(cell)
        workload = workloads.get(workload_id)
        dataset = cache.get(edition.paths.root, workload_id)
        sealed = registration.workloads[workload_id]
        records = [r for r in read_jsonl(runs_path, RunRecord) if r.kind == "registered"]
        sitting, counted = _published_attempts(records, sealed.n_items)
        grades = latest_grades(edition.paths.grades(workload_id, model_id, mode.value))
        attempted = {r.item_id for r in counted}
        # The dataset's hash once per cell, not once per run: canonical JSON of a PDF dataset
        # costs a tenth of a second, and every run of the cell must name the same hash.
        regenerated = dataset.hash_for(registration.hash_scheme)
        for item in dataset.items:
            if item.id not in attempted:
                result.differences.append(
                    f"{result.edition} {cell} item {item.id}: no counted attempt in the "
                    f"published sitting {sitting}, so nothing to reproduce"
                )
        for run in counted:
            where = f"{result.edition} {cell} item {run.item_id} (run {run.run_id})"
            result.items_checked += 1
            found = _compare_run(where, workload, dataset, regenerated, run, grades.get(run.run_id))
            erratum = withdrawn.get((workload_id, model_id, mode.value))
            if found and erratum and is_harness_failure(run.failure):
                # A logged machine fault does not reproduce by nature; it is accepted only when
                # an erratum has withdrawn the cell's figures because of it.
                result.explained += [f"{d} (explained by erratum {erratum})" for d in found]
                continue
            result.differences += found
    return result


def withdrawn_cells(edition_dir: Path) -> dict[tuple[str, str, str], str]:
    """Cells whose pass rate an erratum withdrew: (workload, model, mode) → erratum id."""
    path = edition_dir / "errata.yaml"
    if not path.exists():
        return {}
    errata = load_model(ErrataFile, path)
    return {
        (fig.workload, fig.model, str(fig.mode)): entry.id
        for entry in errata.entries
        for fig in entry.figures
        if fig.new is None and fig.field == "pass_rate" and fig.workload and fig.model
    }


def _compare_run(
    where: str,
    workload: Workload,
    dataset: Dataset,
    regenerated: str,
    run: RunRecord,
    stored: GradeRecord | None,
) -> list[str]:
    out: list[str] = []
    if run.dataset_hash != regenerated:
        out.append(_diff(where, "dataset_hash", run.dataset_hash, regenerated))
    try:
        item = dataset.item(run.item_id)
    except KeyError:
        return [*out, f"{where}: item is not in the regenerated dataset"]
    again = rerun_baseline(workload, item, dataset)
    for name in ("status", "failure", "answer", "tool_state"):
        logged, rerun = getattr(run, name), getattr(again, name)
        if logged != rerun:
            out.append(_diff(where, name, logged, rerun))
    if stored is None:
        return [*out, f"{where}: no grade record for this counted run"]
    if again.status == RunStatus.model_failure:
        # The grade stage does not call the grader on a failed run: one failing check.
        checks = [("run_completed", False)]
        outcome = Outcome.failed
    else:
        # Graded the way the stage grades: on the answer as it reads back from the log.
        grade = workload.grade(item, Answer(again.answer or "", again.tool_state))
        checks = [(c.name, c.passed) for c in grade.checks]
        outcome = expected_outcome(workload, grade, stored)
    if stored.outcome != outcome:
        out.append(
            _diff(
                where,
                f"grade outcome (revision {stored.revision})",
                stored.outcome.value,
                outcome.value,
            )
        )
    stored_checks = [(c.name, c.passed) for c in stored.checks]
    if [name for name, _ in stored_checks] != [name for name, _ in checks]:
        label = f"grade check names (revision {stored.revision})"
        out.append(_diff(where, label, stored_checks, checks))
    else:
        for (name, logged), (_, rerun) in zip(stored_checks, checks, strict=True):
            if logged != rerun:
                label = f"grade check {name!r} (revision {stored.revision})"
                out.append(_diff(where, label, logged, rerun))
    return out


def _diff(where: str, name: str, logged: object, rerun: object) -> str:
    lines = [f"{where}: {name} differs"]
    path = first_difference(logged, rerun)
    if path:
        # A long tool state truncates in the excerpt; say exactly where the two part ways.
        lines.append(f"      first difference at {path}")
    lines += [f"      logged: {_show(logged)}", f"      re-run: {_show(rerun)}"]
    return "\n".join(lines)


def first_difference(a: object, b: object, path: str = "$") -> str | None:
    """JSON path of the first place two nested values differ; None when equal or scalar."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}"
            inner = first_difference(a[key], b[key], f"{path}.{key}")
            if inner is not None:
                return inner
        return None
    if isinstance(a, list) and isinstance(b, list):
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            inner = first_difference(x, y, f"{path}[{index}]")
            if inner is not None:
                return inner
        return None if len(a) == len(b) else f"{path} (length {len(a)} vs {len(b)})"
    if a != b and path != "$":
        return path
    return None


def _show(value: object, limit: int = 300) -> str:
    text = value if isinstance(value, str) else canonical_json(value)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"
