"""The two cross-checks against the price database (issue #47 §2), as pure functions.

1. Frozen prices beside the database's for the window's opening instant, per model and class,
   with every difference said in words (printed by `register`, a table on the edition page).
2. Per cell, the recorded cost of every counted call beside the cost the database computes
   from the same usage at the same instant; the per-cell total of the differences is shown on
   the workload page's evidence section and in `verify`'s report.

Neither ever changes a frozen price or a recorded cost: a difference is information. The
records counted are the ones the cell's figures count (the published sitting's counted attempt
per item), chosen here as `metrics/sittings.py` and the standalone verifier choose them.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping
from decimal import Decimal

from ledgerrate.generate import price_database as db
from ledgerrate.schema import (
    PRICE_CLASSES,
    CellCheck,
    DatabaseRate,
    EditionManifest,
    ModelCheck,
    ModelPrice,
    ModelSpec,
    PriceCheck,
    PricingTable,
    RunRecord,
    RunStatus,
)

# Where a class has no price of its own, both tables bill it at another class's price.
FALLBACK = {"cached_input": "input", "cache_write": "input", "reasoning": "output"}


def _unknown_reason(spec: ModelSpec) -> str | None:
    if spec.is_reference:
        return (
            "a deterministic reference solver, not a language model: costed by the CPU time it "
            "used, which no price database lists"
        )
    if spec.local is not None:
        return (
            "served on this machine and costed by its server time × a declared instance price: "
            "nobody sells its tokens, so no price database lists it"
        )
    if db.price_provider(spec) is None:
        return f"API family {spec.provider} reaches no vendor the price database covers"
    return None


def frozen_rates(price: ModelPrice | None) -> dict[str, Decimal | None]:
    if price is None:
        return {}
    return {
        "input": price.input_per_mtok,
        "cached_input": price.cached_input_per_mtok,
        "cache_write": price.cache_write_per_mtok,
        "output": price.output_per_mtok,
        "reasoning": price.reasoning_per_mtok,
    }


def _effective(rates: Mapping[str, Decimal | None], cls: str) -> Decimal | None:
    value = rates.get(cls)
    if value is None and cls in FALLBACK:
        return rates.get(FALLBACK[cls])
    return value


def _usd(value: Decimal | None) -> str:
    return "none" if value is None else f"${value.normalize():f}"


def differences(frozen: Mapping[str, Decimal | None], found: db.Found) -> list[str]:
    """Each class where the frozen table and the database bill a token differently."""
    theirs: dict[str, Decimal | None] = {c: r.per_mtok for c, r in found.rates.items()}
    out = []
    for cls in PRICE_CLASSES:
        if cls in FALLBACK and frozen.get(cls) is None and theirs.get(cls) is None:
            continue  # both bill it at the class it falls back to: said once, there
        mine, other = _effective(frozen, cls), _effective(theirs, cls)
        if mine != other:
            out.append(f"{cls}: frozen {_usd(mine)}, database {_usd(other)} per 1M tokens")
    for cls, rate in found.rates.items():
        for tier in rate.tiers:
            out.append(
                f"{cls}: the database charges ${tier.per_mtok.normalize():f} per 1M tokens on "
                f"calls of more than {tier.above_input_tokens:,} input tokens; the frozen table "
                "has one rate"
            )
    if found.per_request_usd:
        out.append(
            f"the database adds ${found.per_request_usd.normalize():f} per request; the frozen "
            "table has no per-request fee"
        )
    return out


def model_check(spec: ModelSpec, pricing: PricingTable, at: dt.datetime) -> ModelCheck:
    frozen = frozen_rates(pricing.models.get(spec.id))
    reason = _unknown_reason(spec)
    if reason is not None:
        return ModelCheck(known=False, reason=reason, frozen=frozen)
    provider = db.price_provider(spec) or ""
    found = db.lookup(provider, spec.api_model or "", at)
    if found.model is None:
        return ModelCheck(
            known=False,
            reason=f"{db.NAME} {db.database_version()} does not know {spec.api_model!r} "
            f"(provider {provider!r})",
            provider=provider,
            cites=found.cites,
            frozen=frozen,
        )
    extra = (
        f"the database also prices {', '.join(found.unpriced)}: usage LedgerRate's calls "
        "never record"
        if found.unpriced
        else ""
    )
    return ModelCheck(
        known=True,
        reason=extra,
        provider=provider,
        model=found.model,
        cites=found.cites,
        database=found.rates,
        per_request_usd=found.per_request_usd,
        frozen=frozen,
        differences=differences(frozen, found) if frozen else [],
    )


def price_check(manifest: EditionManifest, pricing: PricingTable) -> PriceCheck:
    """Cross-check 1 for every model and judge of an edition (no cells yet)."""
    at = manifest.window.opens
    return PriceCheck(
        edition=manifest.id,
        database=db.NAME,
        database_version=db.database_version(),
        at=at,
        models={
            spec.id: model_check(spec, pricing, at) for spec in [*manifest.models, *manifest.judges]
        },
    )


def counted_runs(runs: Iterable[RunRecord], n: int) -> list[RunRecord]:
    """The runs a cell's figures count: per item the last attempt that is not an
    infrastructure exclusion, in the latest sitting whose n items all have one."""
    by_sitting: dict[int, dict[str, RunRecord]] = defaultdict(dict)
    eligible = (r for r in runs if r.status != RunStatus.infra_excluded)
    for run in sorted(eligible, key=lambda r: (r.item_id, r.attempt, r.finished_at, r.run_id)):
        by_sitting[run.sitting][run.item_id] = run
    if not by_sitting:
        return []
    complete = [s for s in sorted(by_sitting) if len(by_sitting[s]) >= n]
    chosen = complete[-1] if complete else max(by_sitting)
    return [by_sitting[chosen][item] for item in sorted(by_sitting[chosen])]


def cell_checks(
    manifest: EditionManifest, check: PriceCheck, runs: Iterable[RunRecord]
) -> list[CellCheck]:
    """Cross-check 2: per cell of a model the database knows, every counted call's recorded
    cost beside the database's cost for its usage at the window's opening instant."""
    n_of = {w.id: w.n for w in manifest.workloads}
    cells: dict[tuple[str, str, str], list[RunRecord]] = defaultdict(list)
    for run in runs:
        if run.kind == "registered" and run.model in check.models and check.models[run.model].known:
            cells[(run.workload, run.model, str(run.mode))].append(run)
    out = []
    for (workload, model_id, mode), records in sorted(cells.items()):
        spec = manifest.model(model_id)
        provider = check.models[model_id].provider or ""
        ours = theirs = Decimal(0)
        calls = 0
        for run in counted_runs(records, n_of.get(workload, 1)):
            for call in run.calls:
                calls += 1
                ours += call.cost.model_usd
                theirs += db.database_cost(provider, spec.api_model or "", call.usage, check.at)
        out.append(
            CellCheck(
                workload=workload,
                model=model_id,
                mode=mode,
                calls=calls,
                ledgerrate_usd=ours,
                database_usd=theirs,
                difference_usd=theirs - ours,
            )
        )
    return out


def rate_text(rate: DatabaseRate | None) -> str:
    if rate is None:
        return "—"
    tiers = "".join(
        f"; ${t.per_mtok.normalize():f} above {t.above_input_tokens:,} input tokens"
        for t in rate.tiers
    )
    return f"${rate.per_mtok.normalize():f}{tiers}"


def report_lines(check: PriceCheck) -> list[str]:
    """Cross-check 1 as `register` prints it: one line per model, then one per difference."""
    head = f"prices beside {check.database} {check.database_version} at {check.at.isoformat()}:"
    lines = [head]
    for model_id, found in check.models.items():
        if not found.known:
            lines.append(f"  {model_id}: not in the database ({found.reason})")
        elif not found.differences:
            lines.append(f"  {model_id}: the frozen prices match {found.model} in the database")
        else:
            lines.append(
                f"  {model_id}: {len(found.differences)} difference(s) from {found.model} in the "
                "database (listed, not applied):"
            )
            lines += [f"    - {d}" for d in found.differences]
    return lines
