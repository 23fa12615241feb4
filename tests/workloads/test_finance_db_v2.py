"""The v2 finance database: race-free cache, hashed once, immutable copies, per-item prepaid.

Where a test states a defect of v1's frozen code, v1 runs beside v2 as a strict xfail: the
test must fail on v1 (so it could catch the bug) and pass on v2.
"""

from __future__ import annotations

import random
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.sandbox.immutable_sql import ImmutableSqlSandbox, SqlProblem
from ledgerrate.sandbox.sql import SqlSandbox
from ledgerrate.synth import finance_db, finance_db_v2

SEED = 77


def test_with_prepaid_books_contracts_exactly_as_v1_builds_them() -> None:
    data = finance_db.build_from_seed(SEED)
    assert finance_db_v2.with_prepaid(data, data["prepaid_contracts"]) == data
    other = finance_db_v2.prepaid_contracts(random.Random(1))
    changed = finance_db_v2.with_prepaid(data, other)
    assert changed["prepaid_contracts"] == other
    assert data == finance_db.build_from_seed(SEED)  # the input is not changed


def test_each_items_ledger_books_its_own_prepaid_contracts() -> None:
    rng = random.Random(3)
    for _ in range(5):
        contracts = finance_db_v2.prepaid_contracts(rng)
        db = finance_db_v2.database(SEED, contracts)
        refs = {row[4] for row in db.data["tables"]["journal_entries"] if row[3] == "GL"}
        expected = set()
        for c in contracts:
            start = int(c["start"][5:7])
            expected.add(c["contract"])
            expected |= {
                f"{c['contract']}-AM{k:02d}" for k in range(1, min(c["months"], 6 - start) + 1)
            }
        assert refs == expected
        ends = [int(c["start"][5:7]) + c["months"] - 1 for c in contracts]
        assert any(end >= 6 for end in ends) and any(end < 6 for end in ends)
        # Debits equal credits and entry ids follow the calendar, as in v1.
        lines = db.data["tables"]["journal_lines"]
        assert sum(row[4] for row in lines) == sum(row[5] for row in lines)
        dates = [row[1] for row in db.data["tables"]["journal_entries"]]
        assert dates == sorted(dates)


# --------------------------------------------------------------------------- the cache race


def _slow_folders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the first temporary folder slow to create and the second slower, so that two first
    calls overlap exactly as in the runner's concurrent baselines."""
    made: list[str] = []
    real = tempfile.TemporaryDirectory
    lock = threading.Lock()

    def slow(*args: Any, **kwargs: Any) -> tempfile.TemporaryDirectory[str]:
        if "financedb" in str(kwargs.get("prefix")):  # the cache's folder, not a sandbox's
            with lock:
                made.append("folder")
                delay = 0.1 if len(made) == 1 else 1.0
            time.sleep(delay)
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "TemporaryDirectory", slow)
    return made


def _v1_first_call(monkeypatch: pytest.MonkeyPatch) -> Callable[[], Path]:
    monkeypatch.setattr(finance_db, "_CACHE_DIR", None)
    data = finance_db.build_from_seed(SEED)
    return lambda: finance_db.cached_file(data)


def _v2_first_call(monkeypatch: pytest.MonkeyPatch) -> Callable[[], Path]:
    cache = finance_db_v2._SqliteCache()
    db = finance_db_v2.database(SEED)
    return lambda: cache.file(db)


@pytest.mark.parametrize(
    "first_call",
    [
        pytest.param(_v1_first_call, id="v1", marks=pytest.mark.xfail(strict=True)),
        pytest.param(_v2_first_call, id="v2"),
    ],
)
def test_concurrent_first_calls_never_delete_a_database_in_use(
    monkeypatch: pytest.MonkeyPatch, first_call: Any
) -> None:
    get = first_call(monkeypatch)
    made = _slow_folders(monkeypatch)
    threads = 4
    start, returned = threading.Barrier(threads), threading.Barrier(threads)
    paths: list[Path] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            start.wait()
            path = get()
            paths.append(path)
            returned.wait()  # every first call has returned: nothing may delete a path now
            with ImmutableSqlSandbox(path) as box:
                assert box.run("SELECT COUNT(*) FROM accounts").rows == ((22,),)
        except BaseException as exc:  # reported below
            errors.append(exc)
            returned.abort()

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(timeout=30)
    assert not errors, errors
    assert len(set(paths)) == 1 and paths[0].exists()
    assert made == ["folder"]


# --------------------------------------------------------------------------- hashed once


def test_a_database_is_built_and_hashed_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = finance_db_v2.sha256_json

    def counting(value: Any, *args: Any) -> str:
        calls.append(1)
        return real(value, *args)

    monkeypatch.setattr(finance_db_v2, "sha256_json", counting)
    monkeypatch.setattr(finance_db_v2, "_DATABASES", {})
    contracts = finance_db_v2.prepaid_contracts(random.Random(5))
    first = [finance_db_v2.database(SEED + 1) for _ in range(5)]
    again = [finance_db_v2.database(SEED + 1, list(contracts)) for _ in range(5)]
    assert len({id(db) for db in first}) == 1 and len({id(db) for db in again}) == 1
    assert calls == [1, 1]
    assert first[0].sqlite_file() == first[0].sqlite_file()
    assert calls == [1, 1]


def _hashes_per_grade(monkeypatch: pytest.MonkeyPatch, version: Any, module: Any) -> int:
    """How many times grading the same item five times hashes its whole database."""
    calls: list[int] = []
    real = module.sha256_json

    def counting(value: Any, *args: Any) -> str:
        calls.append(1)
        return real(value, *args)

    item = version.WORKLOAD.generate(random.Random(SEED), 1).items[0]
    version.database_for(item)  # the first build and hash are expected
    monkeypatch.setattr(module, "sha256_json", counting)
    for _ in range(5):
        version.database_for(item)
    return len(calls)


@pytest.mark.parametrize(
    "version",
    [
        pytest.param("v1", id="v1", marks=pytest.mark.xfail(strict=True)),
        pytest.param("v2", id="v2"),
    ],
)
def test_grading_an_item_again_does_not_hash_its_database_again(
    monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    from ledgerrate.workloads.query_nl2sql import v1_revision2 as nl2sql_v1
    from ledgerrate.workloads.query_nl2sql import v2 as nl2sql_v2

    module, db_module = (nl2sql_v1, finance_db) if version == "v1" else (nl2sql_v2, finance_db_v2)
    assert _hashes_per_grade(monkeypatch, module, db_module) == 0


# --------------------------------------------------------------------------- immutable copies


@pytest.mark.parametrize(
    "sandbox",
    [
        pytest.param(SqlSandbox, id="v1", marks=pytest.mark.xfail(strict=True)),
        pytest.param(ImmutableSqlSandbox, id="v2"),
    ],
)
def test_a_reader_writes_nothing_beside_its_copy(tmp_path: Path, sandbox: Any) -> None:
    # A WAL-mode file makes a mode=ro reader create -wal and -shm files next to its copy; an
    # immutable one opens the file alone, taking no locks and looking for no journal.
    source = tmp_path / "wal.sqlite"
    conn = sqlite3.connect(source)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x INTEGER)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.commit()
    conn.close()
    box = sandbox(source)
    try:
        assert box.run("SELECT x FROM t").rows == ((1,),)
        assert sorted(p.name for p in Path(box._tmp.name).iterdir()) == ["db.sqlite"]
    finally:
        box.close()


def test_immutable_sandbox_keeps_every_refusal_of_v1(tmp_path: Path) -> None:
    path = finance_db_v2.database(SEED).sqlite_file()
    with ImmutableSqlSandbox(path) as box:
        for hostile in (
            "DELETE FROM accounts",
            "PRAGMA writable_schema=1",
            "SELECT load_extension('x')",
        ):
            with pytest.raises(SqlProblem):
                box.run(hostile)
        assert box.run("SELECT COUNT(*) FROM accounts").rows == ((22,),)
