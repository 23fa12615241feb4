"""What the tools probes cost, per model: infrastructure spend that is in no cell's figures.

Before a model's first agentic cell, `run` checks that its endpoint hands the tools to the model
(`probes/<model>.jsonl`); those calls are paid like any other. Each call's cost is re-derived
here from what the record holds, exactly as a run's call is: its usage at the frozen token
prices, or, for a self-hosted model, its server time at the instance price (`cost.call_cost`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from ledgerrate.core.cost import call_cost
from ledgerrate.core.io import read_jsonl
from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import PricingTable, ProbeSpend
from ledgerrate.schema.records import ProbeRecord


def read_probes(paths: EditionPaths) -> dict[str, list[ProbeRecord]]:
    """Every probe record of the edition, by the model probed (sorted by model)."""
    folder = paths.probes_dir
    found: dict[str, list[ProbeRecord]] = {}
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        found[path.stem] = read_jsonl(path, ProbeRecord)
    return found


def probe_spend(
    probes: Mapping[str, Sequence[ProbeRecord]], pricing: PricingTable
) -> list[ProbeSpend]:
    """Each model's probe spend, every call priced afresh (a cost the record states is not read)."""
    spent = []
    for model, records in sorted(probes.items()):
        calls = [call for record in records for call in record.calls]
        usd = sum(
            (call_cost(c.usage, c.latency_s, pricing, model).total_usd for c in calls), Decimal(0)
        )
        spent.append(ProbeSpend(model=model, probes=len(records), calls=len(calls), usd=usd))
    return spent
