"""Which cells hold runs made by another harness (`ledgerrate ingest`), and by which.

The pages say so beside a cell's figures. Only logs that hold an ingested record are parsed:
`run` never writes a `source` key, so a log without the bytes `"source":{` is skipped after one
search over its bytes.
"""

from __future__ import annotations

from pathlib import Path

from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import EditionResults, RunRecord

MARK = b'"source":{'
LABELS = {"inspect_ai": "Inspect AI", "jsonl": "the run-record interchange format (JSONL)"}


def _label(record: RunRecord) -> str | None:
    source = record.source
    if source is None:
        return None
    name = LABELS.get(source.harness, source.harness)
    return f"{name} {source.harness_version}" if source.harness_version else name


def _labels(log: Path, sitting: int) -> list[str]:
    data = log.read_bytes() if log.exists() else b""
    if MARK not in data:
        return []
    found = set()
    for line in data.split(b"\n"):
        if MARK not in line:
            continue
        try:
            record = RunRecord.model_validate_json(line)
        except ValueError:  # a torn last line: the metrics stage drops it too
            continue
        label = _label(record) if record.sitting == sitting else None
        if label:
            found.add(label)
    return sorted(found)


def ingested_cells(
    paths: EditionPaths, results: EditionResults
) -> dict[tuple[str, str, str], list[str]]:
    """(workload, model, mode) → the harnesses its shown sitting's ingested runs came from."""
    found = {}
    for workload in results.workloads:
        for cell in workload.cells:
            labels = _labels(paths.runs(cell.workload, cell.model, str(cell.mode)), cell.sitting)
            if labels:
                found[(cell.workload, cell.model, str(cell.mode))] = labels
    return found
