"""`triage.ap-inbox.v1`, grader revision 2: batch accuracy and nothing else (standard §4.2).

Revision 1 (`v1_revision1.py`, the registered source kept byte for byte, so editions sealed
under it still verify; the dataset, prompt and tools are still its own) also failed a
batch through an "all emails labelled" check, so 19 correct labels with one email left
unlabelled failed. The standard's only pass criterion is batch accuracy ≥ 95% (≥ 19 of 20): an
unlabelled email, or one labelled twice with different labels, is a wrong label, nothing more.
Dataset, prompt and pass criterion are unchanged, so the workload id stays `v1`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace

from ledgerrate.synth import emails
from ledgerrate.workloads import answers
from ledgerrate.workloads.answers import AnswerFormatError, extract_json
from ledgerrate.workloads.base import Answer, Grade, Item, check
from ledgerrate.workloads.triage_ap_inbox import v1_revision1 as v1

CHANGELOG = (
    "Grader revision 2: an email left unlabelled (or labelled twice with different labels) "
    "counts as one wrong label; the separate 'all emails labelled' check, which the standard "
    "does not have, is gone. Pass is batch accuracy ≥ 95% (≥ 19 of 20), as §4.2 says."
)


def grade(item: Item, answer: Answer) -> Grade:
    truth: dict[str, str] = item.truth["labels"]
    required = math.ceil(v1.PASS_ACCURACY * len(truth))
    try:
        parsed = v1.read_labels(extract_json(answer.text))
        unread = None if parsed is not None else "no 'labels' list in the JSON object"
    except AnswerFormatError as exc:
        parsed, unread = None, str(exc)
    given, conflicting = parsed if parsed is not None else ({}, set())
    correct = {i for i in truth if i not in conflicting and given.get(i) == truth[i]}
    unlabelled = sorted(i for i in truth if i not in given)
    unknown = sorted(set(given) - set(truth))
    diagnostics: dict[str, float | int | str | bool] = {
        "accuracy": round(len(correct) / len(truth), 4),
        "correct": len(correct),
        "unlabelled": len(unlabelled),
        "conflicting": len(conflicting & set(truth)),
        "unknown_ids": len(unknown),
    }
    for label in emails.LABELS:
        ids = [i for i, t in truth.items() if t == label]
        if ids:
            diagnostics[f"recall_{label}"] = round(sum(i in correct for i in ids) / len(ids), 4)
    wrong = sorted(set(truth) - correct)
    detail = f"{len(correct)} of {len(truth)} correct; {required} needed"
    if unread is not None:
        detail += f"; no labels read ({unread})"
    if wrong:
        detail += f"; wrong: {', '.join(wrong)}"
    if unlabelled:
        detail += f" (unlabelled: {', '.join(unlabelled)})"
    if unknown:
        detail += f"; {len(unknown)} unknown id(s) ignored"
    return Grade(
        checks=(check("batch_accuracy", len(correct) >= required, detail),),
        diagnostics=diagnostics,
    )


_MODULE = sys.modules[__name__]
# Re-exported: the dataset, prompt and tools are revision 1's, unchanged.
HARD_PER_BATCH, PASS_ACCURACY, BATCH_SIZE = v1.HARD_PER_BATCH, v1.PASS_ACCURACY, v1.BATCH_SIZE
generate, prompt, tools, baseline = v1.generate, v1.prompt, v1.tools, v1.baseline

WORKLOAD = replace(
    v1.WORKLOAD,
    grade=grade,
    pass_rule="At least 19 of the 20 emails labelled correctly (an unlabelled email is wrong).",
    grader_sources=(v1.normalise_label, v1.read_labels, answers, v1, _MODULE),
    changelog=v1.WORKLOAD.changelog + " " + CHANGELOG,
    superseded=(v1.WORKLOAD,),
)
