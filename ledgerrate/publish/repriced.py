"""`ledgerrate results EDITION --prices FILE`: the figures as the site shows them (withdrawn
figures removed), re-priced at the reader's prices (metrics/reprice.py) and labelled. Reads the
edition and the reader's file; writes nothing."""

from __future__ import annotations

import sys
from pathlib import Path

from ledgerrate.core.io import FileProblem, load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.metrics import reprice as rp
from ledgerrate.metrics.console import print_tables, results_console
from ledgerrate.metrics.report import edition_results
from ledgerrate.publish.withdrawals import apply_withdrawals
from ledgerrate.schema import (
    EditionManifest,
    EditionResults,
    ErrataFile,
    PricingTable,
    ReaderPrices,
    RepricedResults,
)

NOT_REPRICED = [
    "cpo_ci: a seeded bootstrap over each item's cost, not derivable from a cell's totals",
    "routing: the routing verdict compares items' costs pair by pair; the published one stands",
]


def shown_results(edition_dir: Path) -> tuple[EditionResults, EditionManifest, PricingTable]:
    """The edition's figures from its logs as the site shows them, with its manifest and prices."""
    paths = EditionPaths(Path(edition_dir))
    manifest = load_model(EditionManifest, paths.manifest)
    pricing = load_model(PricingTable, paths.pricing)
    errata = load_model(ErrataFile, paths.errata) if paths.errata.exists() else None
    return apply_withdrawals(edition_results(paths.root), errata), manifest, pricing


def repriced(edition_dir: Path, prices_file: Path) -> RepricedResults:
    """The re-priced figures, or a FileProblem naming each field of `prices_file` at fault."""
    reader = load_model(ReaderPrices, Path(prices_file))
    results, manifest, pricing = shown_results(edition_dir)
    hourly, manual = rp.time_rates(results), rp.manual_rates(results)
    found = rp.problems(reader, pricing, manifest, hourly, manual)
    if found:
        raise FileProblem(prices_file, [f"{prices_file}: {line}" for line in found])
    prices = rp.effective_prices(reader, pricing, manifest, hourly, manual)
    return RepricedResults(
        edition=manifest.id,
        prices_file=str(prices_file),
        changed=prices.changed,
        not_repriced=NOT_REPRICED,
        results=rp.reprice(results, prices, manifest),
    )


def print_repriced(edition_dir: Path, prices_file: Path, *, as_json: bool, wide: bool) -> None:
    view = repriced(edition_dir, prices_file)
    if as_json:
        sys.stdout.write(view.model_dump_json(indent=2) + "\n")
        return
    console = results_console(wide)
    banner = f"{view.label.upper()} (prices from {view.prices_file})"
    console.print(banner, markup=False, highlight=False)
    console.print(
        "changed prices:" + (" none (every price as frozen)" if not view.changed else ""),
        markup=False,
        highlight=False,
    )
    for line in view.changed:
        console.print(f"  {line}", markup=False, highlight=False)
    for line in view.not_repriced:
        console.print(f"not re-priced: {line}", markup=False, highlight=False)
    print_tables(view.results, console, wide=wide)
    console.print(banner, markup=False, highlight=False)
