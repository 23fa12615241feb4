"""The judged-task protocol (standard §5) as a condition of qualifying, per cell.

A judge's verdict enters a rate only once humans have checked the judge: at least 20% of a
cell's judged runs carry a human spot-check from the seeded sample (§5.3), the judge and the
humans disagree on at most 10% of them (else every judged run is regraded by hand, and those
verdicts replace the judge's), and, when the judge comes from the model's own vendor family,
a second judge has graded a sample of the cell's runs (§5.4). Every run must also be graded.

Pure: the evidence is the per-run columns the metrics loader reads from the latest grade
(`judge_passed`, `second_passed`, `human_passed`, `human_scope`), read as lists
(metrics/rows.py).
"""

from __future__ import annotations

import math

from ledgerrate.metrics.intervals import wilson_interval
from ledgerrate.metrics.rows import Rows
from ledgerrate.schema import JudgeProtocol, Outcome

SPOTCHECK_SHARE = 0.20  # §5.3: at least 20% of judged runs
DISAGREEMENT_LIMIT = 0.10  # §5.3: more than 10% triggers a full manual regrade

# The opening words of each condition, so a reader (and a card, in a word) can tell them apart.
PENDING = "not every run graded"
NO_SPOTCHECK = "no human spot-check"
SHORT_SPOTCHECK = "too few human spot-checks"
REGRADE = "manual regrade required"
NOT_APPLIED = "manual regrade not applied"
NO_SECOND_JUDGE = "second-judge check not run"

# A counted run's outcome before its final grade (`ungraded`: completed, no grade record yet;
# the same word as metrics/cells.py's UNGRADED, which imports this module).
UNGRADED = "ungraded"
OPEN = [Outcome.pending_judge, UNGRADED]


def spotcheck_required(judged_runs: int, share: float = SPOTCHECK_SHARE) -> int:
    # round() first so 0.2 × 15 is 3, not 3.0000000000000004 rounded up to 4.
    return min(judged_runs, math.ceil(round(judged_runs * share, 9)))


def _known(value: object) -> bool:
    # A bool is never missing (a missing verdict is None or NaN), so being a bool is being known.
    return isinstance(value, bool)


def judge_protocol(items: Rows, *, same_family: bool, judged: bool = False) -> JudgeProtocol | None:
    """The cell's §5 state.

    `judged`: the cell is of a judged workload in an edition that names a judge; it then always
    carries the block, even when no counted run has a judge's verdict yet (no run reached the
    judge, or its replies were unusable): "no verdict" is a state of the protocol to publish,
    not its absence. Otherwise None when no counted run has a judge's verdict (an edition
    without a judge, or a workload without one).
    """
    if items.empty or "judge_passed" not in items:
        return _unjudged(items, same_family) if judged else None
    judge, human_passed = items["judge_passed"], items["human_passed"]
    outcomes = items["outcome"]
    verdicts = [i for i, v in enumerate(judge) if _known(v)]  # the rows a judge gave a verdict
    if not verdicts and not judged:  # no judge here
        return None
    n_judged = len(verdicts)
    human = [i for i in verdicts if _known(human_passed[i])]
    scope = items["human_scope"]
    sampled = [i for i in human if scope[i] == "sample"]
    checked = len(sampled)
    disagree = sum(judge[i] != human_passed[i] for i in sampled)
    required = spotcheck_required(n_judged)
    all_human = len(human) == n_judged
    missing: list[str] = []

    # The enum's value is spelled `pending-judge`: compared with the enum, not a string.
    pending = sum(o == Outcome.pending_judge for o in outcomes)
    ungraded = sum(o == UNGRADED for o in outcomes)
    if pending or ungraded:
        missing.append(f"{PENDING}: {pending + ungraded} of {len(items)} runs have no final grade")

    # With no verdicts run, the conditions on verdicts runs (§5.3, §5.4) have nothing to apply to.
    if checked == 0 and not all_human:
        missing.append(
            f"{NO_SPOTCHECK}: 0 of the {required} the standard requires (20% of "
            f"{n_judged} verdicts runs)"
        )
    elif checked < required and not all_human:
        missing.append(
            f"{SHORT_SPOTCHECK}: {checked} of the {required} required (20% of {n_judged} "
            "verdicts runs)"
        )

    regrade = "not_required"
    if checked and disagree / checked > DISAGREEMENT_LIMIT:
        regrade = "required"
        if all_human:
            if all(outcomes[i] == ("pass" if human_passed[i] else "fail") for i in human):
                regrade = "done"
            else:
                missing.append(
                    f"{NOT_APPLIED}: every verdicts run has a human verdict but the outcomes "
                    "are still the judge's; import the regrade again with `spotcheck import`"
                )
        else:
            missing.append(
                f"{REGRADE}: judge and humans disagree on {disagree} of {checked} spot-checks "
                f"({disagree / checked:.0%}, above the 10% limit); "
                f"{n_judged - len(human)} verdicts runs still need a human verdict"
            )

    second_passed = items["second_passed"]
    second = [i for i in verdicts if _known(second_passed[i])]
    if same_family and not second and n_judged:
        missing.append(
            f"{NO_SECOND_JUDGE}: the judge is from this model's vendor family and no second "
            "judge graded a sample of its runs"
        )
    second_agree = sum(judge[i] == second_passed[i] for i in second)
    return JudgeProtocol(
        judged_runs=n_judged,
        spotchecked=checked,
        spotcheck_required=required,
        disagreements=disagree,
        agreement=(checked - disagree) / checked if checked else None,
        agreement_ci=wilson_interval(checked - disagree, checked),
        manual_regrade=regrade,
        human_graded=len(human),
        second_judge_required=same_family,
        second_judge_checked=len(second),
        second_judge_agreement=second_agree / len(second) if len(second) else None,
        second_judge_agreement_ci=wilson_interval(second_agree, len(second)),
        missing=missing,
    )


def _unjudged(items: Rows, same_family: bool) -> JudgeProtocol:
    """The block of a judged cell with no counted run at all (e.g. only infrastructure
    exclusions), or none that reached grading."""
    missing = []
    open_runs = sum(o in OPEN for o in items["outcome"])
    if open_runs:
        missing.append(f"{PENDING}: {open_runs} of {len(items)} runs have no final grade")
    return JudgeProtocol(
        judged_runs=0,
        spotchecked=0,
        spotcheck_required=0,
        disagreements=0,
        agreement_ci=wilson_interval(0, 0),
        second_judge_required=same_family,
        second_judge_agreement_ci=wilson_interval(0, 0),
        missing=missing,
    )


def gap_summary(protocol: JudgeProtocol | None) -> str | None:
    """The first missing condition's opening words (e.g. "manual regrade required"), for
    places with room for a word; None when the protocol is met or does not apply."""
    if protocol is None or not protocol.missing:
        return None
    return protocol.missing[0].split(":", 1)[0]
