"""`verify`'s cross-check of the computed costs against the price database (issue #47 §2).

Per cell, the counted calls' recorded costs beside the cost genai-prices computes from the same
usage at the window's opening instant: reported as notes, information and never a failure. What
can fail is LedgerRate disagreeing with itself: a cell's counted calls must add up to the model
spend its counted runs recorded.
"""

from __future__ import annotations

from decimal import Decimal

from ledgerrate.core.edition import Edition
from ledgerrate.generate.price_check import cell_checks, counted_runs, price_check
from ledgerrate.schema import RunRecord
from ledgerrate.verify.parsed import EditionLogs
from ledgerrate.verify.report import Report

CATEGORY = "cell costs beside the price database"


def check_price_database(edition: Edition, report: Report, logs: EditionLogs) -> None:
    if edition.pricing is None:
        return
    check = price_check(edition.manifest, edition.pricing)
    named = f"{check.database} {check.database_version}"
    for model_id, model in check.models.items():
        if not model.known:
            report.notes.append(f"price database: {model_id} is not in {named}: {model.reason}")
    if not any(m.known for m in check.models.values()):
        return
    # Only the cells the database can price are cross-checked (`cell_checks`): only their runs
    # are kept, as the records stream past.
    priced = {model_id for model_id, model in check.models.items() if model.known}
    runs = [
        r
        for log in logs.runs
        for r in log.records_or_raise()
        if r.kind == "registered" and r.model in priced
    ]
    n_of = {w.id: w.n for w in edition.manifest.workloads}
    for cell in cell_checks(edition.manifest, check, runs):
        own = [
            r
            for r in runs
            if (r.workload, r.model, str(r.mode)) == (cell.workload, cell.model, cell.mode)
        ]
        recorded = _run_spend(counted_runs(own, n_of.get(cell.workload, 1)))
        report.expect(
            CATEGORY,
            recorded == cell.ledgerrate_usd,
            file="runs",
            record=f"{cell.workload} · {cell.model} · {cell.mode}",
            field="sum of counted calls' cost",
            expected=recorded,
            found=cell.ledgerrate_usd,
        )
        report.notes.append(
            f"price database {named}: {cell.workload} · {cell.model} · {cell.mode}: "
            f"{cell.calls} counted call(s), LedgerRate ${cell.ledgerrate_usd}, database "
            f"${cell.database_usd}, difference ${cell.difference_usd} (information)"
        )


def _run_spend(runs: list[RunRecord]) -> Decimal:
    return sum((r.cost.model_usd for r in runs), Decimal(0))
