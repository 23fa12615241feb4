"""An unfinished call's estimated server time is the bound its recorded clocks give.

A call that carries `latency_estimate` was not measured (its run was killed before the answer
was written); `latency_s` is then the most its server time can have been: until the attempt's
next request was sent, or the model's request timeout for the attempt's last call
(methodology: run protocol). Its cost is checked from `latency_s` with every other call's; this
checks that `latency_s` is that bound, so an estimate can be neither lowered nor raised unseen.
"""

from __future__ import annotations

from ledgerrate.schema import CallRecord, EditionManifest, RunRecord
from ledgerrate.verify.parsed import EditionLogs
from ledgerrate.verify.report import Report


def latency_bounds(calls: list[CallRecord], timeout_s: float) -> list[float]:
    """The bound on each call's server time, in the order given (call order)."""
    bounds = []
    for call, following in zip(calls, [*calls[1:], None], strict=True):
        if following is None:
            bounds.append(round(timeout_s, 6))
        else:
            gap = (following.started_at - call.started_at).total_seconds()
            bounds.append(round(max(gap, 0.0), 6))
    return bounds


def check_latency_estimates(manifest: EditionManifest, report: Report, logs: EditionLogs) -> None:
    for run_log in logs.runs:
        if not run_log.estimates:
            continue  # no call of this log was estimated (noted as the log was first read)
        for run in run_log.records:
            if any(call.latency_estimate is not None for call in run.calls):
                _check_run(run, manifest, report, run_log.rel)


def _check_run(run: RunRecord, manifest: EditionManifest, report: Report, rel: str) -> None:
    try:
        timeout_s = manifest.model(run.model).timeout_s
    except KeyError:
        return  # a model the edition does not list is reported by the log rules
    calls = sorted(run.calls, key=lambda c: c.step)
    for call, bound in zip(calls, latency_bounds(calls, timeout_s), strict=True):
        report.expect(
            "estimated call times bounded by the recorded clocks",
            call.latency_estimate is not None and call.latency_s == bound,
            file=rel,
            record=f"{run.run_id} call {call.step}",
            field="latency_s",
            expected=f"{bound} s, an estimate with its basis in latency_estimate",
            found=f"{call.latency_s} s"
            + ("" if call.latency_estimate is not None else " with no latency_estimate"),
        )
