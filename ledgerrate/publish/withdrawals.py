"""Withdrawn figures: what an erratum removes from every table, chart and rate card."""

from __future__ import annotations

from ledgerrate.schema import CellResult, EditionResults, ErrataFile

WITHDRAWN = "withdrawn: "


def is_withdrawn(cell: CellResult, field: str) -> bool:
    return any(flag.startswith(f"{WITHDRAWN}{field} ") for flag in cell.flags)


# A withdrawn figure takes the figures derived from it along (CPO = spend ÷ passes).
_WITHDRAWN_WITH = {
    "pass_rate": ("pass_rate_ci",),
    "cpo_usd": ("cpo_ci",),
    "spend_usd": ("cpo_usd", "cpo_ci", "cost_per_attempt_usd"),
}


def apply_withdrawals(results: EditionResults, errata: ErrataFile | None) -> EditionResults:
    """The figures as the site may show them: a withdrawn figure (with its interval) is gone
    from tables, charts, trendlines and rate cards, and only its tombstone remains.

    `results.json` itself stays as computed from the logs, so `verify` still re-derives it.
    """
    withdrawn = {
        (fig.workload, fig.model, str(fig.mode) if fig.mode else None, fig.field): entry.id
        for entry in (errata.entries if errata else [])
        for fig in entry.figures
        if fig.new is None
    }
    if not withdrawn:
        return results
    shown = results.model_copy(deep=True)
    for workload in shown.workloads:
        for cell in workload.cells:
            fields = {
                field: erratum
                for (w, m, mode, field), erratum in withdrawn.items()
                if w in (None, cell.workload)
                and m in (None, cell.model)
                and mode in (None, str(cell.mode))
            }
            for field, erratum in sorted(fields.items()):
                cell.flags.append(f"{WITHDRAWN}{field} by erratum {erratum}")
            for field in set(fields) & set(_WITHDRAWN_WITH):
                setattr(cell, field, None)
                for companion in _WITHDRAWN_WITH[field]:
                    setattr(cell, companion, None)
            if fields:
                cell.qualifying = False
                for attr in ("cheapest_qualifying", "flagship", "reference"):
                    line = getattr(workload, attr)
                    if line is not None and (line.model, line.mode) == (cell.model, cell.mode):
                        setattr(workload, attr, None)
    return shown
