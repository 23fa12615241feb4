"""The interchange format for any other harness: one run record per line (`--format jsonl`).

Each line is a run record exactly as `ledgerrate schema` publishes it (`run-record.schema.json`)
and as the site's raw logs hold them, with the request whole in `request` (the `bodies/` folder
of `request_stored` belongs to the edition that wrote it). What the line says about its place in
the edition (run id, sitting, attempt, kind) and about money (cost, cost basis) is not taken:
`admit` gives it the next attempt of its item in the cell's open sitting and prices every call's
usage at the frozen prices. Everything else is checked like an Inspect sample.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from ledgerrate.core.errors import UsageProblem
from ledgerrate.ingest.incoming import Incoming, LogInfo
from ledgerrate.schema import RunRecord


def read_interchange(path: Path, sha256: str) -> list[Incoming]:
    info = LogInfo(path_name=path.name, sha256=sha256, harness="jsonl")
    incoming: list[Incoming] = []
    problems: list[str] = []
    for number, line in enumerate(path.read_bytes().split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            record = RunRecord.model_validate_json(line)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in error["loc"]) or "(line)"
            problems.append(
                f"{path}: line {number}: {where}: {error['msg']}; each line must be one run "
                "record as `ledgerrate schema` publishes it (run-record.schema.json)"
            )
            continue
        if record.request is None:
            problems.append(
                f"{path}: line {number}: request: null; put the first request body whole in "
                "`request` (`request_stored` points into another edition's bodies/ folder)"
            )
            continue
        if record.simulated or record.outside_window:
            flag = "simulated" if record.simulated else "outside_window"
            problems.append(
                f"{path}: line {number}: {flag}: true; only real runs inside the edition's "
                "window can be ingested"
            )
            continue
        source = record.source
        line_info = info
        if source is not None:
            # A harness may say who it is; the log named here is still the file read.
            line_info = LogInfo(
                path_name=info.path_name,
                sha256=sha256,
                harness="jsonl",
                harness_version=source.harness_version,
                eval_id=source.eval_id,
                task=source.task,
            )
        incoming.append(
            Incoming(
                log=line_info,
                sample=f"line {number}",
                edition=record.edition,
                workload=record.workload,
                item_id=record.item_id,
                mode=record.mode.value,
                model_name=record.model,
                model_id=record.model,
                sent=[],
                prompt_hash=record.prompt_hash,
                started_at=record.started_at,
                finished_at=record.finished_at,
                latency_s=record.latency_s,
                status=record.status,
                failure=record.failure,
                request=record.request,
                calls=list(record.calls),
                steps=list(record.steps),
                answer=record.answer,
                tool_state=record.tool_state,
                dataset_hash=record.dataset_hash,
            )
        )
    if problems:
        raise UsageProblem(*problems)
    return incoming
