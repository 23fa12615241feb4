"""Every run and grade log of an edition, validated once up front and then streamed to each check.

Each check walks the records of every log. Holding them all as objects at once cost about
1.4 GB for one 215-model edition (41,925 runs and as many grades), so nothing here keeps a
record: `read` validates every line once (what the schema check reports, and where a log
stops), keeping only each log's problem, its torn tail and the line numbers of its records;
a check that walks a log gets its records decoded again, one at a time, and drops them. The
checks that need facts from every record at once keep only those facts: each grade's
`GradeFacts`, taken here on the first read (so the grade checks never walk the grade logs
again), a run's `RunFacts` (evidence.py), the runs the price database prices
(price_database.py). A log that cannot be read keeps the records before its bad line and the
problem, so each check still sees what it saw before: the schema check reports the problem,
the log rules skip the log, and the checks that used to stop on it stop on it.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, NamedTuple, TypeVar

from ledgerrate.core.io import FileProblem, TornLineWarning, iter_jsonl, parse_model
from ledgerrate.schema import GradeRecord, Outcome, RunRecord
from ledgerrate.verify.integrity import grade_logs, run_logs

R = TypeVar("R", RunRecord, GradeRecord)


class GradeFacts(NamedTuple):
    """What the grade checks read of a grade record, and where it is (log, line): the latest
    revision of a run's grade is told from the ones it superseded by position. Taken as the
    logs are first read: every grade check then reads these, never the logs again."""

    run_id: str
    revision: int
    grader_hash: str
    outcome: Outcome
    checks: tuple[tuple[str, bool], ...]
    judge_text: str | None  # the judge's anon id and rationale, when judged
    at: tuple[int, int]

    @classmethod
    def of(cls, grade: GradeRecord, at: tuple[int, int]) -> GradeFacts:
        judge = grade.judge
        return cls(
            run_id=grade.run_id,
            revision=grade.revision,
            grader_hash=sys.intern(grade.grader_hash),  # one per grader, shared
            outcome=grade.outcome,
            checks=tuple((sys.intern(c.name), c.passed) for c in grade.checks),
            judge_text=None if judge is None else f"{judge.anon_id} {judge.rationale}",
            at=at,
        )


@dataclass(frozen=True)
class ParsedLog(Generic[R]):
    path: Path
    rel: str  # relative to the edition root, POSIX
    model: type[R]
    numbers: tuple[int, ...]  # line number of each record that validated, torn tail dropped
    problem: FileProblem | None  # a bad line: records after it were never read
    torn: str | None  # the warning for a torn last line (damage in a finished log)
    # Taken on the first read, so checks skip a walk: a grade log's facts (empty for runs),
    # and whether any call of a run log carries an estimated time (verify/estimates.py).
    grade_facts: tuple[GradeFacts, ...] = ()
    estimates: bool = False

    @property
    def numbered(self) -> Iterator[tuple[int, R]]:
        """(line number in the file, record) for each record that validated, decoded again."""
        if not self.numbers:
            return
        lines = self.path.read_bytes().split(b"\n")
        for number in self.numbers:
            data = json.loads(lines[number - 1])
            yield number, parse_model(self.model, data, self.path, prefix=f"line {number}: ")

    @property
    def records(self) -> Iterator[R]:
        return (record for _number, record in self.numbered)

    def records_or_raise(self) -> Iterator[R]:
        """The records, then the problem (as a lazy `iter_jsonl` would have raised it)."""
        yield from self.records
        if self.problem is not None:
            raise self.problem

    def grade_facts_or_raise(self) -> Iterator[GradeFacts]:
        """`records_or_raise`, as each grade's facts."""
        yield from self.grade_facts
        if self.problem is not None:
            raise self.problem


@dataclass(frozen=True)
class EditionLogs:
    runs: list[ParsedLog[RunRecord]]  # registered runs and reproductions, sorted by path
    grades: list[ParsedLog[GradeRecord]]
    _by_path: dict[Path, ParsedLog[RunRecord]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_path", {log.path: log for log in self.runs})

    @classmethod
    def read(cls, root: Path) -> EditionLogs:
        return cls(
            runs=[_parse(root, log, RunRecord) for log in run_logs(root)],
            grades=[_parse(root, log, GradeRecord, i) for i, log in enumerate(grade_logs(root))],
        )

    def run_log(self, path: Path) -> ParsedLog[RunRecord] | None:
        return self._by_path.get(path)


def _parse(root: Path, path: Path, model: type[R], index: int = 0) -> ParsedLog[R]:
    numbers = [n for n, line in enumerate(path.read_bytes().split(b"\n"), start=1) if line.strip()]
    count = 0
    grades: list[GradeFacts] = []
    estimates = False
    problem: FileProblem | None = None
    torn: str | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TornLineWarning)
        try:
            for record in iter_jsonl(path, model):
                if isinstance(record, GradeRecord):
                    grades.append(GradeFacts.of(record, (index, numbers[count])))
                elif not estimates:
                    estimates = any(call.latency_estimate is not None for call in record.calls)
                count += 1
        except FileProblem as exc:
            problem = exc
    for warning in caught:
        if issubclass(warning.category, TornLineWarning):
            torn = str(warning.message)
        else:  # not ours to swallow
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    return ParsedLog(
        path=path,
        rel=path.relative_to(root).as_posix(),
        model=model,
        numbers=tuple(numbers[:count]),
        problem=problem,
        torn=torn,
        grade_facts=tuple(grades),
        estimates=estimates,
    )
