"""`generate.variance-commentary.v1`, grader revision 2: the pass criteria of §4.4 and no more.

Standard §4.4 asks for "commentary per template: top-3 drivers, magnitude, cause, ≤300 words"
and passes it on "(a) deterministic — every figure cited in text matches source; correct top-3
drivers by absolute variance; (b) judge rubric score ≥ 4/5 on clarity and cause-attribution".
The word count is part of the requested output, not of the pass criteria (contrast §4.5, whose
pass criteria end "AND within length limit"). Revision 1 (`v1_revision1.py`, the registered
source kept byte for byte so editions sealed under it still verify; dataset, prompt, rubric and
judge hooks are still its own) also failed every commentary over 300 words, a check the
standard does not have. Revision 2 keeps the count as a diagnostic beside the pass rate.
Dataset, prompt and pass criteria are unchanged, so the workload id stays `v1`.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from ledgerrate.workloads import figures
from ledgerrate.workloads.answers import AnswerFormatError
from ledgerrate.workloads.base import Answer, Grade, Item
from ledgerrate.workloads.generate_variance_commentary import v1_revision1 as v1

CHANGELOG = (
    "Grader revision 2: the 300-word limit is no longer a pass check; the word count stays a "
    "diagnostic (with whether it exceeded 300). §4.4's pass criteria are the cited figures, "
    "the top-3 drivers and the judge's two scores; the word limit belongs to the requested "
    "output, unlike §4.5 where it is a pass criterion."
)
PASS_RULE = (
    "Passes when every figure the commentary cites matches a figure in the table or notes "
    f"(tolerance: {figures.TOLERANCE_RULE}), the three drivers named are exactly the three line "
    "items with the largest absolute variance, and the judge scores both clarity and cause "
    "attribution at least 4 out of 5. The 300-word length asked for is reported, not graded."
)


def grade(item: Item, answer: Answer) -> Grade:
    first = v1.grade(item, answer)
    checks = tuple(c for c in first.checks if c.name != "word_limit")
    diagnostics = dict(first.diagnostics)
    if "words" in diagnostics:
        diagnostics["over_word_limit"] = int(diagnostics["words"]) > v1.WORD_LIMIT
    passed = all(c.passed for c in checks)
    commentary = None
    if passed:
        try:
            commentary = v1.read_answer(answer.text)[1]
        except AnswerFormatError:  # unreachable when answer_format passed; kept inert
            passed = False
    return Grade(
        checks=checks,
        diagnostics=diagnostics,
        needs_judge=passed,
        judge_input=commentary if passed else None,
    )


_MODULE = sys.modules[__name__]
# Re-exported: dataset, prompt, tools, baseline and the judged part are revision 1's.
ID, WORD_LIMIT, PASS_SCORE, CRITERIA, RUBRIC = (
    v1.ID,
    v1.WORD_LIMIT,
    v1.PASS_SCORE,
    v1.CRITERIA,
    v1.RUBRIC,
)
PROMPT_TEMPLATE, read_answer, count_words = v1.PROMPT_TEMPLATE, v1.read_answer, v1.count_words
source_figures, reference_answer = v1.source_figures, v1.reference_answer
judge_material, judge_outcome = v1.judge_material, v1.judge_outcome
generate, prompt, tools, baseline = v1.generate, v1.prompt, v1.tools, v1.baseline

WORKLOAD = replace(
    v1.WORKLOAD,
    grade=grade,
    pass_rule=PASS_RULE,
    grader_sources=(*v1.WORKLOAD.grader_sources, _MODULE),
    changelog=v1.WORKLOAD.changelog + " " + CHANGELOG,
    superseded=(v1.WORKLOAD,),
)
