"""Derived indices of one workload: cheapest qualifying, flagship, premium, multiplier.

Void cells never enter any of them; reference baselines are shown on their own line and never
ranked, because a deterministic solver that costs a fraction of a cent is not a model a reader
could route work to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal

from ledgerrate.metrics.money import rate, ratio
from ledgerrate.schema import CellResult, Mode, RateLine


def _usable(cells: Iterable[CellResult]) -> list[CellResult]:
    return [c for c in cells if not c.void and c.n > 0]


def _rank(cell: CellResult) -> tuple[int, Decimal, float, str, str]:
    # Lowest CPO first; a cell without a CPO after every priced one. Ties go to the higher pass
    # rate (same price, more often right), then to model id and mode so the order never
    # depends on file order.
    priced = cell.cpo_usd is not None
    return (
        0 if priced else 1,
        cell.cpo_usd if priced else Decimal(0),  # type: ignore[return-value]
        -(cell.pass_rate or 0.0),
        cell.model,
        str(cell.mode),
    )


def cheapest_qualifying(cells: Iterable[CellResult]) -> CellResult | None:
    """Lowest-CPO qualifying cell among models (never a reference baseline)."""
    ranked = sorted((c for c in _usable(cells) if c.qualifying and not c.is_reference), key=_rank)
    return ranked[0] if ranked and ranked[0].cpo_usd is not None else None


def flagship_cell(cells: Iterable[CellResult], flagships: set[str]) -> CellResult | None:
    """The lowest-CPO cell of a model marked flagship, qualifying or not."""
    ranked = sorted(
        (c for c in _usable(cells) if c.model in flagships and not c.is_reference), key=_rank
    )
    return ranked[0] if ranked else None


def flagship_note(cell: CellResult | None, flagships: set[str]) -> str | None:
    if not flagships:
        return "no model in this edition is marked flagship"
    if cell is None:
        return "no flagship cell has usable results (none run yet, or every one is void)"
    if cell.cpo_usd is None:
        return f"flagship {cell.model} ({cell.mode}) had no successful outcome: no rate"
    if not cell.qualifying:
        shown = f"{cell.passes}/{cell.n}"
        return (
            f"flagship {cell.model} ({cell.mode}) does not qualify: {shown} passed, below "
            "the 0.80 bar (or not every item is graded); its rate is shown for comparison"
        )
    return None


def reference_cell(cells: Iterable[CellResult]) -> CellResult | None:
    ranked = sorted((c for c in _usable(cells) if c.is_reference), key=_rank)
    return ranked[0] if ranked and ranked[0].cpo_usd is not None else None


def rate_line(
    cell: CellResult | None, name_of: Callable[[str], str], volume: int
) -> RateLine | None:
    """A rate-card line for a priced cell; None when the cell has no CPO."""
    if cell is None or cell.cpo_usd is None or cell.pass_rate is None or cell.pass_rate_ci is None:
        return None
    return RateLine(
        model=cell.model,
        model_name=name_of(cell.model),
        mode=cell.mode,
        cpo_usd=cell.cpo_usd,
        rate_usd=rate(cell.cpo_usd, volume),
        pass_rate=cell.pass_rate,
        pass_rate_ci=cell.pass_rate_ci,
        cost_basis=cell.cost_basis,
    )


def frontier_premium(flagship: CellResult | None, cheapest: CellResult | None) -> float | None:
    """Flagship CPO ÷ cheapest-qualifying CPO: how much more the flagship costs per success."""
    if flagship is None or cheapest is None:
        return None
    return ratio(flagship.cpo_usd, cheapest.cpo_usd)


def agentic_multipliers(
    cells: Iterable[CellResult], modes: Iterable[str]
) -> dict[str, float | None]:
    """Agentic CPO ÷ single-shot CPO per model; null when either arm has no CPO or is void.

    Empty for agentic-only workloads, where there is nothing to divide by.
    """
    if {Mode.single_shot.value, Mode.agentic.value} - set(modes):
        return {}
    by_model: dict[str, dict[str, CellResult]] = {}
    for cell in cells:
        if not cell.is_reference:
            by_model.setdefault(cell.model, {})[str(cell.mode)] = cell
    found: dict[str, float | None] = {}
    for model, arms in sorted(by_model.items()):
        agentic, single = arms.get(Mode.agentic.value), arms.get(Mode.single_shot.value)
        usable = all(a is not None and not a.void for a in (agentic, single))
        found[model] = (
            ratio(agentic.cpo_usd, single.cpo_usd) if usable else None  # type: ignore[union-attr]
        )
    return found


def model_names(names: Mapping[str, str]) -> Callable[[str], str]:
    return lambda model_id: names.get(model_id, model_id)
