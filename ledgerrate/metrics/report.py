"""The `results` stage: an edition's figures, as `EditionResults` or printed for a reader."""

from __future__ import annotations

import sys
from pathlib import Path

from ledgerrate.metrics import meta
from ledgerrate.metrics.compute import compute_results
from ledgerrate.metrics.intervals import DEFAULT_REPS
from ledgerrate.metrics.load import load_inputs
from ledgerrate.metrics.meta import MetaLookup
from ledgerrate.schema import EditionResults


def edition_results(
    edition_dir: Path, lookup: MetaLookup | None = None, reps: int = DEFAULT_REPS
) -> EditionResults:
    """Every published figure of the edition in `edition_dir`, from its logs as they stand.

    `lookup` gives each workload's title, unit, volume and modes; the registry by default.
    """
    return compute_results(load_inputs(Path(edition_dir)), lookup or meta.registry_meta, reps)


def print_results(
    edition_dir: Path, as_json: bool, lookup: MetaLookup | None = None, *, wide: bool = False
) -> None:
    """The `results` command: rich tables (compact, or every figure with `wide`), or with
    `as_json` the `EditionResults` as JSON."""
    results = edition_results(edition_dir, lookup)
    if as_json:
        sys.stdout.write(results.model_dump_json(indent=2) + "\n")
        return
    from ledgerrate.metrics.console import print_tables, results_console  # rich: tables only

    print_tables(results, results_console(wide), wide=wide)
