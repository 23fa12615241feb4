"""Every run and grade log of an edition, read and validated once for all of verify's checks.

Each check used to re-read the logs it needed (schemas, log rules, grades seen, prompts,
latest grades, costs, and the figures' recomputation): seven parses of every line. Here each
line is decoded and validated once; every check then walks the same records. A log that cannot
be read keeps the records before its bad line and the problem, so each check still sees what it
saw before: the schema check reports the problem, the log rules skip the log, and the checks
that used to stop on it stop on it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from ledgerrate.core.io import FileProblem, TornLineWarning, iter_jsonl
from ledgerrate.schema import GradeRecord, RunRecord
from ledgerrate.verify.integrity import grade_logs, run_logs

R = TypeVar("R", RunRecord, GradeRecord)


@dataclass(frozen=True)
class ParsedLog(Generic[R]):
    path: Path
    rel: str  # relative to the edition root, POSIX
    numbered: list[tuple[int, R]]  # (line number in the file, record), torn tail dropped
    problem: FileProblem | None  # a bad line: records after it were never read
    torn: str | None  # the warning for a torn last line (damage in a finished log)

    @property
    def records(self) -> Iterator[R]:
        return (record for _number, record in self.numbered)

    def records_or_raise(self) -> Iterator[R]:
        """The records, then the problem (as a lazy `iter_jsonl` would have raised it)."""
        yield from self.records
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
            grades=[_parse(root, log, GradeRecord) for log in grade_logs(root)],
        )

    def run_log(self, path: Path) -> ParsedLog[RunRecord] | None:
        return self._by_path.get(path)


def _parse(root: Path, path: Path, model: type[R]) -> ParsedLog[R]:
    numbers = [n for n, line in enumerate(path.read_bytes().split(b"\n"), start=1) if line.strip()]
    records: list[R] = []
    problem: FileProblem | None = None
    torn: str | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TornLineWarning)
        try:
            records.extend(iter_jsonl(path, model))
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
        numbered=list(zip(numbers, records, strict=False)),
        problem=problem,
        torn=torn,
    )
