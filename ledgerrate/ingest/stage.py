"""`ledgerrate ingest EDITION_DIR LOG...`: other harnesses' runs as the edition's run records.

Straight through: refuse an edition `run` would refuse (unregistered, drifted from its
registration, a model without a price); read every log (Inspect's reader for Inspect logs, the
run-record parser for `--format jsonl`); check every sample (`admit`); if any sample is refused,
print every reason and write nothing; otherwise append each record to its cell's log, fsynced
one by one as `run` appends them. A `kill -9` part-way leaves whole records only (a torn last
line is cut on the next read) and each one names its log and sample, so the same command run
again writes exactly the records still missing: nothing is lost and nothing doubles.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Literal

from ledgerrate.core.edition import load_edition, pricing_problems, registration_mismatches
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.ingest.admit import Admission, Verdicts
from ledgerrate.ingest.incoming import Incoming
from ledgerrate.ingest.interchange import read_interchange
from ledgerrate.run import bodies, rawlog
from ledgerrate.schema import RunRecord, RunStatus
from ledgerrate.workloads.base import Dataset, Workload

LogFormat = Literal["inspect", "jsonl"]


@dataclass
class IngestSummary:
    edition: str
    written: list[RunRecord] = field(default_factory=list)
    already: int = 0
    same_attempt: int = 0

    def lines(self) -> list[str]:
        cells: dict[tuple[str, str, str], list[RunRecord]] = {}
        for record in self.written:
            cells.setdefault((record.workload, record.model, record.mode.value), []).append(record)
        lines = []
        for (wid, mid, mode), records in sorted(cells.items()):
            excluded = sum(r.status == RunStatus.infra_excluded for r in records)
            spent = sum((r.cost.total_usd for r in records), Decimal(0))
            harnesses = sorted({r.source.harness for r in records if r.source})
            lines.append(
                f"{wid}/{mid}/{mode}: {len(records)} records ingested from "
                f"{', '.join(harnesses)} (sitting {records[0].sitting}, {excluded} "
                f"infra-excluded), ${spent:.4f} at the frozen prices"
            )
        if self.already:
            lines.append(f"{self.already} samples were ingested before; skipped")
        if self.same_attempt:
            lines.append(
                f"{self.same_attempt} samples are attempts already ingested from another log "
                "(the same sample uuid and start: an eval-retry log repeats the samples that had "
                "finished); skipped"
            )
        if not self.written:
            lines.append(f"edition {self.edition}: nothing new to ingest")
        return lines


def read_logs(paths: Sequence[Path], log_format: LogFormat) -> list[Incoming]:
    samples: list[Incoming] = []
    for path in paths:
        if not path.is_file():
            raise UsageProblem(f"{path}: no such log file")
        digest = sha256_bytes(path.read_bytes())
        if log_format == "jsonl":
            samples.extend(read_interchange(path, digest))
        else:
            # Only Inspect logs need the `inspect` extra; the interchange format never does.
            try:
                from ledgerrate.ingest.inspect_log import read_log
            except ImportError:
                raise UsageProblem(
                    f"{path}: reading Inspect logs needs the `inspect` extra: "
                    "pip install 'ledgerrate[inspect]' (or pass --format jsonl)"
                ) from None
            samples.extend(read_log(path, digest))
    return samples


def ingest_logs(
    edition_dir: Path,
    logs: Sequence[Path],
    *,
    log_format: LogFormat = "inspect",
    new_sitting: bool = False,
    lookup: Callable[[str], Workload] | None = None,
    now: Callable[[], dt.datetime] | None = None,
    write: Callable[[Path, RunRecord], None] = rawlog.append_record,
) -> IngestSummary:
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    clock = now or (lambda: dt.datetime.now(dt.UTC))
    edition = load_edition(edition_dir)
    problems = pricing_problems(edition) + registration_mismatches(edition, lookup)
    if problems:
        raise UsageProblem(*problems)
    samples = read_logs(logs, log_format)

    def registered_dataset(workload_id: str) -> Dataset:
        return dataset_for(edition.paths.root, workload_id, lookup=lookup)

    admission = Admission(edition, lookup, registered_dataset, new_sitting=new_sitting, now=clock)
    verdicts: Verdicts = admission.admit(samples)
    if verdicts.refused:
        raise UsageProblem(
            *verdicts.refused, "nothing was ingested; fix or drop the refused samples"
        )
    store = bodies.BodyStore(edition.paths.root)
    summary = IngestSummary(
        edition.manifest.id, already=verdicts.already, same_attempt=verdicts.same_attempt
    )
    for admitted in verdicts.admitted:
        record = admitted.record
        cell = admission.cells[(record.workload, record.model, record.mode.value)]
        if not any(r.request is not None for r in cell.records):
            # A log `run` writes keeps long strings in bodies/; an ingested record joins the
            # cell's form, so no log mixes the two.
            assert record.request is not None
            record = record.model_copy(
                update={"request": None, "request_stored": store.store(record.request)}
            )
        write(admitted.path, record)
        summary.written.append(record)
    return summary
