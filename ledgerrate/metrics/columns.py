"""An edition's run and grade logs read into columns, with no pydantic object per record.

`results` reads every record of an edition, and building a pydantic model of each one (with its
calls, steps and raw replies) was most of its loading time at 215 models. Here each line is
decoded by msgspec into a small struct of the fields the figures read, each checked with the
constraints the schema (`schema/records.py`) puts on it: type, bounds, pattern, length, enum
value. What "validated" means for `results` (ARCHITECTURE.md §5):

- every field a figure reads is checked as the schema checks it; integers stay exact at any size
  (msgspec reads a JSON integer into a Python int, never a float), money is read from its
  decimal string and never through a float;
- a line msgspec refuses is read by the schema itself (`core.io.iter_jsonl`): a malformed record
  is the schema's error naming the file, the line and the field, as before; a record the schema
  reads in a form msgspec does not (an old enum spelling, a number written as a string) is
  taken in the schema's reading, so such a record gives the figures it always gave;
- the fields no figure reads (requests, replies, steps) are not checked by `results`: the
  writers validate a record before it is written, and `verify` validates every line of every
  log against the whole schema before it recomputes the figures.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, get_args

import msgspec
from pydantic import BaseModel

from ledgerrate.core.io import MAX_JSONL_LINE_BYTES, FileProblem, iter_jsonl
from ledgerrate.schema import GradeRecord, RunRecord
from ledgerrate.schema.base import (
    MAX_TEXT_CHARS,
    CostBasis,
    Mode,
    Outcome,
    RunStatus,
    Sha256,
    Slug,
    UsageBasis,
    WorkloadId,
)


def _meta(*annotations: Any) -> msgspec.Meta:
    """The schema's pattern and length bounds of a field, as msgspec checks them.

    Read from the schema's own annotations so the two cannot drift. `$` becomes `\\Z`: Python's
    `$` also matches before a final line break, pydantic's does not."""
    pattern, max_length = None, MAX_TEXT_CHARS
    for annotation in annotations:
        for item in getattr(annotation, "metadata", []):
            pattern = getattr(item, "pattern", None) or pattern
            max_length = getattr(item, "max_length", None) or max_length
    if pattern is not None and pattern.endswith("$"):
        pattern = pattern[:-1] + r"\Z"
    return msgspec.Meta(pattern=pattern, max_length=max_length)


def _of(alias: Any) -> msgspec.Meta:
    return _meta(*get_args(alias)[1:])


def _loose(meta: msgspec.Meta) -> msgspec.Meta:
    """`meta` without its pattern: the pattern is checked once per distinct value of a log
    (`_patterns_hold`), not once per value as msgspec would, which was a third of the decode."""
    return msgspec.Meta(max_length=meta.max_length)


def _search(meta: msgspec.Meta) -> Callable[[str], object]:
    """What msgspec does with `meta`'s pattern: `re.search`, true when the value matches."""
    assert meta.pattern is not None
    return re.compile(meta.pattern).search


_RUN_ID = _meta(RunRecord.model_fields["run_id"])
_SLUG, _WORKLOAD, _HASH = _of(Slug), _of(WorkloadId), _of(Sha256)
# Money is written as a decimal string (`Usd`), checked here by its form: any other (a number,
# spaces, underscores, `NaN`) is left to the schema's reading. The check is msgspec's, in the
# decode (a judge's block) or once per distinct value of a log (`_patterns_hold`), so a struct
# needs no Python hook per amount.
_MONEY = msgspec.Meta(
    pattern=r"^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z", max_length=MAX_TEXT_CHARS
)
RunId = Annotated[str, _loose(_RUN_ID)]
Slugged = Annotated[str, _loose(_SLUG)]
Workload = Annotated[str, _loose(_WORKLOAD)]
Hash = Annotated[str, _loose(_HASH)]
Money = Annotated[str, _loose(_MONEY)]
CheckedHash = Annotated[str, _HASH]
CheckedMoney = Annotated[str, _MONEY]
Text = Annotated[str, msgspec.Meta(max_length=MAX_TEXT_CHARS)]
Count = Annotated[int, msgspec.Meta(ge=0)]
Number = Annotated[int, msgspec.Meta(ge=1)]
Seconds = Annotated[float, msgspec.Meta(ge=0)]
RUN_ID_OK, SLUG_OK, WORKLOAD_OK = _search(_RUN_ID), _search(_SLUG), _search(_WORKLOAD)
HASH_OK, MONEY_OK = _search(_HASH), _search(_MONEY)


def usd(text: str) -> Decimal:
    """A money string (`Money`, so of a decimal's form) as the exact Decimal the schema reads."""
    return Decimal(text)


class Usage(msgspec.Struct, frozen=True):
    input_tokens: Count = 0
    cached_input_tokens: Count = 0
    cache_write_tokens: Count = 0
    output_tokens: Count = 0
    reasoning_tokens: Count = 0


class Cost(msgspec.Struct, frozen=True):
    model_usd: Money = "0"
    compute_usd: Money = "0"

    @property
    def total_usd(self) -> Decimal:
        return usd(self.model_usd) + usd(self.compute_usd)


class Call(msgspec.Struct, frozen=True):
    latency_s: Seconds
    latency_estimate: Text | None = None
    error: Text | None = None
    usage_basis: UsageBasis = UsageBasis.provider_reported
    cost: Cost = Cost()
    billed_usd: Money | None = None


class Keyed(msgspec.Struct, frozen=True):
    """The fields that place a run or a grade in its edition's cells, read by both."""

    run_id: RunId
    edition: Slugged
    sitting: Number
    workload: Workload
    model: Slugged
    mode: Mode
    item_id: Slugged


class Run(Keyed, frozen=True):
    """The fields of a `RunRecord` the figures read."""

    attempt: Number
    started_at: dt.datetime
    finished_at: dt.datetime
    latency_s: Seconds
    status: RunStatus
    dataset_hash: Hash
    usage_basis: UsageBasis
    cost_basis: CostBasis
    schema_version: Literal[1] = 1
    kind: Literal["registered", "reproduction"] = "registered"
    failure: Text | None = None
    outside_window: bool = False
    simulated: bool = False
    calls: list[Call] = []
    usage: Usage = Usage()
    cost: Cost = Cost()
    cpu_seconds: float | None = None


class JudgeCost(msgspec.Struct, frozen=True):
    """A judge call's cost, its amounts' form checked in the decode (a judge block is decoded
    on its own, after the log's other checks)."""

    model_usd: CheckedMoney = "0"
    compute_usd: CheckedMoney = "0"

    @property
    def total_usd(self) -> Decimal:
        return usd(self.model_usd) + usd(self.compute_usd)


class Judge(msgspec.Struct, frozen=True):
    rubric_hash: CheckedHash
    passed: bool | None = None
    cost: JudgeCost = JudgeCost()
    second_opinion: Judge | None = None


class Spotcheck(msgspec.Struct, frozen=True):
    passed: bool
    scope: Literal["sample", "regrade"] = "sample"


class Grade(Keyed, frozen=True):
    """The fields of a `GradeRecord` the figures read; `judge` kept as its JSON, whose bytes
    also tell a carried verdict from a new call (metrics/grading_cost.py)."""

    graded_at: dt.datetime
    outcome: Outcome
    grader_hash: Hash
    schema_version: Literal[1] = 1
    revision: Number = 1
    diagnostics: dict[Text, float | int | Text | bool] = {}
    judge: msgspec.Raw = msgspec.Raw(b"null")
    spotcheck: Spotcheck | None = None


JUDGE = msgspec.json.Decoder(Judge)
R = TypeVar("R", Run, Grade)
MODELS: dict[type, type[BaseModel]] = {Run: RunRecord, Grade: GradeRecord}
_DECODERS: dict[type, msgspec.json.Decoder] = {}


def judge_of(grade: Grade) -> Judge | None:
    return JUDGE.decode(grade.judge) if has_judge(grade) else None


def has_judge(grade: Grade) -> bool:
    return bytes(grade.judge) != b"null"


def read_log(path: Path, kind: type[R]) -> list[R]:
    """Every record of one log, read as `kind` (see the module's docstring for what is checked).

    Each line is decoded on its own, never the file as one array: a line holding two records
    must be an error, as it is to the schema."""
    decoder = _DECODERS.setdefault(kind, msgspec.json.Decoder(kind))
    raw = path.read_bytes()
    if raw and not raw.endswith(b"\n"):  # a torn last line: the schema's reader warns of it
        return list(_by_schema(path, kind))
    try:
        found = [
            decoder.decode(line)
            for line in raw.split(b"\n")
            if (line.strip() and len(line) <= MAX_JSONL_LINE_BYTES) or _too_long(line)
        ]
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError):
        return list(_by_schema(path, kind))
    return found if _patterns_hold(found) else list(_by_schema(path, kind))


def _patterns_hold(records: list[Any]) -> bool:
    """Whether every patterned field of `records` (runs or grades) matches its pattern, as
    msgspec would have checked each value: each distinct value is checked once (a log's
    edition, workload, model and amounts repeat on every line)."""
    if not records:
        return True
    checks: list[tuple[Callable[[str], object], set[str]]] = [
        (RUN_ID_OK, {r.run_id for r in records}),
        (SLUG_OK, {v for r in records for v in (r.edition, r.model, r.item_id)}),
        (WORKLOAD_OK, {r.workload for r in records}),
    ]
    if isinstance(records[0], Run):
        money = {v for r in records for v in (r.cost.model_usd, r.cost.compute_usd)}
        for r in records:
            for call in r.calls:
                money.add(call.cost.model_usd)
                money.add(call.cost.compute_usd)
                if call.billed_usd is not None:
                    money.add(call.billed_usd)
        checks += [(HASH_OK, {r.dataset_hash for r in records}), (MONEY_OK, money)]
    else:
        checks.append((HASH_OK, {r.grader_hash for r in records}))
    return all(all(map(check, values)) for check, values in checks)


def _too_long(line: bytes) -> bool:
    if len(line) > MAX_JSONL_LINE_BYTES:
        raise ValueError("over the line limit")  # the schema's reader names the line
    return False


def _by_schema(path: Path, kind: type[R]) -> Iterator[R]:
    """The log as the schema reads it: its error for a malformed line (file, line, field), or
    each record in the schema's reading, decoded again from the form the schema writes."""
    decoder = _DECODERS.setdefault(kind, msgspec.json.Decoder(kind))
    for number, record in enumerate(iter_jsonl(path, MODELS[kind]), start=1):
        yield from _redecoded(decoder, record, f"{path}: record {number}", path)


def _redecoded(
    decoder: msgspec.json.Decoder, record: BaseModel, where: str, path: Path | str
) -> Iterator[Any]:
    try:
        found = decoder.decode(record.model_dump_json())
    except (msgspec.ValidationError, ValueError) as exc:  # the schema and this mirror disagree
        raise FileProblem(Path(path), [f"{where}: {exc}"]) from None
    if not _patterns_hold([found]):
        raise FileProblem(Path(path), [f"{where}: a field does not match its pattern"])
    yield found


def from_records(records: Iterable[BaseModel], kind: type[R]) -> Iterator[R]:
    """Records already in memory (a test's, or an in-memory edition's), read as `kind`."""
    decoder = _DECODERS.setdefault(kind, msgspec.json.Decoder(kind))
    for record in records:
        yield from _redecoded(decoder, record, f"record {getattr(record, 'run_id', '?')}", "-")
