"""Untrusted SQL bounded by wall time and by size, whatever one virtual-machine step does.

`sandbox/sql.py` checks its deadline from a progress handler that runs between VM steps, so one
step that runs for seconds inside a built-in (`printf('%.*c', 1000000000, 'x')` took 14–17 s
against a 2 s deadline) outruns it. This sandbox adds what that one lacks:

- a watchdog thread that calls `Connection.interrupt()` at the deadline, whatever the VM does;
- SQLite's own limits (`Connection.setlimit`) on value length, SQL length, columns, expression
  depth, compound selects, function arguments and LIKE patterns, so no value grows past 1 MB;
- `printf`/`format` with a bounded width and precision: SQLite's `%c` repeats its character
  `precision` times in one step, even past the length limit, and no interrupt lands inside it;
- refusals that name the statement really asked for (`CREATE TABLE`, `ANALYZE`, `DROP TABLE`),
  decided from the statement itself before SQLite prepares it, not from the first internal
  write SQLite happens to authorise.

`sandbox/sql.py` stays as it is: its source is hashed into the registered grader of
`query.nl2sql.v1`, which both bundled editions sealed, so editing it would void their
registrations. Workload versions registered from now on use this module.
"""

from __future__ import annotations

import math
import re
import shutil
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from ledgerrate.core.tools import ToolSpec
from ledgerrate.sandbox import sql
from ledgerrate.sandbox.sql import (
    DEFAULT_DEADLINE_S,
    DEFAULT_MAX_ROWS,
    MAX_RESULT_BYTES,
    SqlError,
    SqlProblem,
    SqlRefused,
    SqlResult,
    SqlSandbox,
    SqlTimeout,
    _cell,
    _strip_comments_and_literals,
    render_result,
    single_statement,
)

__all__ = [
    "LIMITS",
    "MAX_PRINTF_WIDTH",
    "BoundedSqlSandbox",
    "SqlError",
    "SqlProblem",
    "SqlRefused",
    "SqlResult",
    "SqlTimeout",
    "render_result",
    "run_sql_tool",
]

# Generous for finance queries, small enough that nothing one query builds reaches a few MB.
LIMITS: dict[int, int] = {
    sqlite3.SQLITE_LIMIT_LENGTH: 1_000_000,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 100_000,
    sqlite3.SQLITE_LIMIT_COLUMN: 200,
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 100,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 20,
    sqlite3.SQLITE_LIMIT_FUNCTION_ARG: 32,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1_000,
    sqlite3.SQLITE_LIMIT_VDBE_OP: 250_000,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH: 1,
}
MAX_PRINTF_WIDTH = 10_000
_PROGRESS_EVERY = 1_000
_READS = ("SELECT", "WITH", "VALUES")
# The statement a refusal names: its first keywords, as SQL spells them.
_STATEMENT = re.compile(
    r"^\s*(CREATE\s+(?:TEMP\s+|TEMPORARY\s+|UNIQUE\s+|VIRTUAL\s+)?(?:TABLE|VIEW|INDEX|TRIGGER)"
    r"|DROP\s+(?:TABLE|VIEW|INDEX|TRIGGER)|ALTER\s+TABLE|[A-Z]+)",
    re.IGNORECASE,
)
# printf conversions: flags, width (digits or *), precision (digits or *), size, type.
_CONVERSION = re.compile(r"%([-+ 0#,!]*)(\*|\d+)?(?:\.(\*|\d+))?(l{0,2})(.)", re.DOTALL)


def statement_kind(sql: str) -> str:
    """The statement's leading keywords, upper-cased and single-spaced (`CREATE TABLE`)."""
    match = _STATEMENT.match(_strip_comments_and_literals(sql))
    return " ".join(match.group(1).upper().split()) if match else ""


def printf_problem(args: tuple[Any, ...]) -> str | None:
    """Why a printf/format call would run unbounded (a width or precision over the cap)."""
    if not args or not isinstance(args[0], str):
        return None
    rest = list(args[1:])
    for flags_, width, precision, _size, kind in _CONVERSION.findall(args[0]):
        del flags_
        if kind == "%":
            continue
        for part in (width, precision):
            if part == "*":
                number = _as_integer(rest.pop(0) if rest else 0)
            else:
                number = int(part) if part else 0
            if number > MAX_PRINTF_WIDTH:
                return (
                    f"printf width or precision {number} is over this sandbox's "
                    f"{MAX_PRINTF_WIDTH}; format values at their natural width"
                )
        if rest:
            rest.pop(0)
    return None


def _as_integer(value: Any) -> int:
    """|value| as SQLite reads an integer argument: text and blobs by their leading digits."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if isinstance(value, str):
        match = re.match(r"\s*[+-]?\d+", value)
        return abs(int(match.group(0))) if match else 0
    if isinstance(value, (int, float)) and math.isfinite(value):
        return abs(int(value))
    return 0


class BoundedSqlSandbox(SqlSandbox):
    """A private read-only copy of a SQLite database that runs one bounded SELECT at a time.

    v1's sandbox with its own connection set-up (SQLite's limits, bounded printf) and `run`
    (the wall-time watchdog, refusals named before SQLite prepares a statement); its authorizer
    and progress handler are v1's, inherited as they are."""

    def __init__(
        self,
        db_path: Path,
        *,
        deadline_s: float = DEFAULT_DEADLINE_S,
        max_rows: int = DEFAULT_MAX_ROWS,
        progress_every: int = _PROGRESS_EVERY,
    ) -> None:
        # Deliberately no super().__init__(): it would open a second, unlimited connection.
        self.deadline_s = deadline_s
        self.max_rows = max_rows
        self._tmp = tempfile.TemporaryDirectory(prefix="ledgerrate-sql-")
        copy = Path(self._tmp.name) / "db.sqlite"
        shutil.copyfile(db_path, copy)
        copy.chmod(0o444)
        self._denied: str | None = None
        self._deadline = math.inf
        self._conn = sqlite3.connect(self._uri(copy), uri=True, check_same_thread=False)
        # printf/format run on a private in-memory connection once their arguments are checked;
        # it has the same limits, and no data.
        self._formatter = sqlite3.connect(":memory:", check_same_thread=False)
        for conn in (self._conn, self._formatter):
            disable = getattr(conn, "enable_load_extension", None)
            if disable is not None:
                disable(False)
            for limit, value in LIMITS.items():
                conn.setlimit(limit, value)
        conn = self._conn
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA trusted_schema = OFF")
        for name in ("printf", "format"):
            conn.create_function(name, -1, self._bounded_printf, deterministic=True)
        conn.set_authorizer(self._authorize)
        conn.set_progress_handler(self._progress, progress_every)

    def _uri(self, copy: Path) -> str:
        return f"{copy.resolve().as_uri()}?mode=ro"

    def _bounded_printf(self, *args: Any) -> Any:
        problem = printf_problem(args)
        if problem is not None:
            self._denied = self._denied or problem
            raise ValueError(problem)
        marks = ", ".join("?" * len(args))
        return self._formatter.execute(f"SELECT printf({marks})", args).fetchone()[0]

    def run(self, sql: str) -> SqlResult:
        """Execute one SELECT; raise SqlRefused, SqlTimeout or SqlError with a model-safe text."""
        single_statement(sql)
        kind = statement_kind(sql)
        if kind.split(" ", 1)[0] not in _READS:
            shown = kind or "this statement"
            raise SqlRefused(f"{shown} is not allowed: the database is read-only, SELECT only")
        self._denied = None
        self._deadline = time.monotonic() + self.deadline_s
        watchdog = threading.Timer(self.deadline_s, self._conn.interrupt)
        watchdog.daemon = True
        cursor = self._conn.cursor()
        watchdog.start()
        try:
            cursor.execute(sql)
            columns = tuple(d[0] for d in cursor.description or ())
            rows: list[tuple[Any, ...]] = []
            truncated = False
            size = 0
            for row in cursor:
                if len(rows) >= self.max_rows or size > MAX_RESULT_BYTES:
                    truncated = True
                    break
                size += sum(len(v) for v in row if isinstance(v, (str, bytes)))
                rows.append(tuple(_cell(v) for v in row))
            return SqlResult(columns=columns, rows=tuple(rows), truncated=truncated)
        except sqlite3.Warning as exc:
            raise SqlRefused("only one statement per call is allowed") from exc
        except sqlite3.ProgrammingError as exc:
            raise SqlRefused(f"refused: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            if self._denied is not None:
                raise SqlRefused(self._denied) from exc
            if time.monotonic() > self._deadline or "interrupted" in str(exc):
                raise SqlTimeout(
                    f"query stopped: it ran past the {self.deadline_s:g} s deadline"
                ) from exc
            if "too big" in str(exc):
                raise SqlError(
                    "SQL error: a value grew past the sandbox's "
                    f"{LIMITS[sqlite3.SQLITE_LIMIT_LENGTH]:,}-byte limit"
                ) from exc
            raise SqlError(f"SQL error: {exc}") from exc
        finally:
            watchdog.cancel()
            self._deadline = math.inf
            cursor.close()

    def close(self) -> None:
        self._conn.close()
        self._formatter.close()
        self._tmp.cleanup()

    def __enter__(self) -> BoundedSqlSandbox:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def run_sql_tool(box: BoundedSqlSandbox) -> ToolSpec:
    """The agentic `run_sql` tool over the bounded sandbox, errors shown to the model: v1's tool
    (same name, schema and wording), whose frozen module names only its own sandbox type."""
    return sql.run_sql_tool(box)
