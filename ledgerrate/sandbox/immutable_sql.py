"""The SQL sandbox of the v2 workloads: v1's sandbox, with its private copy opened immutable.

`sql.SqlSandbox` opens its copy with `mode=ro` only. SQLite then still treats the file as one
another process might change: it takes shared locks and looks for a hot journal beside it, and
finding one (or a folder it may not write) it reports "attempt to write a readonly database"
even to a reader. The copy is private and never changes while open, which is exactly what
`immutable=1` declares, so v2 opens it that way and SQLite touches nothing but the file itself.

`sql.py` is hashed into the registrations of `query.nl2sql.v1`, so the line that opens the
copy cannot change there. This class replaces only the opening; running a statement, the
authorizer, the deadline, the row cap and the `run_sql` tool are v1's, inherited or imported.
"""

from __future__ import annotations

import math
import shutil
import sqlite3
import tempfile
from pathlib import Path

from ledgerrate.sandbox.sql import (
    _PROGRESS_EVERY,
    DEFAULT_DEADLINE_S,
    DEFAULT_MAX_ROWS,
    MAX_SQL_CHARS,
    MAX_VALUE_BYTES,
    SqlProblem,
    SqlSandbox,
    render_result,
    run_sql_tool,
)

__all__ = ["ImmutableSqlSandbox", "SqlProblem", "render_result", "run_sql_tool", "uri_for"]


def uri_for(path: Path) -> str:
    """The URI that opens `path` read-only and immutable (no locks, no journal lookup)."""
    return f"{path.resolve().as_uri()}?mode=ro&immutable=1"


class ImmutableSqlSandbox(SqlSandbox):
    """A private copy of a SQLite database, opened immutable, that runs one SELECT at a time."""

    def __init__(
        self,
        db_path: Path,
        *,
        deadline_s: float = DEFAULT_DEADLINE_S,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> None:
        # Deliberately no super().__init__(): it would open a second, mode=ro connection.
        self.deadline_s = deadline_s
        self.max_rows = max_rows
        self._tmp = tempfile.TemporaryDirectory(prefix="ledgerrate-sql-")
        copy = Path(self._tmp.name) / "db.sqlite"
        shutil.copyfile(db_path, copy)
        copy.chmod(0o444)
        self._denied: str | None = None
        self._deadline = math.inf
        self._conn = sqlite3.connect(uri_for(copy), uri=True, check_same_thread=False)
        conn = self._conn
        # The same layers as v1, each of which stops a write on its own.
        disable = getattr(conn, "enable_load_extension", None)
        if disable is not None:
            disable(False)
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA trusted_schema = OFF")
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_CHARS * 4)
        conn.set_authorizer(self._authorize)
        conn.set_progress_handler(self._progress, _PROGRESS_EVERY)
