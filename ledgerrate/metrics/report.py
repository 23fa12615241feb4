"""The `results` stage: an edition's figures, as `EditionResults` or printed for a reader."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from ledgerrate.metrics.compute import compute_results
from ledgerrate.metrics.console import print_tables
from ledgerrate.metrics.intervals import DEFAULT_REPS
from ledgerrate.metrics.load import load_inputs
from ledgerrate.metrics.meta import MetaLookup, registry_meta
from ledgerrate.schema import EditionResults


def edition_results(
    edition_dir: Path, lookup: MetaLookup = registry_meta, reps: int = DEFAULT_REPS
) -> EditionResults:
    """Every published figure of the edition in `edition_dir`, from its logs as they stand."""
    return compute_results(load_inputs(Path(edition_dir)), lookup, reps)


def print_results(edition_dir: Path, as_json: bool, lookup: MetaLookup = registry_meta) -> None:
    results = edition_results(edition_dir, lookup)
    if as_json:
        sys.stdout.write(results.model_dump_json(indent=2) + "\n")
        return
    print_tables(results, Console(width=220))
