"""The workload registry: an explicit tuple, so adding a workload version is one visible line.

Versions are never edited in place: a change to dataset design, prompt or pass criteria is a new
module (`v2.py`) and a new line here (standard §7).
"""

from __future__ import annotations

import importlib
from functools import cache

from ledgerrate.workloads.base import Workload

MODULES: tuple[str, ...] = (
    "ledgerrate.workloads.extract_invoice.v1",
    "ledgerrate.workloads.extract_invoice.v2",
    "ledgerrate.workloads.triage_ap_inbox.v1",
    "ledgerrate.workloads.reconcile_ledger.v1",
    "ledgerrate.workloads.query_nl2sql.v1",
    "ledgerrate.workloads.query_nl2sql.v2",
    "ledgerrate.workloads.generate_variance_commentary.v1",
    "ledgerrate.workloads.synthesize_board_brief.v1",
    "ledgerrate.workloads.execute_month_end.v1",
    "ledgerrate.workloads.execute_month_end.v2",
)


@cache
def registry() -> dict[str, Workload]:
    found: dict[str, Workload] = {}
    for name in MODULES:
        workload = importlib.import_module(name).WORKLOAD
        found[workload.id] = workload
    return found


def get(workload_id: str) -> Workload:
    workloads = registry()
    if workload_id not in workloads:
        known = ", ".join(sorted(workloads))
        raise KeyError(f"unknown workload {workload_id!r}; registered: {known}")
    return workloads[workload_id]
