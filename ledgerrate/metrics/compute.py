"""From an edition's inputs to `EditionResults`: the pure core behind `results` and `verify`."""

from __future__ import annotations

import pandas as pd

from ledgerrate.core import forked
from ledgerrate.grade.family import judge_family_overlap
from ledgerrate.metrics import indices
from ledgerrate.metrics.cells import QUALITY_BAR, CellData, TimeRate, cell_result
from ledgerrate.metrics.grading_cost import grading_costs_by_cell
from ledgerrate.metrics.grouped import assemble_cells
from ledgerrate.metrics.intervals import (
    CONFIDENCE,
    DEFAULT_REPS,
    edition_seed,
    keyed_rng,
    z_quantile,
)
from ledgerrate.metrics.load import CellKey, EditionInputs
from ledgerrate.metrics.manual import manual_cell, manual_data
from ledgerrate.metrics.meta import MetaLookup, WorkloadMeta
from ledgerrate.metrics.routing import Arm, routing_verdict
from ledgerrate.metrics.rows import is_missing
from ledgerrate.metrics.void import accepted_graders, cross_mode_reasons, void_reasons
from ledgerrate.schema import (
    MANUAL_MODEL,
    CellResult,
    EditionManifest,
    EditionResults,
    Mode,
    PricingTable,
    WorkloadResult,
)

MODE_ORDER = [Mode.single_shot.value, Mode.agentic.value]


def _cell_keys(workload: WorkloadMeta, manifest: EditionManifest, runs: pd.DataFrame) -> list:
    """Every cell that should exist (models × the workload's modes) and every cell that does.

    A baseline is listed only when it ran: not every workload has a reference solver.
    """
    model_order = [m.id for m in manifest.models]
    keys = {
        (workload.id, m.id, mode)
        for m in manifest.models
        if not m.is_reference
        for mode in workload.modes
    }
    # Columns as lists: iterating a pandas string column fetches each value on its own.
    pairs = zip(runs["model"].tolist(), runs["mode"].tolist())  # noqa: B905
    keys |= {(workload.id, model, mode) for model, mode in pairs}
    return sorted(
        keys,
        key=lambda k: (
            model_order.index(k[1]) if k[1] in model_order else len(model_order),
            k[1],
            MODE_ORDER.index(k[2]) if k[2] in MODE_ORDER else len(MODE_ORDER),
        ),
    )


def time_rate(model: str, is_reference: bool, pricing: PricingTable | None) -> TimeRate | None:
    """How the cell of `model` is priced by time, if it is: a self-hosted model's server time
    at its instance price, a reference baseline's CPU time at the vCPU-hour price."""
    if pricing is None:
        return None
    if model in pricing.self_hosted:
        return TimeRate("self-hosted", pricing.self_hosted[model].hour_usd)
    if is_reference and pricing.compute is not None:
        return TimeRate("compute", pricing.compute.vcpu_hour_usd)
    return None


def workload_result(
    inputs: EditionInputs, workload: WorkloadMeta, n: int, seed: int, reps: int
) -> WorkloadResult:
    manifest = inputs.manifest
    references = {m.id for m in manifest.models if m.is_reference}
    flagships = {m.id for m in manifest.models if m.flagship and m.id not in references}
    same_family = set(judge_family_overlap(manifest))  # §5.4: these need a second judge
    runs = inputs.runs_of(workload.id)
    grades = inputs.grades_of(workload.id)

    # One grouped pass assembles every cell (metrics/grouped.py); a sort, group-by and merge
    # per cell cost most of `results` at 40 models.
    data: dict[CellKey, CellData] = assemble_cells(
        _cell_keys(workload, manifest, runs), runs, grades, n
    )
    sittings = inputs.manual.get(workload.id, [])
    by_hand: CellKey = (workload.id, MANUAL_MODEL, Mode.by_hand.value)
    if sittings:  # the manual arm's cell is its latest sitting's, void or not (metrics/manual)
        data[by_hand] = manual_data(by_hand, runs, grades, n, sittings)
    crossed = cross_mode_reasons(data)
    grading = grading_costs_by_cell(grades)
    graders = [h for h in grades["grader_hash"].unique().tolist() if not is_missing(h)]
    accepted = accepted_graders(workload.id, inputs.registration, graders)
    cells: dict[CellKey, CellResult] = {
        key: cell_result(
            d,
            is_reference=key[1] in references,
            seed=seed,
            reps=reps,
            void_reasons=[
                *void_reasons(d, inputs.registration, accepted),
                *crossed.get(key, []),
            ],
            flags=inputs.flags.get(key, []),
            judge_same_family=key[1] in same_family,
            judged=workload.judged and manifest.judge is not None,
            grading_by_revision=grading.get((key[1], key[2]), []),
            time_rate=time_rate(key[1], key[1] in references, inputs.pricing),
        )
        for key, d in data.items()
    }
    if sittings:
        cells[by_hand] = manual_cell(cells[by_hand], data[by_hand], sittings, seed=seed, reps=reps)

    def arm(cell: CellResult | None) -> Arm | None:
        return None if cell is None else Arm(cell, data[(cell.workload, cell.model, cell.mode)])

    listed = list(cells.values())
    # The manual arm is shown beside the models, never ranked among them (ARCHITECTURE.md §12).
    models = [cell for cell in listed if cell.manual is None and cell.model != MANUAL_MODEL]
    names = indices.model_names({m.id: m.name for m in manifest.models})
    cheapest = indices.cheapest_qualifying(models)
    flagship = indices.flagship_cell(models, flagships)
    return WorkloadResult(
        workload=workload.id,
        title=workload.title,
        unit=workload.unit,
        volume=workload.volume,
        judged=workload.judged,
        cells=listed,
        cheapest_qualifying=indices.rate_line(cheapest, names, workload.volume),
        flagship=indices.rate_line(flagship, names, workload.volume),
        flagship_note=indices.flagship_note(flagship, flagships),
        frontier_premium=indices.frontier_premium(flagship, cheapest),
        flagship_premiums=indices.flagship_premiums(
            models,
            {m.id: m.family for m in manifest.models if m.id in flagships},
            cheapest,
            names,
            workload.volume,
        ),
        agentic_multiplier=indices.agentic_multipliers(models, workload.modes),
        reference=indices.rate_line(indices.reference_cell(models), names, workload.volume),
        routing=routing_verdict(
            arm(cheapest),
            arm(flagship),
            rng=keyed_rng(seed, "routing", workload.id),
            reps=reps,
            has_flagship=bool(flagships),
        ),
    )


def compute_results(
    inputs: EditionInputs, lookup: MetaLookup, reps: int = DEFAULT_REPS
) -> EditionResults:
    manifest = inputs.manifest
    seed = edition_seed(manifest.id)
    # Looked up here, before the workers fork: a lookup that imports every workload (the
    # registry's, for a version `workloads/facts.py` does not list) does so once.
    metas = {entry.id: lookup(entry.id) for entry in manifest.workloads}
    z_quantile(CONFIDENCE)  # and scipy, for a confidence not in its table, for the same reason
    return EditionResults(
        edition=manifest.id,
        date=manifest.date,
        methodology_version=manifest.methodology_version,
        brand=manifest.brand,
        reference_only=manifest.reference_only,
        quality_bar=QUALITY_BAR,
        bootstrap_seed=seed,
        bootstrap_reps=reps,
        # A workload per worker (ledgerrate/core/forked.py): each is independent of the others, its
        # bootstrap drawn from its own keyed stream, so the figures are the same in any order.
        workloads=forked.map_forked(
            lambda entry: workload_result(inputs, metas[entry.id], entry.n, seed, reps),
            manifest.workloads,
        ),
        probe_spend=inputs.probe_spend,
    )
