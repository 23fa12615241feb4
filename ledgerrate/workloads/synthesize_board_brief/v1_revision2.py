"""`synthesize.board-brief.v1`, grader revision 2: every number in the brief exists in the pack.

Standard §4.5: "zero fabricated figures (deterministic — every number in the brief must exist
in the pack)". Revision 1 (`v1_revision1.py`, the registered source kept byte for byte so
editions sealed under it still verify; dataset, prompt, rubric and judge hooks are still its
own) checked the brief with the commentary tolerance of `workloads.figures`: it skipped bare
numbers below 10 and years, and it let a figure match anything within half a unit of its last
shown digit, so "3 new risks" in a pack that names two, or "$1.2m" for a pack's $1,234,567,
passed as "existing". Revision 2 checks every number against the pack's numbers exactly
(`pack_numbers`); the facts and the length limit are as before. Dataset, prompt and pass
criteria are unchanged, so the workload id stays `v1`.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from ledgerrate.workloads.base import Answer, Grade, Item, check
from ledgerrate.workloads.synthesize_board_brief import pack_numbers
from ledgerrate.workloads.synthesize_board_brief import v1_revision1 as v1

CHANGELOG = (
    "Grader revision 2: every number the brief writes (small counts and years included; list "
    "markers, labels such as Q3 and dates excluded) must exist in the pack with the same value, "
    "in any notation; a rounded figure is a new number. Revision 1 skipped numbers below 10 and "
    "years and accepted figures rounded from a pack figure, looser than §4.5's 'every number "
    "in the brief must exist in the pack'."
)
PASS_RULE = (
    "Passes when at least 18 of the 20 checklist facts (90%) are judged present in the brief, "
    "every number the brief writes exists in the board pack with the same value (any notation, "
    "no rounding), and the brief is at most 500 words."
)


def grade(item: Item, answer: Answer) -> Grade:
    first = v1.grade(item, answer)
    if not first.checks[0].passed:
        return first
    brief = (answer.text or "").strip()
    written = pack_numbers.numbers(brief)
    invented = pack_numbers.not_in_pack(brief, v1.pack_text(item))
    exists = check(
        "no_fabricated_figures",
        not invented,
        f"not in the pack: {[n.text for n in invented][:20]}"
        if invented
        else f"all {len(written)} numbers found in the pack",
    )
    checks = tuple(exists if c.name == "no_fabricated_figures" else c for c in first.checks)
    passed = all(c.passed for c in checks)
    diagnostics = {
        **first.diagnostics,
        "figures_cited": len(written),
        "figures_invented": len(invented),
    }
    return Grade(
        checks=checks,
        diagnostics=diagnostics,
        needs_judge=passed,
        judge_input=brief if passed else None,
    )


_MODULE = sys.modules[__name__]
# Re-exported: dataset, prompt, tools, baseline and the judged part are revision 1's.
ID, WORD_LIMIT, FACTS, PASS_FACTS = v1.ID, v1.WORD_LIMIT, v1.FACTS, v1.PASS_FACTS
PROMPT_TEMPLATE, RUBRIC, count_words, pack_text = (
    v1.PROMPT_TEMPLATE,
    v1.RUBRIC,
    v1.count_words,
    v1.pack_text,
)
pack_pdfs, reference_answer = v1.pack_pdfs, v1.reference_answer
judge_material, judge_outcome = v1.judge_material, v1.judge_outcome
generate, prompt, tools, baseline = v1.generate, v1.prompt, v1.tools, v1.baseline

WORKLOAD = replace(
    v1.WORKLOAD,
    grade=grade,
    pass_rule=PASS_RULE,
    grader_sources=(*v1.WORKLOAD.grader_sources, pack_numbers, _MODULE),
    changelog=v1.WORKLOAD.changelog + " " + CHANGELOG,
    superseded=(v1.WORKLOAD,),
)
