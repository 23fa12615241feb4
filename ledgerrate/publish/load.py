"""The I/O edge of publishing: read every edition folder and compute its results.

Figures come from `ledgerrate.metrics` (never recomputed here) so the site and `verify` agree.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import msgspec

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import load_model, read_jsonl
from ledgerrate.core.layout import EditionPaths
from ledgerrate.metrics import report
from ledgerrate.metrics.reproductions import ReproductionSitting, reproduction_sittings
from ledgerrate.publish.cache import BuildCache, key_of
from ledgerrate.publish.incidents import Incident, incidents
from ledgerrate.publish.ingested import ingested_cells
from ledgerrate.publish.withdrawals import apply_withdrawals
from ledgerrate.schema import (
    DatasetCard,
    EditionManifest,
    EditionResults,
    ErrataFile,
    GradeRecord,
    Mode,
    PricingTable,
    Registration,
    RunRecord,
    RunStatus,
    SeedFile,
    SeedLoss,
)

EXAMPLES_PER_CELL = 2


@dataclass(frozen=True)
class Example:
    """What a workload page shows of one example run. Not the run record: a record holds its
    request and steps (about 20 KB in memory), and every edition's examples are held together
    while the site renders, so the records alone grew a build by ~110 MB per 215-model
    edition."""

    item_id: str
    status: RunStatus
    failure: str | None
    answer: str | None

    @classmethod
    def of(cls, record: RunRecord) -> Example:
        return cls(record.item_id, record.status, record.failure, record.answer)


@dataclass
class Edition:
    """Everything the site shows about one edition, read once."""

    paths: EditionPaths
    manifest: EditionManifest
    pricing: PricingTable | None
    registration: Registration | None
    errata: ErrataFile | None
    seeds: SeedFile | None
    cards: dict[str, DatasetCard]
    results: EditionResults
    # The figures as computed from the logs (what results.json holds and verify re-derives);
    # `results` is the same with withdrawn figures removed, for display.
    computed: EditionResults | None = None
    # (workload, model, mode) → its reproduction sittings: shown apart, never in a figure.
    reproductions: dict[tuple[str, str, str], list[ReproductionSitting]] = field(
        default_factory=dict
    )
    # The sealed statement that the seeds can no longer be opened (shown wherever seeds are).
    seed_loss: SeedLoss | None = None
    # (workload, model, mode) → the harnesses its runs were ingested from (`ledgerrate ingest`).
    ingested: dict[tuple[str, str, str], list[str]] = field(default_factory=dict)
    # Operator incidents the edition discloses (`incidents/<id>/`), with their files.
    incidents: list[Incident] = field(default_factory=list)
    # What a page works out of the whole edition once (`price_check_data.edition_price_check`,
    # asked by every workload's page): the edition's files do not change during a build.
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # Where the examples' choices are kept (`examples_of`).
    cache: BuildCache | None = field(default=None, repr=False, compare=False)

    @property
    def id(self) -> str:
        return self.manifest.id

    def examples_of(self, workload: str) -> dict[tuple[str, str, str], list[Example]]:
        """(workload, model, mode) → a few counted runs of the published sitting, for the
        workload's page; chosen when a page first asks, once per process: a build whose
        workload pages are unchanged products never reads them (28,000 cache lookups and as
        many records validated at ten 215-model editions)."""
        name = f"examples/{workload}"
        if name not in self.derived:
            self.derived[name] = _examples(self.paths, self.results, self.cache, workload)
        found: dict[tuple[str, str, str], list[Example]] = self.derived[name]
        return found

    @property
    def examples(self) -> dict[tuple[str, str, str], list[Example]]:
        """Every workload's examples (`examples_of`)."""
        return {
            k: v for w in self.results.workloads for k, v in self.examples_of(w.workload).items()
        }

    @property
    def provisional(self) -> bool:
        """Window still open and never published: figures may change, so the pages say so."""
        return not self.paths.published.exists() and not window_closed(self.manifest)


def window_closed(manifest: EditionManifest, now: dt.datetime | None = None) -> bool:
    return (now or dt.datetime.now(dt.UTC)) >= manifest.window.closes


def edition_results(edition_dir: Path) -> EditionResults:
    """Figures from the metrics stage."""
    return report.edition_results(edition_dir)


def _optional(model: type[Any], path: Path) -> Any:
    return load_model(model, path) if path.exists() else None


class _Choice(msgspec.Struct):
    """The fields of a run record that choose it as an example. msgspec skips every other field
    of the line without building it: 3.5x faster than `json.loads` of the whole record."""

    item_id: Any = None
    attempt: Any = None
    sitting: Any = None
    kind: Any = "registered"
    status: Any = None


_CHOICE = msgspec.json.Decoder(_Choice)


def _chosen_lines(log: Path, sitting: int) -> bytes:
    """The first EXAMPLES_PER_CELL counted runs of `sitting` in `log` (by item, then attempt),
    as JSON lines. Lines are only decoded to choose them (the metrics stage has already read
    and checked every record)."""
    chosen: list[tuple[str, int, bytes]] = []
    with log.open("rb") as lines:
        for line in lines:
            if not line.strip():
                continue
            try:
                raw = _CHOICE.decode(line)
            except msgspec.DecodeError:  # a torn last line; read_jsonl drops it too
                continue
            if (
                raw.sitting == sitting
                and raw.kind == "registered"
                and raw.status != RunStatus.infra_excluded.value
            ):
                chosen.append((raw.item_id, raw.attempt, line.rstrip(b"\n") + b"\n"))
                chosen.sort(key=lambda c: (c[0], c[1]))
                del chosen[EXAMPLES_PER_CELL:]
    return b"".join(line for _, _, line in chosen)


def _examples(
    paths: EditionPaths, results: EditionResults, cache: BuildCache | None, workload: str
) -> dict[tuple[str, str, str], list[Example]]:
    """A few counted runs per cell; only the chosen ones are validated. With a `cache`, the
    choice is a product of the log's digest: choosing decodes every line of every log, and the
    digests are already known (a build's fingerprint reads them), so a warm build reads no log
    here."""
    found: dict[tuple[str, str, str], list[Example]] = {}
    for result in results.workloads:
        if result.workload != workload:
            continue
        for cell in result.cells:
            log = paths.runs(cell.workload, cell.model, cell.mode)
            chosen = b""
            if log.exists() and cache is None:
                chosen = _chosen_lines(log, cell.sitting)
            elif log.exists() and cache is not None:
                digest = cache.file_digest(log)
                key = key_of("examples", cache.code("examples"), cell.sitting, digest)
                chosen = cache.product("examples", key, partial(_chosen_lines, log, cell.sitting))
            found[(cell.workload, cell.model, str(cell.mode))] = [
                Example.of(RunRecord.model_validate_json(line)) for line in chosen.splitlines()
            ]
    return found


def _reproductions(
    paths: EditionPaths, manifest: EditionManifest
) -> dict[tuple[str, str, str], list[ReproductionSitting]]:
    found = {}
    for entry in manifest.workloads:
        for spec in manifest.models:
            for mode in Mode:
                log = paths.reproductions(entry.id, spec.id, mode.value)
                if not log.exists():
                    continue
                grades = paths.reproduction_grades(entry.id, spec.id, mode.value)
                rows = reproduction_sittings(
                    read_jsonl(log, RunRecord), read_jsonl(grades, GradeRecord)
                )
                if rows:
                    found[(entry.id, spec.id, mode.value)] = rows
    return found


def load_edition(
    edition_dir: Path,
    results_fn: Callable[[Path], EditionResults] | None = None,
    cache: BuildCache | None = None,
) -> Edition:
    paths = EditionPaths(edition_dir)
    manifest = load_model(EditionManifest, paths.manifest)
    if manifest.id != paths.id:
        raise UsageProblem(
            f"{paths.manifest}: id {manifest.id!r} differs from its folder name {paths.id!r}; "
            "the folder name is the edition's permanent URL"
        )
    results = (results_fn or edition_results)(edition_dir)
    cards = {}
    for entry in manifest.workloads:
        card_path = paths.card(entry.id)
        if card_path.exists():
            cards[entry.id] = load_model(DatasetCard, card_path)
    errata = _optional(ErrataFile, paths.errata)
    computed = results
    # Withdrawn figures leave tables, charts and rate cards; only their tombstones remain.
    results = apply_withdrawals(results, errata)
    return Edition(
        paths=paths,
        manifest=manifest,
        pricing=_optional(PricingTable, paths.pricing),
        registration=_optional(Registration, paths.registration),
        errata=errata,
        seeds=_optional(SeedFile, paths.seeds),
        cards=cards,
        results=results,
        computed=computed,
        cache=cache,
        reproductions=_reproductions(paths, manifest),
        seed_loss=_optional(SeedLoss, paths.seeds_lost),
        ingested=ingested_cells(paths, results),
        incidents=incidents(paths.root),
    )


def edition_dirs(editions_dir: Path) -> list[Path]:
    """The edition folders in `editions_dir` (each holds an edition.yaml), by name: the one
    place `build`, `render` and the command line find the editions."""
    if not editions_dir.is_dir():
        return []
    return sorted(p for p in editions_dir.iterdir() if EditionPaths(p).manifest.is_file())


def load_editions(
    editions_dir: Path,
    results_fn: Callable[[Path], EditionResults] | None = None,
    cache: BuildCache | None = None,
    *,
    paths: list[Path] | None = None,
) -> list[Edition]:
    """Every edition in `editions_dir` (see `edition_dirs`; `paths`: those already found
    there), oldest first."""
    found = [
        load_edition(child, results_fn, cache)
        for child in (edition_dirs(editions_dir) if paths is None else paths)
    ]
    return sorted(found, key=lambda e: (e.manifest.date, e.id))
