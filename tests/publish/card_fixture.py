"""A realistic rate card for the publish tests: 7 workloads × 40 models with long names.

It carries what a real edition carries and a one-workload fixture never does: reference lines,
cells awaiting the judge, a withdrawn cell, void cells, several flagships, sub-cent and
four-figure rates. The per-cell figures are seeded test inputs, never shown as measurements
outside the tests; the derived figures (cheapest qualifying, flagship, premium, multipliers)
come from the real metrics functions and withdrawals from the real erratum path, so the card
is rendered from what the pipeline would produce.
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

from ledgerrate.metrics import indices
from ledgerrate.metrics.money import quantize_cpo
from ledgerrate.publish.withdrawals import apply_withdrawals
from ledgerrate.schema import (
    CellResult,
    EditionManifest,
    EditionResults,
    ErrataFile,
    Interval,
    Mode,
    RoutingVerdict,
    TokenTotals,
    WorkloadResult,
)
from ledgerrate.workloads import get

EDITION = "2027-03"
WORKLOADS = (
    "extract.invoice.v2",
    "triage.ap-inbox.v1",
    "reconcile.ledger.v1",
    "generate.variance-commentary.v1",
    "synthesize.board-brief.v1",
    "query.nl2sql.v1",
    "execute.month-end.v1",
)
VENDORS = ("Northwind", "Contoso", "Fabrikam", "Tailspin", "Wingtip", "Adventure Works",
           "Litware", "Proseware")  # fmt: skip
N_MODELS = 40
FLAGSHIPS = {"m00", "m08", "m16", "m24", "m32"}
REFERENCE = "reference"
WITHDRAWN_WORKLOAD = "execute.month-end.v1"
ERRATUM = "2027-03-20"


def model_name(index: int) -> str:
    vendor = VENDORS[index % len(VENDORS)]
    tier = ("Ultra", "Pro", "Flash", "Mini", "Nano")[index // len(VENDORS)]
    return (
        f"{vendor} {tier} Reasoning {2026 + index % 2}-{index % 12 + 1:02d}-04 Preview "
        f"(extended thinking, 200k context, batch tier {index})"
    )


def manifest() -> EditionManifest:
    models = [
        {
            "id": f"m{i:02d}",
            "name": model_name(i),
            "provider": "openai",
            "family": VENDORS[i % len(VENDORS)].lower().replace(" ", "-"),
            "api_model": f"model-{i}",
            "base_url": "http://127.0.0.1:9/v1",
            "api_key_env": f"KEY_{i}",
            "flagship": f"m{i:02d}" in FLAGSHIPS,
        }
        for i in range(N_MODELS)
    ]
    models.append(
        {"id": REFERENCE, "name": "Reference baseline", "provider": "baseline", "family": "ref"}
    )
    return EditionManifest.model_validate(
        {
            "id": EDITION,
            "date": "2027-03-14",
            "methodology_version": "1.0",
            "window": {"opens": "2027-03-10T00:00:00Z", "closes": "2027-03-13T00:00:00Z"},
            "workloads": [{"id": w} for w in WORKLOADS],
            "models": models,
        }
    )


def _cell(
    workload: str,
    model: str,
    mode: str,
    passes: int,
    spend: Decimal,
    *,
    pending: int = 0,
    void: bool = False,
    reference: bool = False,
) -> CellResult:
    graded = pending == 0
    cpo = quantize_cpo(spend / passes) if passes and graded else None
    rate = passes / 15 if graded else None
    return CellResult(
        workload=workload,
        model=model,
        mode=Mode(mode),
        sitting=1,
        is_reference=reference,
        n=15,
        completed=15,
        model_failures=0,
        missing=0,
        passes=passes,
        pending_judge=pending,
        pass_rate=rate,
        pass_rate_ci=None
        if rate is None
        else Interval(lo=max(0.0, rate - 0.2), hi=min(1.0, rate + 0.1), method="wilson-95"),
        spend_usd=spend,
        cpo_usd=cpo,
        cpo_ci=None
        if cpo is None
        else Interval(lo=cpo * Decimal("0.8"), hi=cpo * Decimal("1.3"), method="bootstrap"),
        cost_per_attempt_usd=quantize_cpo(spend / 15),
        tokens=TokenTotals(input=150_000, output=30_000),
        latency_median_s=2.0,
        latency_p90_s=5.0,
        infra_excluded_attempts=0,
        infra_excluded_usd=Decimal(0),
        grading_cost_usd=Decimal(0),
        cost_basis="compute" if reference else "measured",
        qualifying=graded and not void and passes >= 12,
        void=void,
        void_reasons=["a counted run started outside the edition window"] if void else [],
    )


def _cells(workload: str, rng: random.Random, shape: str = "mixed") -> list[CellResult]:
    """`shape`: "mixed" (the card of the module docstring), "full" (every job has a rate) or
    "empty" (every model evaluated, none reaches the bar)."""
    if shape != "mixed":
        return _shaped_cells(workload, rng, shape)
    modes = get(workload).modes
    cells = []
    for i in range(N_MODELS):
        model = f"m{i:02d}"
        for mode in modes:
            passes = rng.randint(4, 15)
            spend = Decimal(rng.randint(40, 400_000)) / Decimal(10_000)  # $0.004 … $40
            pending = 0
            void = False
            if workload == "triage.ap-inbox.v1":
                passes = min(passes, 11)  # nobody reaches the bar
            if workload == "reconcile.ledger.v1":
                void = True  # every model cell void
            if workload == "synthesize.board-brief.v1":
                pending = 15  # no judge verdict yet: nothing counts
            if workload == "generate.variance-commentary.v1" and i % 3 == 0:
                pending = rng.randint(1, 15)
            if workload == "query.nl2sql.v1" and model in FLAGSHIPS:
                passes = 0  # flagships evaluated, no successful outcome
            cells.append(_cell(workload, model, mode, passes, spend, pending=pending, void=void))
    ref_mode = modes[0]
    ref_pending = 15 if get(workload).judged else 0
    cells.append(
        _cell(
            workload,
            REFERENCE,
            ref_mode,
            14 if ref_pending == 0 else 0,
            Decimal("0.0000001656"),
            pending=ref_pending,
            reference=True,
        )
    )
    if workload == "extract.invoice.v2":
        # One cheap, qualifying model: a sub-cent rate on the card.
        cells[5] = _cell(workload, "m02", cells[5].mode.value, 13, Decimal("0.0000021"))
    return cells


def _shaped_cells(workload: str, rng: random.Random, shape: str) -> list[CellResult]:
    cells = []
    for i in range(N_MODELS):
        for mode in get(workload).modes:
            passes = rng.randint(12, 15) if shape == "full" else rng.randint(0, 11)
            spend = Decimal(rng.randint(40, 400_000)) / Decimal(10_000)
            cells.append(_cell(workload, f"m{i:02d}", mode, passes, spend))
    cells.append(
        _cell(workload, REFERENCE, get(workload).modes[0], 14, Decimal("0.0000001656"),
              reference=True)
    )  # fmt: skip
    return cells


def workload_result(
    workload: str, manifest: EditionManifest, rng: random.Random, shape: str = "mixed"
) -> WorkloadResult:
    meta = get(workload)
    cells = _cells(workload, rng, shape)
    names = indices.model_names({m.id: m.name for m in manifest.models})
    flagships = {m.id for m in manifest.models if m.flagship}
    cheapest = indices.cheapest_qualifying(cells)
    flagship = indices.flagship_cell(cells, flagships)
    return WorkloadResult(
        workload=workload,
        title=meta.title,
        unit=meta.unit,
        volume=meta.volume,
        judged=meta.judged,
        cells=cells,
        cheapest_qualifying=indices.rate_line(cheapest, names, meta.volume),
        flagship=indices.rate_line(flagship, names, meta.volume),
        flagship_note=indices.flagship_note(flagship, flagships),
        frontier_premium=indices.frontier_premium(flagship, cheapest),
        agentic_multiplier=indices.agentic_multipliers(cells, meta.modes),
        reference=indices.rate_line(indices.reference_cell(cells), names, meta.volume),
        routing=RoutingVerdict(verdict="not_applicable", reason="test fixture"),
    )


def computed_results(seed: int = 20270314, shape: str = "mixed") -> EditionResults:
    """The figures as the metrics stage would write them to results.json."""
    rng = random.Random(seed)
    m = manifest()
    return EditionResults(
        edition=EDITION,
        date=m.date,
        methodology_version="1.0",
        brand="LedgerRate",
        reference_only=False,
        bootstrap_seed=seed,
        bootstrap_reps=1000,
        workloads=[workload_result(w, m, rng, shape) for w in WORKLOADS],
    )


def errata(results: EditionResults) -> ErrataFile:
    """Withdraw the month-end cheapest qualifying cell's figures, as erratum 2026-11-29 did."""
    month_end = next(w for w in results.workloads if w.workload == WITHDRAWN_WORKLOAD)
    line = month_end.cheapest_qualifying
    assert line is not None
    figures = [
        {"workload": WITHDRAWN_WORKLOAD, "model": line.model, "mode": line.mode.value,
         "field": f, "old": "as published", "new": None}
        for f in ("pass_rate", "cpo_usd")
    ]  # fmt: skip
    return ErrataFile.model_validate(
        {
            "edition": EDITION,
            "entries": [
                {
                    "id": ERRATUM,
                    "date": dt.date(2027, 3, 20),
                    "title": "Month-end figures withdrawn",
                    "what_changed": "one cell's pass rate and CPO are withdrawn",
                    "why": "a harness fault was counted as a failure",
                    "figures": figures,
                    "withdrawn": True,
                }
            ],
        }
    )


def shown_results() -> EditionResults:
    """The figures as the site shows them: the withdrawn cell's figures gone."""
    computed = computed_results()
    return apply_withdrawals(computed, errata(computed))
