"""Withdrawn figures: what an erratum removes from every table, chart and rate card."""

from __future__ import annotations

from ledgerrate.schema import CellResult, EditionResults, ErrataFile, Mode, RateLine, WorkloadResult

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
        gone: set[tuple[str, str]] = set()
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
                gone.add((cell.model, str(cell.mode)))
        _drop_indices_on(workload, gone)
    return shown


def _drop_indices_on(workload: WorkloadResult, gone: set[tuple[str, str]]) -> None:
    """Rate lines that name a withdrawn cell are removed (not replaced by the next cell), and
    every index that rests on one goes with them: a premium or multiplier divides by a CPO
    the erratum took back."""
    if not gone:
        return

    def withdrawn(line: RateLine | None) -> bool:
        return line is not None and (line.model, str(line.mode)) in gone

    if withdrawn(workload.cheapest_qualifying) or withdrawn(workload.flagship):
        workload.frontier_premium = None
    cheapest_gone = withdrawn(workload.cheapest_qualifying)
    for premium in workload.flagship_premiums or []:
        if withdrawn(premium.line):
            premium.line, premium.qualifying = None, False
        if cheapest_gone or premium.line is None:
            premium.premium = None
    for model in list(workload.agentic_multiplier):
        if any((model, mode.value) in gone for mode in Mode):
            workload.agentic_multiplier[model] = None
    for attr in ("cheapest_qualifying", "flagship", "reference"):
        if withdrawn(getattr(workload, attr)):
            setattr(workload, attr, None)
