"""`ledgerrate results` as rich tables: one per workload, then its derived indices.

The default table is compact (model, mode, pass rate, CPO, status), built to fit a
100-column terminal; `--wide` shows every figure (16 columns, about 230 wide).
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ledgerrate.core.usd import job_and_item, plain, usd
from ledgerrate.metrics.protocol import gap_summary
from ledgerrate.schema import (
    STANDARD_N,
    CellResult,
    EditionResults,
    Interval,
    RateLine,
    WorkloadResult,
)

NO_OUTCOME = "no successful outcome"


def results_console(wide: bool) -> Console:
    """The console the results tables print to: the terminal, or when piped (no terminal to
    measure) 100 columns for the compact table and about 230 for the wide one."""
    console = Console()
    return console if console.is_terminal else Console(width=230 if wide else 100)


def span(interval: Interval | None) -> str:
    """A pass-rate interval; a CPO's is read with it (`job_and_item`)."""
    if interval is None or interval.lo is None or interval.hi is None:
        return ""
    return f"[{float(interval.lo):.2f}, {float(interval.hi):.2f}]"


def _cpo(cell: CellResult, volume: int, awaiting: str = "awaiting judge — not counted") -> str:
    """The CPO as the site and the card read it: per job at the job's volume and per item."""
    if cell.pending_judge:
        return awaiting
    if cell.cpo_usd is None:
        return NO_OUTCOME if cell.n else "—"
    ci = cell.cpo_ci
    return job_and_item(cell.cpo_usd, volume, ci.lo if ci else None, ci.hi if ci else None)


def _rate(cell: CellResult) -> str:
    if cell.pending_judge:
        return f"awaiting judge — not counted ({cell.pending_judge} of {cell.n} runs)"
    if cell.pass_rate is None:
        return "—"
    return f"{cell.passes}/{cell.n} = {cell.pass_rate:.2f} {span(cell.pass_rate_ci)}"


def _latency(cell: CellResult) -> str:
    if cell.latency_median_s is None:
        return "—"
    return f"{cell.latency_median_s:.1f}s / {cell.latency_p90_s:.1f}s"


def _status(cell: CellResult) -> str:
    if cell.void:
        return "VOID: " + "; ".join(cell.void_reasons)
    parts = ["qualifies" if cell.qualifying else "does not qualify"]
    if cell.n + cell.missing < STANDARD_N:
        parts.append(f"n = {cell.n + cell.missing}, short of the standard's {STANDARD_N}")
    if cell.is_reference:
        parts.append("reference (not ranked)")
    parts.extend(cell.flags)
    if cell.judge_protocol is not None:
        parts.extend(f"judged-task protocol: {gap}" for gap in cell.judge_protocol.missing)
    return "; ".join(parts)


def _short_status(cell: CellResult) -> str:
    """The status in a few words; the reasons behind it are in `--wide` and on the pages."""
    if cell.void:
        return "VOID (see --wide)"
    if cell.pending_judge:
        return "awaiting judge"
    parts = ["reference" if cell.is_reference else ("qualifies" if cell.qualifying else "no")]
    gap = gap_summary(cell.judge_protocol)
    if gap:
        parts.append(gap)
    if cell.n + cell.missing < STANDARD_N:
        parts.append(f"n = {cell.n + cell.missing}")
    if cell.missing:
        parts.append(f"{cell.missing} missing")
    if cell.truncated:
        parts.append(f"{cell.truncated} cut off")
    if cell.context_exceeded:
        parts.append(f"{cell.context_exceeded} over context")
    if cell.flags:
        parts.append(f"{len(cell.flags)} flag{'s' if len(cell.flags) > 1 else ''}")
    return "; ".join(parts)


def _short_rate(cell: CellResult) -> str:
    if cell.pending_judge or cell.pass_rate is None:
        return "—"
    return f"{cell.passes}/{cell.n} {cell.pass_rate:.2f} {span(cell.pass_rate_ci)}"


def _short_cpo(cell: CellResult, volume: int) -> str:
    return _cpo(cell, volume, awaiting="—")


def compact_table(result: WorkloadResult) -> Table:
    """Model, mode, pass rate [95% CI], CPO [95% CI], status: fits 100 columns."""
    n = max((c.n + c.missing for c in result.cells), default=0)
    table = Table(
        title=f"{result.workload} — {result.title}",
        caption=f"small sample: n = {n} items per cell; 95% intervals; --wide for all figures",
        show_lines=False,
        pad_edge=False,
    )
    table.add_column("model", overflow="fold", max_width=22)
    table.add_column("mode", no_wrap=True)
    table.add_column("pass rate [95% CI]", no_wrap=True)
    table.add_column("CPO [95% CI]", overflow="fold", max_width=30)
    table.add_column("status", overflow="fold", max_width=24)
    for c in result.cells:
        table.add_row(
            c.model, str(c.mode), _short_rate(c), _short_cpo(c, result.volume), _short_status(c)
        )
    return table


def cell_table(result: WorkloadResult) -> Table:
    n = max((c.n + c.missing for c in result.cells), default=0)
    table = Table(
        title=f"{result.workload} — {result.title}",
        caption=f"small sample: n = {n} items per cell; intervals are 95%",
        show_lines=False,
    )
    for name in (
        "model", "mode", "sitting", "n", "done", "fail", "missing", "infra (spend)", "pass rate",
        "spend", "CPO [95% CI]", "cost/attempt", "tokens in/out", "latency p50/p90", "basis",
        "status",
    ):  # fmt: skip
        table.add_column(name, overflow="fold")
    for c in result.cells:
        others = f" (+{c.other_sittings} kept)" if c.other_sittings else ""
        table.add_row(
            c.model,
            str(c.mode),
            f"{c.sitting}{others}",
            str(c.n),
            str(c.completed),
            f"{c.model_failures}"
            + (f" ({c.truncated} cut off)" if c.truncated else "")
            + (f" ({c.context_exceeded} over context)" if c.context_exceeded else ""),
            str(c.missing),
            f"{c.infra_excluded_attempts} ("
            + (
                f"spend unknown: {c.infra_excluded_unpriced_calls} calls without server time"
                if c.infra_excluded_unpriced_calls
                else usd(c.infra_excluded_usd)
            )
            + ")",
            _rate(c),
            usd(c.spend_usd),
            _cpo(c, result.volume),
            "—" if c.cost_per_attempt_usd is None else plain(c.cost_per_attempt_usd),
            f"{c.tokens.input + c.tokens.cached_input + c.tokens.cache_write:,}/"
            f"{c.tokens.output:,}",
            _latency(c),
            c.cost_basis,
            _status(c),
        )
    return table


def _line(label: str, line: RateLine | None, unit: str, volume: int) -> str:
    if line is None:
        return f"{label}: none"
    return (
        f"{label}: {line.model_name} ({line.mode}) — {unit}: "
        f"{job_and_item(line.cpo_usd, volume)} "
        f"(pass rate {line.pass_rate:.2f} "
        f"{span(line.pass_rate_ci)}, {line.cost_basis})"
    )


def protocol_lines(result: WorkloadResult) -> list[str]:
    """Per judged cell: spot-checks, judge–human and second-judge agreement, what is missing."""
    lines = []
    for c in result.cells:
        p = c.judge_protocol
        if p is None:
            continue
        agree = "—" if p.agreement is None else f"{p.agreement:.2f} {span(p.agreement_ci)}"
        second = (
            "not required"
            if not p.second_judge_required and not p.second_judge_checked
            else (
                "not run"
                if p.second_judge_agreement is None
                else f"{p.second_judge_agreement:.2f} {span(p.second_judge_agreement_ci)} "
                f"on {p.second_judge_checked} runs"
            )
        )
        regrade = {"required": "; manual regrade required", "done": "; manually regraded"}.get(
            p.manual_regrade, ""
        )
        lines.append(
            f"  {c.model} ({c.mode}): spot-checked {p.spotchecked}/{p.judged_runs} judged runs "
            f"(≥ {p.spotcheck_required} required), judge–human agreement {agree}, second "
            f"judge {second}{regrade}"
        )
        lines.extend(f"    missing: {gap}" for gap in p.missing)
        if c.grading_cost_by_revision:
            paid = ", ".join(
                f"revision {r.revision} ${r.usd} ({r.judge_calls} calls)"
                for r in c.grading_cost_by_revision
            )
            lines.append(f"    grading spend paid: {paid}")
    return ["judged-task protocol (§5):", *lines] if lines else []


def indices_lines(result: WorkloadResult) -> list[str]:
    lines = [
        _line("cheapest qualifying", result.cheapest_qualifying, result.unit, result.volume),
        _line("flagship", result.flagship, result.unit, result.volume),
    ]
    if result.flagship_note:
        lines.append(f"  note: {result.flagship_note}")
    premium = result.frontier_premium
    lines.append(f"frontier premium: {'—' if premium is None else f'{premium:.2f}×'}")
    if len(result.flagship_premiums) > 1:
        for each in result.flagship_premiums:
            shown = "—" if each.premium is None else f"{each.premium:.2f}×"
            lines.append(
                f"  {each.model} ({each.vendor}): {shown}" + (f"; {each.note}" if each.note else "")
            )
    if result.agentic_multiplier:
        shown = ", ".join(
            f"{m} {'—' if v is None else f'{v:.2f}×'}" for m, v in result.agentic_multiplier.items()
        )
        lines.append(f"agentic multiplier: {shown}")
    reference = _line(
        "reference baseline (not ranked)", result.reference, result.unit, result.volume
    )
    lines.append(reference)
    r = result.routing
    pair = f" {r.challenger} vs {r.incumbent}" if r.challenger and r.incumbent else ""
    lines.append(f"routing verdict{pair}: {r.verdict} — {r.reason}")
    if r.remedy:
        lines.append(f"  remedy: {r.remedy}")
    return lines + protocol_lines(result)


def probe_lines(results: EditionResults) -> list[str]:
    """Each model's tools probe spend, in exact dollars: infrastructure, never in a CPO."""
    if not results.probe_spend:
        return []
    return [
        "tools probe spend (checking that each model's endpoint supports tools; never in CPO):",
        *(
            f"  {p.model}: ${p.usd} over {p.probes} probes ({p.calls} calls)"
            for p in results.probe_spend
        ),
    ]


def print_tables(results: EditionResults, console: Console, *, wide: bool = False) -> None:
    console.print(
        f"{results.brand} · methodology v{results.methodology_version} · edition "
        f"{results.edition} ({results.date}) · quality bar {results.quality_bar:.2f} · "
        f"bootstrap seed {results.bootstrap_seed}, {results.bootstrap_reps} resamples",
        soft_wrap=False,
        markup=False,
    )
    for workload in results.workloads:
        console.print()
        console.print(cell_table(workload) if wide else compact_table(workload))
        for line in indices_lines(workload):
            console.print(line, markup=False, highlight=False)
    lines = probe_lines(results)
    if lines:
        console.print()
    for line in lines:
        console.print(line, markup=False, highlight=False)
