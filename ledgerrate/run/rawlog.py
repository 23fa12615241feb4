"""Append-only raw logs, one JSONL file per cell: run ids, sittings and resume.

A record is appended (and fsynced) the moment an attempt ends, so a crash or `kill -9` loses at
most the attempt in flight. On restart a torn last line is cut, finished items are skipped and
attempt numbers continue, so no record is ever rewritten. Sittings keep re-runs apart: a cell
whose latest sitting is complete is left alone unless a new sitting is asked for, and the new
sitting's records sit beside the old ones, never pooled with them.
"""

from __future__ import annotations

import hashlib
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ledgerrate.core.hashing import canonical_json
from ledgerrate.core.io import TornLineWarning, append_jsonl, read_jsonl, repair_torn_tail
from ledgerrate.core.keys import MIN_KEY_LENGTH, holds, redact
from ledgerrate.schema import CallRecord, CostBasis, RunRecord, RunStatus, UsageBasis

FINISHED = frozenset({RunStatus.completed, RunStatus.model_failure})


def run_id(
    edition: str,
    sitting: int,
    workload: str,
    model: str,
    mode: str,
    item_id: str,
    attempt: int,
    *,
    kind: str = "registered",
) -> str:
    """Deterministic: the same attempt of the same item always has the same id.

    Reproductions number their sittings from 1 too, so their kind is part of the key: reproduction
    sitting 1 must never share an id (and so a grade) with registered sitting 1. Registered ids
    keep their original key, so ids already published do not change.
    """
    fields: list[object] = [edition, sitting, workload, model, mode, item_id, attempt]
    key = canonical_json(fields if kind == "registered" else [kind, *fields])
    return "r-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


def read_cell(path: Path) -> list[RunRecord]:
    """Every record of a cell's log, after cutting a torn last line left by a crash."""
    if repair_torn_tail(path):
        warnings.warn(
            f"{path}: the last line was cut short by an interrupted run and has been dropped; "
            "that attempt will run again",
            TornLineWarning,
            stacklevel=2,
        )
    return read_jsonl(path, RunRecord)


def append_record(path: Path, record: RunRecord) -> None:
    append_jsonl(path, record)


@dataclass
class SittingPlan:
    """What `run` does with one cell: which sitting, which items, from which attempt."""

    sitting: int
    # item id → next attempt number (1 for an item never tried in this sitting)
    todo: dict[str, int] = field(default_factory=dict)
    finished: int = 0
    complete_already: bool = False
    earlier_sittings: int = 0


def plan_sitting(
    records: Sequence[RunRecord], item_ids: Sequence[str], *, new_sitting: bool
) -> SittingPlan:
    """Resume an incomplete latest sitting; leave a complete one alone unless `new_sitting`."""
    latest = max((r.sitting for r in records), default=0)
    in_latest = [r for r in records if r.sitting == latest]
    done = {r.item_id for r in in_latest if r.status in FINISHED}
    complete = latest > 0 and all(i in done for i in item_ids)
    if latest == 0 or (complete and new_sitting):
        sitting = latest + 1
        return SittingPlan(sitting=sitting, todo={i: 1 for i in item_ids}, earlier_sittings=latest)
    if complete:
        return SittingPlan(
            sitting=latest,
            finished=len(item_ids),
            complete_already=True,
            earlier_sittings=latest - 1,
        )
    # Resume (also when new_sitting was asked: an unfinished sitting is finished first, so a
    # crash is never turned into a second, partial sitting).
    attempts = Counter(r.item_id for r in in_latest)
    todo = {i: attempts[i] + 1 for i in item_ids if i not in done}
    return SittingPlan(
        sitting=latest, todo=todo, finished=len(item_ids) - len(todo), earlier_sittings=latest - 1
    )


def call_bases(calls: Sequence[CallRecord]) -> tuple[UsageBasis, CostBasis]:
    """A record is `measured` only when every call's usage was reported by the provider."""
    kinds = {c.usage_basis for c in calls}
    if UsageBasis.estimated in kinds:
        usage_basis = UsageBasis.estimated
    elif not kinds or kinds == {UsageBasis.none}:
        usage_basis = UsageBasis.none
    else:
        usage_basis = UsageBasis.provider_reported
    measured = bool(calls) and kinds == {UsageBasis.provider_reported}
    return usage_basis, CostBasis.measured if measured else CostBasis.estimated


def seal(record: RunRecord, secrets: Sequence[str]) -> RunRecord:
    """The record as it may be written: no key anywhere in it.

    Two locks. Error texts and failed calls' bodies lose every key that stands as a token
    (adapters redact their errors already; a refused key or a transport message can quote one).
    Then a key long enough to be a real credential (`MIN_KEY_LENGTH`) is removed from every
    string of the record, answers and successful replies included: a debugging proxy or a
    misconfigured gateway echoes the caller's headers in a 200 reply, and the model's answer
    can quote them. Such a record is marked `redacted`, and it is the redacted answer that is
    graded. A short dummy key (`x` on a loopback server) is never looked for in answers, where
    it would eat letters.
    """
    if not secrets:
        return record
    changes: dict[str, Any] = {}
    if record.failure and holds(record.failure, secrets):
        changes["failure"] = redact(record.failure, secrets)
    calls = [_seal_errors(c, secrets) for c in record.calls]
    if any(new is not old for new, old in zip(calls, record.calls, strict=True)):
        changes["calls"] = calls
    sealed = record.model_copy(update=changes) if changes else record
    return _redact_everywhere(sealed, secrets)


def seal_call(call: CallRecord, secrets: Sequence[str]) -> CallRecord:
    """One call as it may be written (the tools probe's calls): as `seal`, for one call."""
    if not secrets:
        return call
    return _redact_everywhere(_seal_errors(call, secrets), secrets)


M = TypeVar("M", RunRecord, CallRecord)


def _redact_everywhere(record: M, secrets: Sequence[str]) -> M:
    """`record` with every real-length key removed from every string value, marked redacted.

    Worked on the JSON form that is written, so what is checked is what would be published;
    field names are the schema's and never change.
    """
    real = [s for s in secrets if len(s) >= MIN_KEY_LENGTH]
    if not real:
        return record
    # A key's characters are never escaped in JSON (a key with a quote or a backslash, which
    # would be, skips this), so one absent from pydantic's compiled dump is absent from every
    # string: the common case costs one fast dump, not a walk.
    if not any('"' in s or "\\" in s for s in real):
        dumped = record.model_dump_json()
        if not any(s in dumped for s in real):
            return record
    data = record.model_dump(mode="json")
    clean = redact(data, real)
    if clean == data:
        return record
    clean["redacted"] = True
    if isinstance(record, RunRecord):
        # Each call that held the key is marked too, so a reader of one call sees it.
        for before, after in zip(data["calls"], clean["calls"], strict=True):
            if after != before:
                after["redacted"] = True
    return type(record).model_validate_json(canonical_json(clean))


def _seal_errors(call: CallRecord, secrets: Sequence[str]) -> CallRecord:
    """One call's error text and a failed call's body without any key, however short."""
    failed = call.error is not None or call.http_status is None or call.http_status >= 300
    changes: dict[str, Any] = {}
    if call.error and holds(call.error, secrets):
        changes["error"] = redact(call.error, secrets)
    if failed and call.response is not None:
        response = redact(call.response, secrets)
        if response != call.response:
            changes["response"] = response
    return call.model_copy(update=changes) if changes else call
