"""The SQL sandbox: hostile SQL is refused or cut off in time, and the database never changes."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path

import pytest

from ledgerrate.core.hashing import sha256_file
from ledgerrate.core.tools import ToolError
from ledgerrate.sandbox.sql import (
    SqlError,
    SqlRefused,
    SqlResult,
    SqlSandbox,
    SqlTimeout,
    render_result,
    run_sql_tool,
    single_statement,
)
from ledgerrate.synth import finance_db

DEADLINE = 0.5
MARGIN = 0.75


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = finance_db.build(random.Random(11))
    return finance_db.materialise(data, tmp_path_factory.mktemp("db"))


@pytest.fixture
def box(db_path: Path):
    with SqlSandbox(db_path, deadline_s=DEADLINE) as sandbox:
        yield sandbox


HOSTILE = {
    "insert": "INSERT INTO vendors VALUES (999, 'x', 'US', 30, '6100')",
    "update": "UPDATE ap_bills SET amount_cents = 0",
    "delete": "DELETE FROM journal_lines",
    "drop": "DROP TABLE accounts",
    "create": "CREATE TABLE loot (a)",
    "create_temp": "CREATE TEMP TABLE loot AS SELECT * FROM vendors",
    "attach": "ATTACH DATABASE '/tmp/ledgerrate-evil.db' AS evil",
    "pragma_writable_schema": "PRAGMA writable_schema=1",
    "pragma_function": "SELECT * FROM pragma_table_info('vendors')",
    "load_extension": "SELECT load_extension('/tmp/evil.so')",
    "fts3_tokenizer": "SELECT fts3_tokenizer('simple')",
    "vacuum_into": "VACUUM INTO '/tmp/ledgerrate-copy.db'",
    "begin": "BEGIN IMMEDIATE",
    "two_statements": "SELECT 1; DELETE FROM vendors",
    "two_selects": "SELECT 1; SELECT 2",
    "huge_blob": "SELECT zeroblob(500000000)",
}


@pytest.mark.parametrize("sql", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_sql_is_refused_and_the_database_is_unchanged(
    db_path: Path, box: SqlSandbox, sql: str
) -> None:
    before = sha256_file(db_path)
    started = time.monotonic()
    with pytest.raises((SqlRefused, SqlError)) as caught:
        box.run(sql)
    assert time.monotonic() - started < DEADLINE + MARGIN
    assert str(caught.value)  # a message the model can read
    assert sha256_file(db_path) == before
    # The sandbox stays usable, and the data is intact inside it too.
    assert box.run("SELECT COUNT(*) FROM vendors").rows == ((40,),)


def test_refusal_names_what_was_asked(box: SqlSandbox) -> None:
    with pytest.raises(SqlRefused, match="PRAGMA"):
        box.run("PRAGMA writable_schema=1")
    with pytest.raises(SqlRefused, match="load_extension"):
        box.run("SELECT load_extension('x')")
    with pytest.raises(SqlRefused, match="one statement"):
        box.run("SELECT 1; SELECT 2")


def test_readfile_does_not_exist_or_is_refused(box: SqlSandbox) -> None:
    for name in ("readfile('/etc/passwd')", "writefile('/tmp/x', 'y')", "edit('x')"):
        with pytest.raises((SqlRefused, SqlError)):
            box.run(f"SELECT {name}")


ENDLESS = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)"


def test_endless_recursive_cte_is_cut_off_at_the_deadline(db_path: Path, box: SqlSandbox) -> None:
    before = sha256_file(db_path)
    started = time.monotonic()
    with pytest.raises(SqlTimeout, match="deadline"):
        box.run(f"{ENDLESS} SELECT MAX(n) FROM r")
    elapsed = time.monotonic() - started
    assert DEADLINE * 0.9 <= elapsed < DEADLINE + MARGIN
    assert sha256_file(db_path) == before


def test_endless_recursive_cte_streaming_rows_stops_at_the_row_cap(box: SqlSandbox) -> None:
    started = time.monotonic()
    result = box.run(f"{ENDLESS} SELECT n FROM r")
    assert time.monotonic() - started < DEADLINE + MARGIN
    assert result.truncated is True
    assert len(result.rows) == box.max_rows


def test_counting_a_huge_cross_join_times_out(box: SqlSandbox) -> None:
    started = time.monotonic()
    with pytest.raises(SqlTimeout):
        box.run("SELECT COUNT(*) FROM journal_lines a, journal_lines b, journal_lines c")
    assert time.monotonic() - started < DEADLINE + MARGIN


def test_million_row_cross_join_stops_at_the_row_cap(db_path: Path) -> None:
    with SqlSandbox(db_path, deadline_s=DEADLINE, max_rows=10_000) as box:
        started = time.monotonic()
        result = box.run("SELECT a.line_id, b.line_id FROM journal_lines a, journal_lines b")
        assert time.monotonic() - started < DEADLINE + MARGIN
    assert result.truncated is True
    assert len(result.rows) == 10_000


def test_wide_rows_are_cut_by_the_result_size_cap(box: SqlSandbox) -> None:
    result = box.run("SELECT printf('%.*c', 90000, 'x') FROM journal_lines")
    assert result.truncated is True
    assert 0 < len(result.rows) < 100
    with pytest.raises(SqlError, match="too big"):
        box.run("SELECT printf('%.*c', 90000, 'x') || printf('%.*c', 90000, 'x')")


def test_a_plain_select_returns_a_typed_result(box: SqlSandbox) -> None:
    result = box.run("SELECT account_code, name FROM accounts WHERE account_code = '1000';")
    assert isinstance(result, SqlResult)
    assert result.columns == ("account_code", "name")
    assert result.rows == (("1000", "Cash - operating account"),)
    assert result.truncated is False


def test_semicolons_inside_literals_and_comments_are_not_statements(box: SqlSandbox) -> None:
    assert box.run("SELECT ';' AS a -- trailing; comment").rows == ((";",),)
    assert box.run("SELECT 'it''s; fine' /* ; */ ;  ").rows == (("it's; fine",),)
    with pytest.raises(SqlRefused):
        single_statement("SELECT ';'; DROP TABLE x")
    with pytest.raises(SqlRefused):
        single_statement("  -- only a comment")


def test_syntax_errors_are_reported_not_raised_raw(box: SqlSandbox) -> None:
    with pytest.raises(SqlError, match="no such column"):
        box.run("SELECT nonsense FROM vendors")


def test_the_copy_is_read_only_even_without_the_authorizer(db_path: Path) -> None:
    # Defence in depth: with the authorizer removed the read-only URI still refuses writes.
    with SqlSandbox(db_path) as box:
        box._conn.set_authorizer(None)
        with pytest.raises(sqlite3.OperationalError, match=r"readonly|read-only|query_only"):
            box._conn.execute("DELETE FROM vendors")


def test_run_sql_tool_shows_problems_to_the_model(box: SqlSandbox) -> None:
    tool = run_sql_tool(box)
    assert "| " in tool.run({"sql": "SELECT account_code, name FROM accounts LIMIT 2"})
    with pytest.raises(ToolError, match="not allowed"):
        tool.run({"sql": "DELETE FROM vendors"})
    with pytest.raises(ToolError, match="empty"):
        tool.run({})


def test_render_result_says_when_rows_were_cut() -> None:
    result = SqlResult(columns=("n",), rows=tuple((i,) for i in range(300)), truncated=True)
    text = render_result(result, limit=5)
    assert text.splitlines()[0] == "n"
    assert "more than 300" in text.splitlines()[-1]
    assert len(text.splitlines()) == 7
