"""The SQL sandbox of the v2 workloads: the bounded sandbox, with its private copy opened immutable.

`bounded_sql.BoundedSqlSandbox` stops any query at its wall-clock deadline (a watchdog that
interrupts the connection), caps what a value can grow to with SQLite's limits, and names the
real reason for a refusal. It opens its copy with `mode=ro`, and SQLite then still treats the
file as one another process might change: it takes shared locks and looks for a hot journal
beside it, and finding one (or a folder it may not write) it reports "attempt to write a
readonly database" even to a reader. The copy is private and never changes while open, which is
exactly what `immutable=1` declares, so v2 opens it that way and SQLite touches nothing but the
file itself.

The v1 workloads keep `sql.py`, which is hashed into their registrations.
"""

from __future__ import annotations

from pathlib import Path

from ledgerrate.sandbox.bounded_sql import (
    BoundedSqlSandbox,
    SqlProblem,
    render_result,
    run_sql_tool,
)

__all__ = ["ImmutableSqlSandbox", "SqlProblem", "render_result", "run_sql_tool", "uri_for"]


def uri_for(path: Path) -> str:
    """The URI that opens `path` read-only and immutable (no locks, no journal lookup)."""
    return f"{path.resolve().as_uri()}?mode=ro&immutable=1"


class ImmutableSqlSandbox(BoundedSqlSandbox):
    """A private copy of a SQLite database, opened immutable, that runs one bounded SELECT at a
    time."""

    def _uri(self, copy: Path) -> str:
        return uri_for(copy)
