"""Running untrusted SQL: one SELECT, read-only, on a private copy, with a deadline and a row cap.

The nl2sql grader and the agentic `run_sql` tool both go through `SqlSandbox.run`, so what a
model can do with a tool is exactly what the grader will execute. Several layers each stop a
write on their own (read-only URI on a copy, `query_only`, the authorizer), because a single
layer that a future SQLite build relaxes must not be the only thing between a model and the
benchmark's database.
"""

from __future__ import annotations

import math
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerrate.workloads.base import ToolError, ToolSpec

DEFAULT_DEADLINE_S = 2.0
DEFAULT_MAX_ROWS = 10_000
MAX_SQL_CHARS = 20_000
# Caps on any single string/blob SQLite builds and on a whole fetched result, so neither
# `zeroblob(1e9)` nor ten thousand rows of `printf('%.*c', 100000, 'x')` can exhaust memory.
MAX_VALUE_BYTES = 100_000
MAX_RESULT_BYTES = 4_000_000
# How many VM instructions between deadline checks: small enough to stop within milliseconds.
_PROGRESS_EVERY = 1_000


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# Built-in functions a finance query can reasonably need. An allowlist rather than a denylist:
# a function added by a future SQLite build (or an extension) is refused until reviewed.
ALLOWED_FUNCTIONS: frozenset[str] = frozenset(
    _words(
        "abs avg ceil ceiling char coalesce count cume_dist date datetime dense_rank "
        "first_value floor format glob group_concat hex ifnull iif instr julianday lag "
        "last_value lead length like likelihood likely lower ltrim max min mod nth_value ntile "
        "nullif percent_rank printf quote rank replace round row_number rtrim sign sqrt "
        "strftime string_agg substr substring sum time total trim trunc typeof unicode "
        "unixepoch unlikely upper pow power exp ln log log10 log2 pi json json_extract "
        "json_array json_object json_type json_valid json_array_length -> ->>"
    )
)

_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE}
# Denied actions by name, so a refusal tells the model what it tried, not a bare number.
_DENIED_NAMES = _words(
    "ALTER_TABLE ANALYZE ATTACH CREATE_INDEX CREATE_TABLE CREATE_TEMP_INDEX CREATE_TEMP_TABLE "
    "CREATE_TEMP_TRIGGER CREATE_TEMP_VIEW CREATE_TRIGGER CREATE_VIEW CREATE_VTABLE DELETE "
    "DETACH DROP_INDEX DROP_TABLE DROP_TEMP_INDEX DROP_TEMP_TABLE DROP_TEMP_TRIGGER "
    "DROP_TEMP_VIEW DROP_TRIGGER DROP_VIEW DROP_VTABLE INSERT PRAGMA REINDEX SAVEPOINT "
    "TRANSACTION UPDATE"
)
_ACTION_NAMES = {
    getattr(sqlite3, f"SQLITE_{name}"): name.replace("_", " ")
    for name in _DENIED_NAMES
    if hasattr(sqlite3, f"SQLITE_{name}")
}


class SqlProblem(Exception):
    """Base of every sandbox outcome that is not a result; `str()` is safe to show a model."""


class SqlRefused(SqlProblem):
    """The statement asks for something the sandbox never allows (a write, PRAGMA, …)."""


class SqlTimeout(SqlProblem):
    """The statement ran past its deadline and was interrupted."""


class SqlError(SqlProblem):
    """SQLite rejected the statement (syntax error, unknown column, …)."""


@dataclass(frozen=True)
class SqlResult:
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    truncated: bool  # True when more rows existed than the cap allowed us to fetch


def _strip_comments_and_literals(sql: str) -> str:
    """`sql` with comments removed and quoted text blanked, so `;` inside them is not counted."""
    out: list[str] = []
    i, n = 0, len(sql)
    closers = {"'": "'", '"': '"', "`": "`", "[": "]"}
    while i < n:
        ch = sql[i]
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        elif ch in closers:
            close = closers[ch]
            j = i + 1
            while j < n:
                if sql[j] == close:
                    # A doubled quote is an escaped quote inside the literal.
                    if close != "]" and j + 1 < n and sql[j + 1] == close:
                        j += 2
                        continue
                    break
                j += 1
            out.append("''")
            i = j + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def single_statement(sql: str) -> str:
    """Reject empty input and anything after the first `;` other than blanks and comments."""
    if not isinstance(sql, str) or not sql.strip():
        raise SqlRefused("empty query: send one SELECT statement")
    if len(sql) > MAX_SQL_CHARS:
        raise SqlRefused(f"query too long (over {MAX_SQL_CHARS} characters)")
    if "\x00" in sql:
        raise SqlRefused("query contains a NUL byte")
    bare = _strip_comments_and_literals(sql)
    head, _sep, tail = bare.partition(";")
    if tail.replace(";", "").strip():
        raise SqlRefused("only one statement per call is allowed; remove everything after ';'")
    if not head.strip():
        raise SqlRefused("empty query: send one SELECT statement")
    return sql


def _cell(value: Any) -> Any:
    # Blobs are shown as a hex preview: raw bytes never flow into logs or prompts.
    if isinstance(value, bytes):
        return f"<blob {len(value)} bytes {value[:16].hex()}>"
    return value


class SqlSandbox:
    """A private read-only copy of a SQLite database that runs one SELECT at a time."""

    def __init__(
        self,
        db_path: Path,
        *,
        deadline_s: float = DEFAULT_DEADLINE_S,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> None:
        self.deadline_s = deadline_s
        self.max_rows = max_rows
        self._tmp = tempfile.TemporaryDirectory(prefix="ledgerrate-sql-")
        copy = Path(self._tmp.name) / "db.sqlite"
        shutil.copyfile(db_path, copy)
        copy.chmod(0o444)
        self._denied: str | None = None
        self._deadline = math.inf
        self._conn = sqlite3.connect(
            f"{copy.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
        )
        conn = self._conn
        # Builds without extension support lack the method; then nothing can load one anyway.
        disable = getattr(conn, "enable_load_extension", None)
        if disable is not None:
            disable(False)
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA trusted_schema = OFF")
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_CHARS * 4)
        # Installed last: our own setup PRAGMAs above would be refused by it.
        conn.set_authorizer(self._authorize)
        conn.set_progress_handler(self._progress, _PROGRESS_EVERY)

    def _authorize(self, action: int, arg1: str | None, arg2: str | None, *_rest: Any) -> int:
        if action in _ALLOWED_ACTIONS:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_FUNCTION:
            name = (arg2 or "").lower()
            if name in ALLOWED_FUNCTIONS:
                return sqlite3.SQLITE_OK
            reason = f"function {name}() is not allowed in this sandbox"
        else:
            label = _ACTION_NAMES.get(action, f"action {action}")
            reason = f"{label} is not allowed: the database is read-only, SELECT only"
        # The first denial names what the model asked for; later ones are SQLite's follow-ups.
        if self._denied is None:
            self._denied = reason
        return sqlite3.SQLITE_DENY

    def _progress(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    def run(self, sql: str) -> SqlResult:
        """Execute one SELECT; raise SqlRefused, SqlTimeout or SqlError with a model-safe text."""
        single_statement(sql)
        self._denied = None
        self._deadline = time.monotonic() + self.deadline_s
        cursor = self._conn.cursor()
        try:
            cursor.execute(sql)
            columns = tuple(d[0] for d in cursor.description or ())
            rows: list[tuple[Any, ...]] = []
            truncated = False
            size = 0
            for row in cursor:
                if len(rows) >= self.max_rows or size > MAX_RESULT_BYTES:
                    truncated = True  # at least one more row exists beyond what we keep
                    break
                size += sum(len(v) for v in row if isinstance(v, (str, bytes)))
                rows.append(tuple(_cell(v) for v in row))
            return SqlResult(columns=columns, rows=tuple(rows), truncated=truncated)
        except sqlite3.Warning as exc:  # Python 3.11 reports a second statement this way
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
            raise SqlError(f"SQL error: {exc}") from exc
        finally:
            self._deadline = math.inf
            cursor.close()

    def close(self) -> None:
        self._conn.close()
        self._tmp.cleanup()

    def __enter__(self) -> SqlSandbox:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


@contextmanager
def sandbox(db_path: Path, **options: Any) -> Iterator[SqlSandbox]:
    box = SqlSandbox(db_path, **options)
    try:
        yield box
    finally:
        box.close()


def render_result(result: SqlResult, limit: int = 200) -> str:
    """A compact text table for a model: header, up to `limit` rows, and a truncation note."""
    lines = [" | ".join(result.columns)]
    for row in result.rows[:limit]:
        lines.append(" | ".join("NULL" if v is None else str(v) for v in row))
    shown = min(limit, len(result.rows))
    if len(result.rows) > limit or result.truncated:
        more = "more than" if result.truncated else "of"
        total = len(result.rows)
        lines.append(f"({shown} rows shown {more} {total}; narrow the query or aggregate)")
    else:
        lines.append(f"({len(result.rows)} rows)")
    return "\n".join(lines)


def run_sql_tool(box: SqlSandbox) -> ToolSpec:
    """The agentic `run_sql` tool: the same sandbox the grader uses, errors shown to the model."""

    def _run(args: dict[str, Any]) -> str:
        try:
            return render_result(box.run(str(args.get("sql", ""))))
        except SqlProblem as exc:
            raise ToolError(str(exc)) from exc

    return ToolSpec(
        name="run_sql",
        description=(
            "Run one read-only SQLite SELECT statement against the finance database and "
            "return the rows (at most 200 shown). Writes, PRAGMA and ATTACH are refused."
        ),
        parameters={
            "type": "object",
            "properties": {"sql": {"type": "string", "description": "One SELECT statement."}},
            "required": ["sql"],
            "additionalProperties": False,
        },
        run=_run,
    )
