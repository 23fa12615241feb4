"""The raw logs hold what the registration says they hold: nothing more, nothing less.

Each line of a registered run log must be derivable from the registration (its run id is the
hash of edition, sitting, cell, item and attempt), answer an item of the registered dataset,
start inside the window (or say it did not), and be the only final record of its item in its
sitting. Each registered cell must have, in every sitting it opened, exactly one final record
per item, unless an erratum withdrew the cell. A problem is reported against the log and line
that holds it, with the rule it breaks, so a forged or dropped record is never blamed on the
figures it changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from ledgerrate.core.hashing import canonical_json
from ledgerrate.core.io import FileProblem, load_model
from ledgerrate.core.layout import BY_HAND, MANUAL_MODEL, EditionPaths
from ledgerrate.schema import (
    DatasetCard,
    EditionManifest,
    ErrataFile,
    ManualSitting,
    Mode,
    Registration,
    RunRecord,
    RunStatus,
)
from ledgerrate.verify.parsed import EditionLogs, ParsedLog
from ledgerrate.verify.report import Report

LOGS = "run logs hold exactly the registered runs"
FINAL = frozenset({RunStatus.completed, RunStatus.model_failure})


def derived_run_id(record: RunRecord) -> str:
    """The run id the registration implies, re-derived here from the record's own key (the
    runner's derivation is not imported: verify re-derives, it never reuses the writer)."""
    fields: list[object] = [
        record.edition,
        record.sitting,
        record.workload,
        record.model,
        record.mode.value,
        record.item_id,
        record.attempt,
    ]
    key = canonical_json(fields if record.kind == "registered" else [record.kind, *fields])
    return "r-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


def registered_cells(
    manifest: EditionManifest, registration: Registration, lookup: Callable
) -> list[tuple[str, str, str]]:
    """Every (workload, model, mode) the edition promised: each model in each of the
    workload's modes; a reference baseline once, single-shot where the workload allows it."""
    cells: list[tuple[str, str, str]] = []
    for entry in manifest.workloads:
        if entry.id not in registration.workloads:
            continue
        try:
            workload = lookup(entry.id)
        except KeyError:
            continue  # reported as a registration mismatch
        modes = list(workload.modes)
        for spec in manifest.models:
            if spec.is_reference:
                if workload.baseline is None:
                    continue
                single = Mode.single_shot.value
                chosen = [single if single in modes else modes[0]]
            else:
                chosen = modes
            cells.extend((entry.id, spec.id, mode) for mode in chosen)
    return cells


def manual_cells(paths: EditionPaths, manifest: EditionManifest) -> list[tuple[str, str, str]]:
    """The manual arm's cells: a workload of the edition with a recorded sitting that is not
    void (a void sitting has no run records, ARCHITECTURE.md §12)."""
    listed = {entry.id for entry in manifest.workloads}
    cells = []
    for workload, found in paths.manual_sittings().items():
        sittings = [load_model(ManualSitting, path) for path in found]
        if workload in listed and any(not s.void_reasons for s in sittings):
            cells.append((workload, MANUAL_MODEL, BY_HAND))
    return cells


def check_run_logs(
    paths: EditionPaths,
    manifest: EditionManifest,
    registration: Registration,
    lookup: Callable,
    report: Report,
    *,
    published: bool,
    logs: EditionLogs | None = None,
) -> None:
    logs = logs if logs is not None else EditionLogs.read(paths.root)
    cells = [*registered_cells(manifest, registration, lookup), *manual_cells(paths, manifest)]
    expected_logs = {paths.runs(*cell) for cell in cells}
    for log in sorted(paths.runs_dir.rglob("*.jsonl")):
        report.expect(
            LOGS,
            log in expected_logs,
            file=log.relative_to(paths.root).as_posix(),
            field="cell",
            expected="the log of a registered cell (runs/<workload>/<model>/<mode>.jsonl)",
            found="no such cell in edition.yaml and registration.json",
        )
    withdrawn = _withdrawn_cells(paths)
    graded = _graded_run_ids(logs)
    for workload, model, mode in cells:
        items = _card_items(paths, workload)
        if items is None:
            continue  # a missing card is reported by the dataset checks
        log = paths.runs(workload, model, mode)
        rel = log.relative_to(paths.root).as_posix()
        finals = _check_lines(
            logs.run_log(log), rel, paths, manifest, (workload, model, mode), items, report
        )
        if (workload, model, mode) in withdrawn:
            erratum = withdrawn[(workload, model, mode)]
            report.notes.append(
                f"{rel}: withdrawn by erratum {erratum}, so its items are not required"
            )
            continue
        sittings = sorted({sitting for sitting, _item in finals}) or [1]
        for sitting in sittings:
            for item in items:
                seen = finals.get((sitting, item))
                if seen is None:
                    _missing(report, rel, sitting, item, published)
                    continue
                report.expect(LOGS, True, file=rel)
                record = seen[1]
                completed = record is not None and record.status == RunStatus.completed
                if published and record is not None and completed and record.run_id not in graded:
                    report.fail(
                        LOGS,
                        file=rel,
                        record=f"line {seen[0]}",
                        field="grade",
                        expected=f"a grade record for run {record.run_id} ({item})",
                        found="none in grades/",
                    )


def _missing(report: Report, rel: str, sitting: int, item: str, published: bool) -> None:
    text = f"no final record (completed or model-failure) for {item} in sitting {sitting}"
    if not published:
        report.notes.append(f"{rel}: {text} yet")
        return
    report.fail(
        LOGS,
        file=rel,
        record=item,
        field=f"sitting {sitting}",
        expected="exactly one final record per item per sitting, or an erratum withdrawing "
        "the cell",
        found=text,
    )


def _check_lines(
    log: ParsedLog[RunRecord] | None,
    rel: str,
    paths: EditionPaths,
    manifest: EditionManifest,
    cell: tuple[str, str, str],
    items: list[str],
    report: Report,
) -> dict[tuple[int, str], tuple[int, RunRecord | None]]:
    """Per-line rules; returns (sitting, item) → (line, final record)."""
    finals: dict[tuple[int, str], tuple[int, RunRecord | None]] = {}
    attempts: dict[tuple[int, str, int], int] = {}
    window = manifest.window
    known = set(items)
    if log is None or log.problem is not None:
        return finals  # absent (reported below as missing items), or reported by the schemas
    for number, record in log.numbered:
        where = f"line {number}"

        def rule(ok: bool, field: str, expected: object, found: object, where=where) -> bool:
            return report.expect(
                LOGS, ok, file=rel, record=where, field=field, expected=expected, found=found
            )

        key = (record.workload, record.model, record.mode.value)
        rule(key == cell, "workload/model/mode", "/".join(cell), "/".join(key))
        rule(record.edition == paths.id, "edition", paths.id, record.edition)
        rule(record.kind == "registered", "kind", "registered", record.kind)
        derived = derived_run_id(record)
        rule(
            record.run_id == derived,
            "run_id (derivable from the registration)",
            derived,
            record.run_id,
        )
        if not rule(
            record.item_id in known, "item_id", "an item of the registered dataset", record.item_id
        ):
            continue
        inside = window.opens <= record.started_at <= window.closes
        rule(
            inside or record.outside_window,
            "started_at (inside the window)",
            f"{window.opens.isoformat()} – {window.closes.isoformat()}, or outside_window: true",
            record.started_at.isoformat(),
        )
        slot = (record.sitting, record.item_id, record.attempt)
        if slot in attempts:
            rule(
                False,
                "attempt (one record per attempt)",
                f"attempt {record.attempt} of {record.item_id} in sitting {record.sitting} once",
                f"again after line {attempts[slot]} (a duplicated record)",
            )
            continue
        attempts[slot] = number
        if record.status in FINAL:
            earlier = finals.get((record.sitting, record.item_id))
            if rule(
                earlier is None,
                "item (one final record per sitting)",
                f"one final record of {record.item_id} in sitting {record.sitting}",
                f"a second one after line {earlier[0] if earlier else 0} (duplicate item in a "
                "sitting)",
            ):
                finals[(record.sitting, record.item_id)] = (number, record)
    return finals


def _card_items(paths: EditionPaths, workload: str) -> list[str] | None:
    try:
        card = load_model(DatasetCard, paths.card(workload))
    except FileProblem:
        return None
    return [item.id for item in card.items]


def _withdrawn_cells(paths: EditionPaths) -> dict[tuple[str, str, str], str]:
    """Cells an erratum withdrew (a pass rate with `new: null`): their explicit void."""
    if not paths.errata.exists():
        return {}
    try:
        errata = load_model(ErrataFile, paths.errata)
    except FileProblem:
        return {}
    return {
        (fig.workload, fig.model, fig.mode.value): entry.id
        for entry in errata.entries
        for fig in entry.figures
        if fig.new is None and fig.field == "pass_rate" and fig.workload and fig.model and fig.mode
    }


def _graded_run_ids(logs: EditionLogs) -> set[str]:
    # A log with a bad line contributes the grades before it (the schema check reports it).
    return {grade.run_id for log in logs.grades for grade in log.grade_facts}
