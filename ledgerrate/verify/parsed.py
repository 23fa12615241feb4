"""Every run and grade log of an edition, validated once up front and then streamed to each check.

Each check walks the records of every log. Holding them all as objects at once cost about
1.4 GB for one 215-model edition (41,925 runs and as many grades), so nothing here keeps a
record: `read` validates every line once (what the schema check reports, and where a log
stops), keeping only each log's problem, its torn tail and the line numbers of its records;
a check that walks a log gets its records decoded again, one at a time, and drops them. The
checks that need facts from every record at once keep only those facts (evidence.py,
price_database.py). A log that cannot be read keeps the records before its bad line and the
problem, so each check still sees what it saw before: the schema check reports the problem,
the log rules skip the log, and the checks that used to stop on it stop on it.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from ledgerrate.core.io import FileProblem, TornLineWarning, iter_jsonl, parse_model
from ledgerrate.schema import GradeRecord, RunRecord
from ledgerrate.verify.integrity import grade_logs, run_logs

R = TypeVar("R", RunRecord, GradeRecord)


@dataclass(frozen=True)
class ParsedLog(Generic[R]):
    path: Path
    rel: str  # relative to the edition root, POSIX
    model: type[R]
    numbers: tuple[int, ...]  # line number of each record that validated, torn tail dropped
    problem: FileProblem | None  # a bad line: records after it were never read
    torn: str | None  # the warning for a torn last line (damage in a finished log)

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
    count = 0
    problem: FileProblem | None = None
    torn: str | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TornLineWarning)
        try:
            for _record in iter_jsonl(path, model):
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
    )
