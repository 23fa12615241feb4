"""Money and figures, recomputed: usage × frozen prices, and every published figure."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from ledgerrate.core.cost import compute_cost, self_hosted_cost, usage_cost
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.metrics.totals_format import in_format_of
from ledgerrate.schema import (
    CostBasis,
    EditionResults,
    JudgeBlock,
    PricingTable,
    RunRecord,
    UsageBasis,
)
from ledgerrate.verify.parsed import EditionLogs
from ledgerrate.verify.report import Report


def check_costs(
    paths: EditionPaths, pricing: PricingTable, report: Report, logs: EditionLogs | None = None
) -> None:
    """Every call's cost is its usage at the frozen prices; every run's cost is their sum."""
    logs = logs if logs is not None else EditionLogs.read(paths.root)
    for run_log in logs.runs:
        rel = run_log.rel
        for run in run_log.records_or_raise():
            _check_run_cost(run, pricing, report, rel)
    for grade_log in logs.grades:
        rel = grade_log.rel
        for grade in grade_log.records_or_raise():
            judge = grade.judge
            while judge is not None:
                if judge.judge_model in pricing.self_hosted:
                    _check_self_hosted_judge(grade.run_id, judge, pricing, report, rel)
                    judge = judge.second_opinion
                    continue
                expected = _priced(pricing, judge.judge_model, judge.usage)
                report.expect(
                    "costs recomputed",
                    expected == judge.cost.model_usd,
                    file=rel,
                    record=grade.run_id,
                    field=f"judge[{judge.judge_model}].cost",
                    expected=expected,
                    found=judge.cost.model_usd,
                )
                judge = judge.second_opinion


def _check_self_hosted_judge(
    run_id: str, judge: JudgeBlock, pricing: PricingTable, report: Report, rel: str
) -> None:
    """A self-hosted judge's call: its recorded server time × the instance price."""
    expected: Decimal | str = "a recorded latency_s"
    if judge.latency_s is not None:
        expected = self_hosted_cost(judge.latency_s, pricing, judge.judge_model).compute_usd
    report.expect(
        "costs recomputed",
        expected == judge.cost.compute_usd and judge.cost.model_usd == 0,
        file=rel,
        record=run_id,
        field=f"judge[{judge.judge_model}].cost.compute_usd",
        expected=expected,
        found=judge.cost.compute_usd,
    )


def _priced(pricing: PricingTable, model: str, usage: Any) -> Decimal | str:
    try:
        return usage_cost(usage, pricing, model).model_usd
    except UsageProblem:
        return "a price in pricing.yaml"


def _check_self_hosted(run: RunRecord, pricing: PricingTable, report: Report, rel: str) -> None:
    """A self-hosted model's calls: each one's recorded server time × the instance price."""
    total = Decimal(0)
    for call in run.calls:
        expected = self_hosted_cost(call.latency_s, pricing, run.model).compute_usd
        report.expect(
            "costs recomputed",
            expected == call.cost.compute_usd and call.cost.model_usd == 0,
            file=rel,
            record=f"{run.run_id} call {call.step}",
            field="cost.compute_usd",
            expected=expected,
            found=call.cost.compute_usd,
        )
        total += call.cost.compute_usd
    report.expect(
        "costs recomputed",
        total == run.cost.compute_usd and run.cost.model_usd == 0,
        file=rel,
        record=run.run_id,
        field="cost.compute_usd (sum of calls)",
        expected=total,
        found=run.cost.compute_usd,
    )


def _check_run_cost(run: RunRecord, pricing: PricingTable, report: Report, rel: str) -> None:
    if run.model in pricing.self_hosted:
        _check_self_hosted(run, pricing, report, rel)
        return
    model_total = Decimal(0)
    for call in run.calls:
        if run.cost_basis == CostBasis.compute:
            break
        expected = _priced(pricing, run.model, call.usage)
        report.expect(
            "costs recomputed",
            expected == call.cost.model_usd,
            file=rel,
            record=f"{run.run_id} call {call.step}",
            field="cost.model_usd",
            expected=expected,
            found=call.cost.model_usd,
        )
        model_total += call.cost.model_usd
    if run.cost_basis == CostBasis.compute:
        expected_compute = (
            compute_cost(run.cpu_seconds, pricing).compute_usd
            if run.cpu_seconds is not None and pricing.compute is not None
            else "cpu_seconds and a compute price"
        )
        report.expect(
            "costs recomputed",
            expected_compute == run.cost.compute_usd,
            file=rel,
            record=run.run_id,
            field="cost.compute_usd",
            expected=expected_compute,
            found=run.cost.compute_usd,
        )
        report.expect(
            "costs recomputed",
            run.cost.model_usd == 0,
            file=rel,
            record=run.run_id,
            field="cost.model_usd",
            expected="0 (no model spend)",
            found=run.cost.model_usd,
        )
        return
    report.expect(
        "costs recomputed",
        model_total == run.cost.model_usd,
        file=rel,
        record=run.run_id,
        field="cost.model_usd (sum of calls)",
        expected=model_total,
        found=run.cost.model_usd,
    )
    measured_ok = run.cost_basis != CostBasis.measured or all(
        c.usage_basis == UsageBasis.provider_reported for c in run.calls
    )
    report.expect(
        "cost basis labels",
        measured_ok,
        file=rel,
        record=run.run_id,
        field="cost_basis",
        expected="estimated (some usage was estimated)",
        found=run.cost_basis.value,
    )


def check_figures(
    paths: EditionPaths,
    recompute: Callable[[Path], EditionResults],
    report: Report,
) -> EditionResults | None:
    """The published figures equal what the raw logs and grades give today, field by field:
    `results-current.json` once an erratum corrected them (the sealed `results.json` beside it
    keeps the figures as first published), else `results.json`."""
    published_path = paths.results_current
    if not published_path.exists():
        published_path = paths.results
    fresh = recompute(paths.root)
    for workload in fresh.workloads:
        for cell in workload.cells:
            if cell.void:
                report.void_cells.append(
                    f"{cell.workload} / {cell.model} / {cell.mode.value}: "
                    + "; ".join(cell.void_reasons)
                )
    if not published_path.exists():
        report.notes.append("no results.json: nothing published to compare figures with")
        return fresh
    published = load_model(EditionResults, published_path)
    compared = in_format_of(fresh, published)
    if compared is not fresh:
        report.notes.append(
            f"{published_path.name} was sealed before cells carried their re-pricing totals "
            "(infra_excluded_tokens, time_priced); those are not compared with it"
        )
    diffs: list[tuple[str, Any, Any]] = []
    _diff(
        _keyed(published.model_dump(mode="json")),
        _keyed(compared.model_dump(mode="json")),
        "",
        diffs,
    )
    report.checked["published figures recomputed"] += _count_leaves(
        compared.model_dump(mode="json")
    ) - len(diffs)
    for where, found, expected in diffs:
        report.fail(
            "published figures recomputed",
            file=published_path.name,
            record=where,
            field=where.rsplit(".", 1)[-1],
            expected=expected,
            found=found,
        )
    return fresh


def _keyed(value: Any) -> Any:
    """Lists of cells and workloads keyed by identity, so a diff names a cell, not an index."""
    if isinstance(value, dict):
        return {k: _keyed(v) for k, v in value.items()}
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        keys = []
        for v in value:
            if "model" in v and "mode" in v and "workload" in v:
                keys.append(f"{v['model']}/{v['mode']}")
            elif "workload" in v and "cells" in v:
                keys.append(v["workload"])
            elif "model" in v and "probes" in v:  # a model's tools probe spend
                keys.append(v["model"])
            else:
                return [_keyed(v) for v in value]
        if len(set(keys)) == len(keys):
            return {k: _keyed(v) for k, v in zip(keys, value, strict=True)}
    if isinstance(value, list):
        return [_keyed(v) for v in value]
    return value


def _diff(found: Any, expected: Any, where: str, out: list[tuple[str, Any, Any]]) -> None:
    if isinstance(found, dict) and isinstance(expected, dict):
        for key in sorted(set(found) | set(expected), key=str):
            _diff(
                found.get(key, "<absent>"),
                expected.get(key, "<absent>"),
                f"{where}.{key}" if where else str(key),
                out,
            )
    elif isinstance(found, list) and isinstance(expected, list) and len(found) == len(expected):
        for index, (f, e) in enumerate(zip(found, expected, strict=True)):
            _diff(f, e, f"{where}[{index}]", out)
    elif found != expected:
        out.append((where, found, expected))


def _count_leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_count_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(_count_leaves(v) for v in value)
    return 1
