"""The price database cross-checks of one edition, as the site shows and publishes them.

`price-database.json` (in the edition's data folder) holds what the database said — its version,
each model's prices for the window's opening instant — and, per cell, the counted calls' costs
both ways. The edition page's table and the workload pages' evidence lines are read from the
same object, so the page and the file cannot disagree. Both parts are computed here with the
installed (pinned) database, whose version the file names, so the cells are always costed at the
prices the file publishes; the edition's own `price-check.json` is what the database said when
`register` ran, kept as sealed.
"""

from __future__ import annotations

from ledgerrate.core.io import iter_jsonl
from ledgerrate.core.layout import cell_log_files
from ledgerrate.generate.price_check import cell_checks, price_check
from ledgerrate.publish.load import Edition
from ledgerrate.schema import PriceCheck, PricingTable, RunRecord

# The site's data file (a product of the build, beside the edition's own `price-check.json`,
# which `register` wrote and publication seals, so it is published byte for byte).
FILENAME = "price-database.json"

# The edition page, the workload pages and the data file of one build read it once; keyed by
# the logs' sizes and times so that a later build in the same process sees new runs.
_MEMO: dict[tuple[object, ...], PriceCheck] = {}


def edition_price_check(edition: Edition) -> PriceCheck:
    # Once per edition and process: its edition page, data page and every workload's page ask
    # (90 times at ten editions); the key below alone stats each of the edition's run logs.
    found = edition.derived.get("price_check")
    if found is None:
        found = edition.derived["price_check"] = _by_logs(edition)
    return found


def _by_logs(edition: Edition) -> PriceCheck:
    paths = edition.paths
    logs = cell_log_files(paths.runs_dir)
    key = (
        str(paths.root.resolve()),
        *((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in logs),
    )
    if key in _MEMO:
        return _MEMO[key]
    pricing = edition.pricing or PricingTable(frozen_at=edition.manifest.window.opens)
    found = price_check(edition.manifest, pricing)
    if any(m.known for m in found.models.values()):
        runs = (record for log in logs for record in iter_jsonl(log, RunRecord))
        found = found.model_copy(update={"cells": cell_checks(edition.manifest, found, runs)})
    _MEMO[key] = found
    return found


def price_check_json(edition: Edition) -> bytes:
    return (edition_price_check(edition).model_dump_json(indent=2) + "\n").encode()
