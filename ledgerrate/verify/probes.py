"""The tools probes' spend, re-derived: every probe call's cost is its usage (or, self-hosted,
its server time) at the frozen prices, every probe's cost the sum of its calls', and each
model's total is stated, so the one spend outside every cell is accounted for to the cent."""

from __future__ import annotations

from decimal import Decimal

from ledgerrate.core.cost import call_cost
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import FileProblem
from ledgerrate.core.layout import EditionPaths
from ledgerrate.core.probe_spend import probe_spend, read_probes
from ledgerrate.schema import Cost, PricingTable
from ledgerrate.verify.report import Report

CHECK = "probe costs recomputed"


def check_probes(paths: EditionPaths, pricing: PricingTable, report: Report) -> None:
    try:
        probes = read_probes(paths)
    except FileProblem as problem:  # the schema check names the bad line
        report.fail(CHECK, file="probes", field="probes", expected="readable", found=problem)
        return
    for model, records in probes.items():
        rel = paths.probes(model).relative_to(paths.root).as_posix()
        for record in records:
            where = f"probe {record.started_at.isoformat()}"
            total = Cost()
            for call in record.calls:
                try:
                    expected = call_cost(call.usage, call.latency_s, pricing, model)
                except UsageProblem as problem:
                    report.fail(CHECK, file=rel, record=where, field="model", found=problem)
                    return
                total = total + expected
                report.expect(
                    CHECK,
                    expected == call.cost,
                    file=rel,
                    record=where,
                    field=f"calls[{call.step}].cost",
                    expected=expected.total_usd,
                    found=call.cost.total_usd,
                )
            report.expect(
                CHECK,
                total.total_usd == record.cost.total_usd,
                file=rel,
                record=where,
                field="cost",
                expected=total.total_usd,
                found=record.cost.total_usd,
            )
    for spent in probe_spend(probes, pricing):
        if spent.usd > Decimal(0) or spent.calls:
            report.notes.append(
                f"tools probe spend of {spent.model}: ${spent.usd} over {spent.probes} probes "
                f"({spent.calls} calls), re-derived at the frozen prices; infrastructure, in no "
                "cell's figures"
            )
