"""`execute.month-end.v1`, grader revision 2: the posted entries must match the reference set.

Standard §4.7: pass when the proposed journal entries match the reference set (accounts,
amounts within $0.01, direction) and the resulting trial balance balances. Revision 1
(`v1_revision1.py`, the registered source kept byte for byte so editions sealed under it still
verify; the dataset, prompt and tools are still its own) compared each account's net movement,
so offsetting wrong entries could pass, and its trial-balance check could not fail on entries
the journal tool had accepted. Revision 2 grades entries as a set (`entry_match`).

The v1 prompt, published verbatim and frozen, still describes revision 1's net-movement rule;
`execute.month-end.v2` states the standard's rule to the model, and new editions register v2.
"""

from __future__ import annotations

from dataclasses import replace

from ledgerrate.workloads.base import Answer, Grade, Item, check
from ledgerrate.workloads.execute_month_end import entry_match
from ledgerrate.workloads.execute_month_end import v1_revision1 as v1

CHANGELOG = (
    "Grader revision 2: the posted entries are matched one to one against the reference "
    "entries (accounts, direction, amounts within $0.01); an unmatched reference entry or an "
    "extra posted entry fails; the trial balance of the resulting ledger and every posted "
    "entry must balance. Revision 1 compared net movement per account, so offsetting wrong "
    "entries could pass. The v1 prompt still describes revision 1's rule; v2 states the "
    "standard's."
)
PASS_RULE = (
    "The posted entries match the reference entries one to one (accounts, direction, amounts "
    "within $0.01), with no extra entry, and the trial balance after them balances."
)


def grade(item: Item, answer: Answer) -> Grade:
    state = answer.tool_state or {}
    posted = state.get("journal_entries")
    if not isinstance(posted, list):
        reason = "no journal_entries in the tool state: nothing was posted"
        return Grade(
            checks=tuple(check(name, False, reason) for name in entry_match.CHECKS),
            diagnostics={"entries_posted": 0},
        )
    checks = entry_match.close_checks(posted, item.truth["entries"], item.truth["opening_balances"])
    return Grade(
        checks=checks,
        diagnostics={
            "entries_posted": len(posted),
            "reference_entries": len(item.truth["entries"]),
            "summary_chars": len(answer.text or ""),
        },
    )


# Re-exported: the dataset, prompt and tools are revision 1's, unchanged.
ID, account_names, MonthEndToolset = v1.ID, v1.account_names, v1.MonthEndToolset
generate, prompt, tools, baseline = v1.generate, v1.prompt, v1.tools, v1.baseline

WORKLOAD = replace(
    v1.WORKLOAD,
    grade=grade,
    pass_rule=PASS_RULE,
    grader_sources=(entry_match,),
    changelog=v1.WORKLOAD.changelog + " " + CHANGELOG,
    superseded=(v1.WORKLOAD,),
)
