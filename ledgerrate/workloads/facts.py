"""What the figures read of each registered workload version, without importing the versions.

`results` needs a version's title, unit, volume, whether it is judged and its modes; importing
the registry for them imports every workload module, the PDF renderer among them (about 0.5
CPU-seconds of a `results` that otherwise takes a few). These are those facts, copied from the
registry; tests/workloads/test_facts.py holds them equal to it, so a new version (or a changed
title) fails a test until it is listed here too. A version not listed is read from the registry.
"""

from __future__ import annotations

from typing import NamedTuple


class Facts(NamedTuple):
    title: str
    unit: str
    volume: int
    judged: bool
    modes: tuple[str, ...]


BOTH = ("single-shot", "agentic")
_INVOICES = Facts("Invoice extraction", "Process 1,000 invoices", 1000, False, BOTH)
_NL2SQL = Facts(
    "Ad-hoc finance questions in SQL", "Answer 100 ad-hoc finance questions", 100, False, BOTH
)
_MONTH_END = Facts("Mini month-end close", "Run a mini month-end close", 1, False, ("agentic",))

FACTS: dict[str, Facts] = {
    "extract.invoice.v1": _INVOICES,
    "extract.invoice.v2": _INVOICES,
    "triage.ap-inbox.v1": Facts("AP inbox triage", "Sort 1,000 AP emails", 1000, False, BOTH),
    "reconcile.ledger.v1": Facts(
        "Bank-to-ledger reconciliation", "Reconcile a month of transactions", 1, False, BOTH
    ),
    "query.nl2sql.v1": _NL2SQL,
    "query.nl2sql.v2": _NL2SQL,
    "generate.variance-commentary.v1": Facts(
        "Variance commentary", "Draft 50 variance commentaries", 50, True, BOTH
    ),
    "synthesize.board-brief.v1": Facts(
        "Board-pack executive brief", "Turn a board pack into an exec brief", 1, True, BOTH
    ),
    "execute.month-end.v1": _MONTH_END,
    "execute.month-end.v2": _MONTH_END,
}
