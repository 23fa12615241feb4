"""`reconcile.ledger.v1`, grader revision 2: recall and false positives over the whole list.

Standard §4.3: "Output: discrepancy list with type per item. Pass: recall = 100% on planted
discrepancies AND ≤1 false positive." Revision 1 (`v1_revision1.py`, the registered source kept
byte for byte so editions sealed under it still verify; the dataset, prompt and tools are still
its own) took only the *first* report naming a planted discrepancy's bank reference and judged
the discrepancy on that report alone. A list that reported one transaction twice, once wrongly
and once exactly right, therefore failed, although its recall is 100% and the wrong report is
one false positive, which the standard allows.

Revision 2 reads the list as the standard counts it: a planted discrepancy is recalled when any
report names it (its bank reference, its type, and its GL entry where it has one); every report
that recalls no planted discrepancy, a second copy included, is a false positive. A report
naming the right transaction with the wrong type recalls nothing, because the required output
is the discrepancy *with its type*. Dataset, prompt and pass criterion are unchanged, so the
workload id stays `v1`.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from ledgerrate.synth import bank
from ledgerrate.workloads import answers
from ledgerrate.workloads.answers import AnswerFormatError, extract_json
from ledgerrate.workloads.base import Answer, Grade, Item, check
from ledgerrate.workloads.reconcile_ledger import v1_revision1 as v1

CHANGELOG = (
    "Grader revision 2: a planted discrepancy is recalled when any report names it (bank "
    "reference, type, and GL entry where it has one), and every report that recalls nothing, a "
    "repeated one included, is a false positive; the separate 'types' check is folded into "
    "recall. Revision 1 judged a transaction on the first report naming it only, so a list "
    "with one wrong and one right report of the same transaction failed where §4.3 passes it."
)
PASS_RULE = (
    "Every planted discrepancy reported with its type (and its GL entry where it has one), and "
    "at most one reported discrepancy that is not a planted one."
)


def _key(report: Any) -> tuple[str, str, str]:
    """(bank reference, type, GL entry) of a report, normalised as revision 1 compares them."""
    if not isinstance(report, dict):
        return "", "", ""
    kind = report.get("type")
    return (
        bank.normalise_ref(report.get("bank_ref")),
        kind if isinstance(kind, str) else "",
        v1._entry_id(report.get("gl_entry")),
    )


def recalls(report: Any, planted: dict[str, Any]) -> bool:
    """Does this report name this planted discrepancy? A missing entry has no GL entry to name,
    so its `gl_entry` is not compared."""
    ref, kind, entry = _key(report)
    if ref != bank.normalise_ref(planted["bank_ref"]) or kind != planted["type"]:
        return False
    return planted["type"] == "missing_entry" or entry == v1._entry_id(planted["gl_entry"])


def score(planted: list[dict[str, Any]], reported: list[Any]) -> dict[str, Any]:
    """Each planted discrepancy is matched to at most one report and each report to at most one
    planted discrepancy; the reports left over are the false positives. Planted discrepancies
    concern different bank transactions, so a greedy match in list order is a maximum one."""
    used: set[int] = set()
    found: list[str] = []
    for truth in planted:
        for index, report in enumerate(reported):
            if index not in used and recalls(report, truth):
                used.add(index)
                found.append(bank.normalise_ref(truth["bank_ref"]))
                break
    refs = {bank.normalise_ref(p["bank_ref"]): p for p in planted}
    missed = sorted(set(refs) - set(found))
    # Diagnostic only: a missed discrepancy whose transaction was reported under another type.
    wrong_type = sorted(
        ref
        for ref in missed
        if any(_key(r)[0] == ref and _key(r)[1] != refs[ref]["type"] for r in reported)
    )
    false_positives = [
        _key(r)[0] or "(no bank_ref)" for i, r in enumerate(reported) if i not in used
    ]
    return {
        "found": found,
        "missed": missed,
        "wrong_type": wrong_type,
        "false_positives": false_positives,
    }


def grade(item: Item, answer: Answer) -> Grade:
    planted: list[dict[str, Any]] = item.truth["discrepancies"]
    try:
        data = extract_json(answer.text)
        reported = data.get("discrepancies")
        reason = "no 'discrepancies' list in the JSON object"
    except AnswerFormatError as exc:
        reported, reason = None, str(exc)
    if not isinstance(reported, list):
        return Grade(
            checks=(
                check("answer_is_json", False, reason),
                check("recall", False, f"0 of {len(planted)} planted discrepancies found"),
                check("false_positives", False, "no discrepancies read"),
            ),
            diagnostics={"recall": 0.0, "precision": 0.0, "reported": 0},
        )
    s = score(planted, reported)
    found, fps = len(s["found"]), len(s["false_positives"])
    diagnostics: dict[str, float | int | str | bool] = {
        "recall": round(found / len(planted), 4),
        "precision": round(found / len(reported), 4) if reported else 0.0,
        "reported": len(reported),
        "false_positive_count": fps,
        "wrong_type_count": len(s["wrong_type"]),
    }
    for kind in bank.TYPES:
        refs = [bank.normalise_ref(p["bank_ref"]) for p in planted if p["type"] == kind]
        diagnostics[f"recall_{kind}"] = round(sum(r in s["found"] for r in refs) / len(refs), 4)
    recall_detail = f"{found} of {len(planted)} planted discrepancies found with their type"
    if s["missed"]:
        recall_detail += f"; missed: {', '.join(s['missed'])}"
    if s["wrong_type"]:
        recall_detail += f" (reported under another type: {', '.join(s['wrong_type'])})"
    return Grade(
        checks=(
            check("answer_is_json", True, "JSON object with a discrepancies list"),
            check("recall", not s["missed"], recall_detail),
            check(
                "false_positives",
                fps <= v1.MAX_FALSE_POSITIVES,
                f"{fps} reported that are not planted discrepancies; at most "
                f"{v1.MAX_FALSE_POSITIVES} allowed"
                + (f": {', '.join(s['false_positives'][:10])}" if fps else ""),
            ),
        ),
        diagnostics=diagnostics,
    )


_MODULE = sys.modules[__name__]
# Re-exported: the dataset, prompt, tools and baseline are revision 1's, unchanged.
WORKLOAD_ID, MAX_FALSE_POSITIVES = v1.WORKLOAD_ID, v1.MAX_FALSE_POSITIVES
BANK_FILE, GL_FILE, PROMPT_TEMPLATE = v1.BANK_FILE, v1.GL_FILE, v1.PROMPT_TEMPLATE
generate, prompt, tools, baseline, match = v1.generate, v1.prompt, v1.tools, v1.baseline, v1.match

WORKLOAD = replace(
    v1.WORKLOAD,
    grade=grade,
    pass_rule=PASS_RULE,
    grader_sources=(bank.normalise_ref, answers, v1, _MODULE),
    changelog=v1.WORKLOAD.changelog + " " + CHANGELOG,
    superseded=(v1.WORKLOAD,),
)
