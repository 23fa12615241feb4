"""A cell's figures as the pages show them, each with its correction history, made once a build.

Every cell appears on three pages (its edition's, its workload's and its model's), all at the
same depth, so the same figures were formatted three times: at ten 215-model editions that was
84k calls of the money and pass-rate formatters. `CellFigures` remembers each cell's figures for
the build it serves.
"""

from __future__ import annotations

from markupsafe import Markup

from ledgerrate.publish import errata as errata_mod
from ledgerrate.publish import fmt
from ledgerrate.publish.load import Edition
from ledgerrate.schema import CellResult


def cell_figures(edition: Edition, cell: CellResult, root: str) -> dict[str, Markup]:
    """Figures of a cell as shown, each with its correction history."""
    fixes = errata_mod.corrections(edition)
    mode = str(cell.mode)
    judge = edition.manifest.judge is not None
    volume = fmt.volume_of(edition.results, cell.workload)

    def fig(field: str, shown: str, html: Markup | None = None) -> Markup:
        key_exact = (cell.workload, cell.model, mode, field)
        key_any_mode = (cell.workload, cell.model, None, field)
        key = key_exact if key_exact in fixes else key_any_mode
        if html is not None and key not in fixes:
            return html  # no correction history: the figure with its exact value on hover
        return errata_mod.figure(shown, key, fixes, root)

    return {
        "pass_rate": fig("pass_rate", fmt.pass_rate(cell, judge=judge)),
        "cpo": fig("cpo_usd", fmt.cpo(cell, volume), fmt.cpo_html(cell, volume)),
        "spend": fig("spend_usd", fmt.usd(cell.spend_usd), fmt.money(cell.spend_usd)),
        "per_attempt": fig(
            "cost_per_attempt_usd",
            fmt.per_attempt(cell.cost_per_attempt_usd),
            fmt.money_text(fmt.per_attempt(cell.cost_per_attempt_usd), cell.cost_per_attempt_usd),
        ),
        "grading": fig("grading_cost_usd", fmt.usd(cell.grading_cost_usd)),
        "infra": fig("infra_excluded_usd", _infra(cell)),
    }


def _infra(cell: CellResult) -> str:
    """Infra-excluded attempts and their spend; never a $0 that stands for calls whose time,
    and so a self-hosted model's spend, was never recorded."""
    unknown = cell.infra_excluded_unpriced_calls
    if not unknown:
        return f"{cell.infra_excluded_attempts} ({fmt.usd(cell.infra_excluded_usd)})"
    return (
        f"{cell.infra_excluded_attempts} (spend unknown, not zero: {unknown} calls without a "
        f"recorded server time; {fmt.usd(cell.infra_excluded_usd)} as recorded)"
    )


class CellFigures:
    """`cell_figures`, remembered per cell object and root for one build's pages."""

    def __init__(self) -> None:
        # Keyed by the cell's identity; the cell is held with its figures, so its id cannot be
        # reused by another object while the entry lives.
        self._made: dict[tuple[int, int, str], tuple[Edition, CellResult, dict[str, Markup]]] = {}

    def __call__(self, edition: Edition, cell: CellResult, root: str) -> dict[str, Markup]:
        key = (id(edition), id(cell), root)
        found = self._made.get(key)
        if found is None or found[0] is not edition or found[1] is not cell:
            found = (edition, cell, cell_figures(edition, cell, root))
            self._made[key] = found
        return found[2]
