"""What a regrade may keep of a judged run's earlier grade (standard §5).

`grade --regrade` grades every run again, but a verdict is evidence about one thing: the judge's
verdict is on the request it was sent (rubric, task material, anonymised answer) under one judge
model, after one set of deterministic results; a human spot-check is on the same submission and
rubric. Where none of that changed, calling the judge again would only spend money and drop the
humans' verdicts, so the cell would lose its §5 evidence and fall off the card. Where any of it
changed, the earlier verdict is about something else and is not carried:

- the judge's verdict (and its second opinion) is carried when the judge model, the rubric, the
  request digest and the deterministic checks (name and pass/fail of each) are unchanged;
- a human verdict is carried when the request digest and the deterministic checks are unchanged
  (a human did not see the judge model: after a change of judge the same spot-check measures
  the new judge's agreement, which is what §5.3 asks of it);
- a human verdict on a submission that changed is dropped, never marked and kept: §5.3's
  agreement compares the judge and the human on the same submission, and a verdict on another
  one would count in the sample as if it did. The earlier revision stays in the log.

A block written before the request digest was recorded is matched by the grader instead: same
grader source, same immutable run answer, so the same submission.

Pure: the grade stage passes the earlier grade and what it would send now.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledgerrate.schema import Check, GradeRecord, JudgeBlock, SpotcheckBlock

# Why an earlier verdict was not carried; the CLI counts each.
JUDGE_MODEL = "judge model changed"
RUBRIC = "rubric changed"
SUBMISSION = "what the judge is sent changed (answer or task material)"
DETERMINISTIC = "deterministic outcome changed"
UNRECORDED = "grader changed and the earlier verdict did not record what it judged"
NO_JUDGE_NOW = "the judge must grade it again and cannot be called now"


@dataclass(frozen=True)
class Now:
    """What the judge would be sent for a run now, and by whom."""

    checks: list[Check]
    request_sha256: str
    rubric_hash: str
    judge_model: str | None  # None when no judge is configured
    second_model: str | None
    grader_hash: str


@dataclass(frozen=True)
class Carried:
    """What an earlier grade lends the new one; `judge` None means call the judge again."""

    judge: JudgeBlock | None
    spotcheck: SpotcheckBlock | None
    judge_reason: str | None  # why the judge's verdict was not carried
    human_reason: str | None  # why a human verdict was not carried


def _same_checks(before: list[Check], now: list[Check]) -> bool:
    return [(c.name, c.passed) for c in before] == [(c.name, c.passed) for c in now]


def _submission_changed(block: JudgeBlock, prev: GradeRecord, now: Now) -> str | None:
    if block.rubric_hash != now.rubric_hash:
        return RUBRIC
    if block.request_sha256 is None:
        return None if prev.grader_hash == now.grader_hash else UNRECORDED
    return None if block.request_sha256 == now.request_sha256 else SUBMISSION


def carry(prev: GradeRecord | None, now: Now) -> Carried:
    """What of `prev` (the run's latest grade) the regrade keeps; see the module docstring."""
    block = prev.judge if prev is not None else None
    if prev is None or block is None or block.passed is None:
        return Carried(None, None, None, None)
    changed = _submission_changed(block, prev, now)
    if changed is None and not _same_checks(prev.checks, now.checks):
        changed = DETERMINISTIC
    human = prev.spotcheck if changed is None else None
    human_reason = changed if prev.spotcheck is not None and changed is not None else None
    if changed is None and block.judge_model != now.judge_model:
        changed = JUDGE_MODEL
    if changed is not None:
        return Carried(None, human, changed, human_reason)
    second = block.second_opinion
    if second is not None and (second.judge_model != now.second_model or second.passed is None):
        # A second opinion by a judge the edition no longer names is not its sensitivity check.
        block = block.model_copy(update={"second_opinion": None})
    return Carried(block, human, None, None)
