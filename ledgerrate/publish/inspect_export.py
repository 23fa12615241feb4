"""`ledgerrate export EDITION --format inspect`: every cell's published sitting as an Inspect log.

One `.eval` file per cell (workload × model × mode), written by Inspect's own log writer from
the `EvalLog` `harness/export_eval.py` builds, so `inspect view` and
`inspect_ai.log.read_eval_log` open it, and `ledgerrate ingest` reads it back into a fresh copy of
the registered edition as the same records (tests/harness/test_inspect_export.py). The edition
may be a folder or its evidence bundle from the site's data page (`ledgerrate-evidence-…tar.gz`,
whose name carries its sha256): a reader needs nothing but the published files.

Which sitting: the one the results publish for the cell (`metrics`), with every attempt in it,
infrastructure exclusions included, so the log holds the attempt numbering `run` wrote. A
reference baseline's cell is the reference solver's, not a model's: it is not exported.

Inspect is an optional extra (`ledgerrate[inspect]`): without it the command says, in one line,
how to install it, and writes nothing. The site does not publish these logs: Inspect's writer
stamps its own run times into the archive, so they could not be byte-reproducible, and the data
page gives the command that makes them from the evidence bundle instead (ARCHITECTURE.md §7).
"""

from __future__ import annotations

import io
import re
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ledgerrate import __version__
from ledgerrate.core.bundle_format import BUNDLE_NAME
from ledgerrate.core.edition import load_edition
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import iter_jsonl
from ledgerrate.core.layout import EditionPaths
from ledgerrate.metrics.report import edition_results
from ledgerrate.run.bodies import whole
from ledgerrate.schema import GradeRecord, RunRecord

INSTALL = "pip install 'ledgerrate[inspect]'"
UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class ExportSummary:
    out: Path
    written: list[tuple[str, int]] = field(default_factory=list)  # (file name, samples)
    skipped: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        lines = [f"{self.out / name}: {samples} samples" for name, samples in self.written]
        lines += self.skipped
        lines.append(
            f"{len(self.written)} Inspect log(s) in {self.out}; open them with "
            f"`inspect view --log-dir {self.out}`"
        )
        return lines


def reader_commands(bundle_name: str, out: str = "inspect-logs") -> list[str]:
    """What the data page tells a reader to run, in a clone of the repository beside the
    downloaded bundle (tests/harness/test_inspect_export.py runs the export line)."""
    return [
        "make inspect",
        f".venv/bin/ledgerrate export {bundle_name} --format inspect --out {out}",
        f".venv/bin/inspect view --log-dir {out}",
    ]


def require_inspect() -> None:
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise UsageProblem(
            f"--format inspect needs Inspect AI, the `inspect` extra: {INSTALL}"
        ) from None


@contextmanager
def edition_folder(target: Path) -> Iterator[Path]:
    """An edition folder as given, or an evidence bundle unpacked into a temporary folder."""
    if target.is_dir():
        yield target
        return
    if not target.is_file():
        raise UsageProblem(f"{target}: no such edition folder or evidence bundle")
    data = target.read_bytes()
    named = BUNDLE_NAME.match(target.name)
    if named is None or named["sha"] != sha256_bytes(data):
        raise UsageProblem(
            f"{target}: not an evidence bundle whose name carries its sha256 "
            "(ledgerrate-evidence-<edition>-<sha256>.tar.gz, as the data page offers it); "
            "download it again"
        )
    with tempfile.TemporaryDirectory(prefix="ledgerrate-export-") as scratch:
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                tops = {m.name.split("/", 1)[0] for m in tar.getmembers()}
                if len(tops) != 1:
                    raise UsageProblem(f"{target}: a bundle holds exactly one edition folder")
                tar.extractall(scratch, filter="data")  # refuses links out, `..`, devices
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise UsageProblem(f"{target}: not a readable evidence bundle ({exc})") from None
        yield Path(scratch) / tops.pop()


def _latest_grades(path: Path) -> dict[str, GradeRecord]:
    found: dict[str, GradeRecord] = {}
    if path.exists():
        for grade in iter_jsonl(path, GradeRecord):
            held = found.get(grade.run_id)
            if held is None or (grade.revision, grade.graded_at) >= (held.revision, held.graded_at):
                found[grade.run_id] = grade
    return found


def log_name(edition: str, workload: str, model: str, mode: str, sitting: int) -> str:
    parts = (edition, workload, model, mode, f"sitting-{sitting}")
    return "_".join(UNSAFE.sub("-", p) for p in parts) + ".eval"


def export_inspect(target: Path, out: Path | None = None) -> ExportSummary:
    require_inspect()
    from inspect_ai.log import write_eval_log

    from ledgerrate.harness.export_eval import ExportCell, cell_log

    with edition_folder(target) as root:
        edition = load_edition(root)
        paths = EditionPaths(root)
        manifest = edition.manifest
        dest = out if out is not None else Path("build") / "inspect" / manifest.id
        specs = {s.id: s for s in manifest.models}
        results = edition_results(root)
        cells = []
        summary = ExportSummary(dest)
        for workload in results.workloads:
            for cell in workload.cells:
                mode = str(cell.mode)
                spec = specs.get(cell.model)
                if spec is None:
                    # The manual arm: an analyst's answers, no model conversation to export.
                    summary.skipped.append(
                        f"{workload.workload}/{cell.model}/{mode}: done by hand, not by a "
                        "model: not exported"
                    )
                    continue
                if spec.is_reference:
                    summary.skipped.append(
                        f"{workload.workload}/{cell.model}/{mode}: the reference baseline's "
                        "cell (a solver, not a model): not exported"
                    )
                    continue
                log = paths.runs(workload.workload, cell.model, mode)
                records = [
                    whole(r, root)
                    for r in (iter_jsonl(log, RunRecord) if log.exists() else [])
                    if r.sitting == cell.sitting and r.kind == "registered"
                ]
                if not records:
                    summary.skipped.append(
                        f"{workload.workload}/{cell.model}/{mode}: no attempt in sitting "
                        f"{cell.sitting}: nothing to export"
                    )
                    continue
                cells.append(
                    ExportCell(
                        edition=manifest.id,
                        workload=workload.workload,
                        title=workload.title,
                        spec=spec,
                        mode=mode,
                        sitting=cell.sitting,
                        n=cell.n,
                        records=records,
                        grades=_latest_grades(paths.grades(workload.workload, cell.model, mode)),
                        ledgerrate_version=__version__,
                    )
                )
        # Every log is built before the first is written: a record the format cannot carry
        # stops the export with nothing half-written.
        built = [(c, cell_log(c)) for c in cells]
        dest.mkdir(parents=True, exist_ok=True)
        for cell_in, eval_log in built:
            name = log_name(
                manifest.id, cell_in.workload, cell_in.spec.id, cell_in.mode, cell_in.sitting
            )
            write_eval_log(eval_log, str(dest / name), format="eval")
            summary.written.append((name, len(eval_log.samples or [])))
    return summary
