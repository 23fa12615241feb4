"""Derived indices of one workload: cheapest qualifying, flagships, premiums, multiplier.

Void cells never enter any of them; reference baselines are shown on their own line and never
ranked, because a deterministic solver that costs a fraction of a cent is not a model a reader
could route work to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal

from ledgerrate.metrics.money import rate, ratio
from ledgerrate.schema import STANDARD_N, CellResult, FlagshipPremium, Mode, RateLine


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


def _flagship_rank(cell: CellResult) -> tuple[int, tuple[int, Decimal, float, str, str]]:
    # A qualifying cell before any that does not: a flagship's rate is what it charges for
    # doing the job to the standard, when it does.
    return (0 if cell.qualifying else 1, _rank(cell))


def flagship_cells(cells: Iterable[CellResult], flagships: Iterable[str]) -> list[CellResult]:
    """Each flagship model's own cell: its lowest-CPO qualifying cell, or its lowest-CPO cell
    when none of its modes qualifies; flagships without a usable cell are left out. Ordered
    like the headline: qualifying before not, then by CPO."""
    best: dict[str, CellResult] = {}
    for cell in sorted(_usable(cells), key=_flagship_rank):
        if cell.model in set(flagships) and not cell.is_reference:
            best.setdefault(cell.model, cell)
    return sorted(best.values(), key=_flagship_rank)


def flagship_cell(cells: Iterable[CellResult], flagships: set[str]) -> CellResult | None:
    """The headline flagship (methodology, figures): of the flagships' own cells, the lowest-CPO
    one that qualifies; when no flagship qualifies, the lowest-CPO one, labelled by its note."""
    ranked = flagship_cells(cells, flagships)
    return ranked[0] if ranked else None


def flagship_note(cell: CellResult | None, flagships: set[str]) -> str | None:
    if not flagships:
        return "no model in this edition is marked flagship"
    if cell is None:
        return "no flagship cell has usable results (none run yet, or every one is void)"
    if cell.cpo_usd is None:
        return f"flagship {cell.model} ({cell.mode}) had no successful outcome: no rate"
    protocol = cell.judge_protocol
    if not cell.qualifying and protocol is not None and protocol.missing:
        return (
            f"flagship {cell.model} ({cell.mode}) does not qualify: the judged-task protocol "
            f"is not met ({protocol.missing[0]}); its rate is shown for comparison"
        )
    if not cell.qualifying and cell.n + cell.missing < STANDARD_N:
        return (
            f"flagship {cell.model} ({cell.mode}) does not qualify: n = {cell.n + cell.missing}, "
            f"short of the standard's {STANDARD_N}; its rate is shown for comparison"
        )
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


def flagship_premiums(
    cells: Iterable[CellResult],
    flagships: Mapping[str, str],
    cheapest: CellResult | None,
    name_of: Callable[[str], str],
    volume: int,
) -> list[FlagshipPremium]:
    """One frontier premium per flagship (standard §2.2): each vendor's flagship CPO ÷ the
    cheapest-qualifying CPO. `flagships` maps each flagship model to its vendor family; a
    flagship without a usable cell is listed with no line and says why."""
    listed = list(cells)
    own = {cell.model: cell for cell in flagship_cells(listed, flagships)}
    order = [*own, *sorted(set(flagships) - set(own))]
    out = []
    for model in order:
        cell = own.get(model)
        out.append(
            FlagshipPremium(
                model=model,
                vendor=flagships[model],
                line=rate_line(cell, name_of, volume),
                qualifying=bool(cell is not None and cell.qualifying),
                premium=frontier_premium(cell, cheapest),
                note=_premium_note(cell, cheapest, model),
            )
        )
    return out


def _premium_note(cell: CellResult | None, cheapest: CellResult | None, model: str) -> str | None:
    if cell is None:
        return f"flagship {model} has no usable cell (none run yet, or every one is void)"
    if cell.cpo_usd is None:
        return flagship_note(cell, {model})
    if cheapest is None:
        return "no model qualifies: no premium"
    if (cell.model, cell.mode) == (cheapest.model, cheapest.mode):
        return "the flagship is itself the cheapest qualifying model"
    return flagship_note(cell, {model})


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
