"""Issue #14 point 7: SQL that outruns its deadline inside one built-in, or grows a value past a
few MB, is cut off by the bounded sandbox; refusals name the statement really asked for.

The same hostile statements against `sandbox/sql.py` (frozen: hashed into query.nl2sql.v1)
took 7–17 s for one printf, and refused CREATE TABLE as "INSERT is not allowed"."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from ledgerrate.core.hashing import sha256_file
from ledgerrate.core.tools import ToolError
from ledgerrate.sandbox.bounded_sql import (
    MAX_PRINTF_WIDTH,
    BoundedSqlSandbox,
    SqlError,
    SqlProblem,
    SqlRefused,
    SqlTimeout,
    printf_problem,
    run_sql_tool,
    statement_kind,
)
from ledgerrate.sandbox.immutable_sql import ImmutableSqlSandbox
from ledgerrate.synth import finance_db

DEADLINE = 0.5
# Not a performance target: the bound a deadline promises, with room for a loaded machine.
BOUND = DEADLINE + 2.0


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = finance_db.build(random.Random(11))
    return finance_db.materialise(data, tmp_path_factory.mktemp("db"))


# The v2 workloads' sandbox is the bounded one opened immutable: every bound holds for both.
@pytest.fixture(params=[BoundedSqlSandbox, ImmutableSqlSandbox])
def box(db_path: Path, request: pytest.FixtureRequest):
    with request.param(db_path, deadline_s=DEADLINE) as sandbox:
        yield sandbox


EXPENSIVE = {
    "printf precision": "SELECT printf('%.*c', 1000000000, 'x')",
    "printf literal precision": "SELECT printf('%.1000000000c', 'x')",
    "format precision, text argument": "SELECT format('%!.*c', '1000000000', 'x')",
    "printf precision, blob argument": "SELECT printf('%.*c', CAST('999999999' AS BLOB), 'x')",
    "printf twice": "SELECT printf('%.*c', 900000000, 'x'), printf('%.*c', 900000000, 'y')",
    "zeroblob": "SELECT length(zeroblob(1000000000))",
    "randomblob": "SELECT length(randomblob(1000000000))",
    "replace growth": (
        "SELECT length(replace(replace(replace(replace(printf('%.*c', 9000, 'x'), 'x', "
        "'xxxxxxxxxx'), 'x', 'xxxxxxxxxx'), 'x', 'xxxxxxxxxx'), 'x', 'xxxxxxxxxx'))"
    ),
    "recursive doubling": (
        "WITH RECURSIVE r(s, n) AS (SELECT 'x', 0 UNION ALL SELECT s || s, n + 1 FROM r "
        "WHERE n < 60) SELECT max(length(s)) FROM r"
    ),
    "group_concat of a cross join": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5000) "
        "SELECT length(group_concat(a.n || '-' || b.n)) FROM r a, r b"
    ),
    "endless recursion": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
    ),
}


@pytest.mark.parametrize("sql", list(EXPENSIVE.values()), ids=list(EXPENSIVE))
def test_expensive_builtins_are_bounded(box: BoundedSqlSandbox, db_path: Path, sql: str) -> None:
    before = sha256_file(db_path)
    started = time.monotonic()
    with pytest.raises(SqlProblem) as stopped:
        box.run(sql)
    assert time.monotonic() - started < BOUND, stopped.value
    assert isinstance(stopped.value, (SqlRefused, SqlTimeout, SqlError))
    assert sha256_file(db_path) == before
    assert box.run("SELECT 1").rows == ((1,),)  # the sandbox is usable afterwards


def test_printf_refusal_names_the_width(box: BoundedSqlSandbox) -> None:
    with pytest.raises(SqlRefused) as refused:
        box.run("SELECT printf('%.*c', 1000000000, 'x')")
    assert "1000000000" in str(refused.value) and str(MAX_PRINTF_WIDTH) in str(refused.value)


def test_ordinary_printf_still_works(box: BoundedSqlSandbox) -> None:
    result = box.run("SELECT printf('%.2f|%5d|%-4s|%%|%,d', 3.14159, 42, 'ab', 1234567)")
    assert result.rows == (("3.14|   42|ab  |%|1,234,567",),)
    assert box.run("SELECT format('%s-%s', 'a', 'b')").rows == (("a-b",),)


def test_watchdog_interrupts_without_the_progress_handler(db_path: Path) -> None:
    """With the progress handler all but off, the watchdog alone stops the query on time."""
    with BoundedSqlSandbox(db_path, deadline_s=DEADLINE, progress_every=2**30) as box:
        started = time.monotonic()
        with pytest.raises(SqlTimeout):
            box.run(EXPENSIVE["endless recursion"])
        assert time.monotonic() - started < BOUND


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("CREATE TABLE t (x INTEGER)", "CREATE TABLE"),
        ("create temp view v as select 1", "CREATE TEMP VIEW"),
        ("CREATE VIEW v AS SELECT 1", "CREATE VIEW"),
        ("ANALYZE", "ANALYZE"),
        ("DROP TABLE IF EXISTS no_such_table", "DROP TABLE"),
        ("/* hi */ INSERT INTO accounts VALUES (1)", "INSERT"),
        ("PRAGMA writable_schema = ON", "PRAGMA"),
        ("ATTACH 'x.db' AS x", "ATTACH"),
    ],
)
def test_refusals_name_the_real_statement(box: BoundedSqlSandbox, sql: str, named: str) -> None:
    with pytest.raises(SqlRefused) as refused:
        box.run(sql)
    assert str(refused.value).startswith(f"{named} is not allowed"), refused.value


def test_limits_bound_columns_depth_compounds_and_arguments(box: BoundedSqlSandbox) -> None:
    many_columns = "SELECT " + ", ".join(str(i) for i in range(300))
    deep = "SELECT " + "(" * 150 + "1" + ")" * 150
    compound = " UNION ALL ".join(f"SELECT {i}" for i in range(40))
    arguments = "SELECT char(" + ", ".join(["65"] * 50) + ")"
    for sql in (many_columns, deep, compound, arguments):
        with pytest.raises(SqlError):
            box.run(sql)


def test_writes_through_with_are_still_refused(box: BoundedSqlSandbox) -> None:
    with pytest.raises(SqlRefused):
        box.run("WITH x AS (SELECT 1) INSERT INTO accounts SELECT * FROM x")


def test_tool_shows_the_reason(box: BoundedSqlSandbox) -> None:
    tool = run_sql_tool(box)
    with pytest.raises(ToolError) as refused:
        tool.run({"sql": "CREATE TABLE t (x)"})
    assert "CREATE TABLE is not allowed" in str(refused.value)


def test_statement_kind_ignores_comments_and_literals() -> None:
    assert statement_kind("-- DROP TABLE x\n  select 'CREATE TABLE'") == "SELECT"
    assert printf_problem(("%d%%%s", 1, "x")) is None
    assert printf_problem(("%*.*c", 5, 10_001, "x")) is not None
