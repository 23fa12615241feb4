"""The workload registry: every workload version by a plain import, in one explicit tuple, so
adding a version is one visible line here.

Versions are never edited in place: a change to dataset design, prompt or pass criteria is a new
module (`v2.py`) and a new line here (standard §7). A judged version whose modules are hashed
whole is listed through its `v1_judged.py`, which attaches the judge hooks they cannot name.
"""

from __future__ import annotations

from functools import cache

from ledgerrate.workloads.base import Workload
from ledgerrate.workloads.execute_month_end import v1_revision2 as execute_month_end_v1
from ledgerrate.workloads.execute_month_end import v2 as execute_month_end_v2
from ledgerrate.workloads.extract_invoice import v1 as extract_invoice_v1
from ledgerrate.workloads.extract_invoice import v2 as extract_invoice_v2
from ledgerrate.workloads.generate_variance_commentary import (
    v1_judged as generate_variance_commentary_v1,
)
from ledgerrate.workloads.query_nl2sql import v1_revision2 as query_nl2sql_v1
from ledgerrate.workloads.query_nl2sql import v2 as query_nl2sql_v2
from ledgerrate.workloads.reconcile_ledger import v1_revision2 as reconcile_ledger_v1
from ledgerrate.workloads.synthesize_board_brief import v1_judged as synthesize_board_brief_v1
from ledgerrate.workloads.triage_ap_inbox import v1_revision2 as triage_ap_inbox_v1

WORKLOADS: tuple[Workload, ...] = (
    extract_invoice_v1.WORKLOAD,
    extract_invoice_v2.WORKLOAD,
    triage_ap_inbox_v1.WORKLOAD,
    reconcile_ledger_v1.WORKLOAD,
    query_nl2sql_v1.WORKLOAD,
    query_nl2sql_v2.WORKLOAD,
    generate_variance_commentary_v1.WORKLOAD,
    synthesize_board_brief_v1.WORKLOAD,
    execute_month_end_v1.WORKLOAD,
    execute_month_end_v2.WORKLOAD,
)


@cache
def registry() -> dict[str, Workload]:
    return {workload.id: workload for workload in WORKLOADS}


def get(workload_id: str) -> Workload:
    workloads = registry()
    if workload_id not in workloads:
        known = ", ".join(sorted(workloads))
        raise KeyError(f"unknown workload {workload_id!r}; registered: {known}")
    return workloads[workload_id]
