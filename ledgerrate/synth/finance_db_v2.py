"""The finance database of `query.nl2sql.v2` and `execute.month-end.v2`.

The tables are v1's (`finance_db.build`, imported: `finance_db.py` is hashed into registered
editions and never edited). What v2 changes:

* **The SQLite cache is race-free.** v1 created its temporary folder outside its lock, so two
  first calls from different threads could each make one; the folder that lost the race was
  deleted (garbage-collected) while the other thread was still writing or reading a database in
  it. Here the folder, and every file in it, is created under one lock, and the folder lives as
  long as the process.
* **Each database is hashed once.** v1 hashed the whole database (a few hundred kilobytes of
  canonical JSON) on every grade and every cache lookup; `database()` builds and hashes a
  database once per process and hands out the same `FinanceDb` afterwards.
* **Month-end items carry their own prepaid schedules.** v1 drew one set of prepaid contracts
  per dataset, so all fifteen items shared one amortisation schedule. `prepaid_contracts` draws
  a set per item and `with_prepaid` books it into the ledger in place of the seed's own, so the
  ledger an item's model queries agrees with the schedule on its desk.
"""

from __future__ import annotations

import datetime as dt
import random
import tempfile
import threading
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerrate.hashing import NEW_SCHEME, canonical_json, sha256_json
from ledgerrate.synth import finance_db
from ledgerrate.synth.finance_db import build_from_seed, materialise, schema_text
from ledgerrate.synth.finance_schema import CASH, CLOSE_START, PREPAID, YEAR

__all__ = [
    "FinanceDb",
    "build_from_seed",
    "database",
    "materialise",
    "prepaid_contracts",
    "schema_text",
    "with_prepaid",
]

# Prepaid contracts a company might pay up front: (description, expense account).
_PREPAID_KINDS = (
    ("Annual general liability insurance", "6400"),
    ("Cyber insurance policy", "6400"),
    ("CRM software annual licence", "6300"),
    ("Data warehouse subscription", "6300"),
    ("Trade fair sponsorship package", "6900"),
    ("Annual advertising placement", "6900"),
    ("Office lease prepayment", "6200"),
    ("Audit retainer", "6100"),
)


def _contract(number: int, kind: tuple[str, str], start: int, months: int, total: int) -> dict:
    base = total // months
    schedule = [base] * months
    schedule[-1] += total - base * months  # the last month absorbs the rounding, as in v1
    return {
        "contract": f"PP-{number:03d}",
        "description": kind[0],
        "expense_account": kind[1],
        "start": dt.date(YEAR, start, 1).isoformat(),
        "months": months,
        "total_cents": total,
        "schedule_cents": schedule,
    }


def prepaid_contracts(rng: random.Random) -> list[dict[str, Any]]:
    """Two to four contracts of one item, in v1's shape. At least one has a June line still to
    post; at least one ended before June (a decoy); some end exactly in June, where the last
    line carries the rounding remainder."""
    june = CLOSE_START.month
    kinds = rng.sample(_PREPAID_KINDS, rng.randint(2, 4))
    plans = []
    for index, _kind in enumerate(kinds):
        start = rng.randint(1, june - 1)
        if index == 0:  # runs through June
            months = rng.randint(june - start + 1, 12)
        elif index == 1:  # the decoy: its last line is May or earlier
            months = rng.randint(1, june - start)
        else:
            months = rng.randint(1, 12)
        plans.append((start, months, rng.randint(3_000_00, 18_000_00)))
    order = sorted(range(len(kinds)), key=lambda i: (plans[i][0], kinds[i][0]))
    return [_contract(number, kinds[i], *plans[i]) for number, i in enumerate(order, start=1)]


def _month_end(month: int) -> dt.date:
    return dt.date(YEAR + month // 12, month % 12 + 1, 1) - dt.timedelta(days=1)


def with_prepaid(data: Mapping[str, Any], contracts: Sequence[Mapping[str, Any]]) -> dict:
    """`data` with its prepaid contracts replaced by `contracts`: the seed's prepayments and
    amortisation entries (source GL) leave the ledger, the new ones are booked as v1's `build`
    books them (prepaid in cash four days after the start, amortised at each month end before
    June), and entries are renumbered in calendar order. `data` itself is not changed."""
    tables = data["tables"]
    lines_of: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for _lid, entry_id, account, centre, debit, credit in tables["journal_lines"]:
        lines_of[entry_id].append((account, centre, debit, credit))
    ledger = finance_db._Ledger()
    for entry_id, day, _period, source, reference, memo in tables["journal_entries"]:
        if source != "GL":
            ledger.post(dt.date.fromisoformat(day), source, reference, memo, lines_of[entry_id])
    for contract in contracts:
        start = dt.date.fromisoformat(contract["start"])
        total, ref = contract["total_cents"], contract["contract"]
        ledger.post(
            start + dt.timedelta(days=4),
            "GL",
            ref,
            f"Prepayment: {contract['description']}",
            [(PREPAID, None, total, 0), (CASH, None, 0, total)],
        )
        for offset, amount in enumerate(contract["schedule_cents"]):
            month = start.month + offset
            if month >= CLOSE_START.month:
                break
            ledger.post(
                _month_end(month),
                "GL",
                f"{ref}-AM{offset + 1:02d}",
                f"Amortisation {offset + 1}/{contract['months']}: {contract['description']}",
                [(contract["expense_account"], None, amount, 0), (PREPAID, None, 0, amount)],
            )
    entries, lines = ledger.rows()
    return {
        **data,
        "tables": {**tables, "journal_entries": entries, "journal_lines": lines},
        "prepaid_contracts": [dict(c) for c in contracts],
    }


@dataclass(frozen=True, eq=False)
class FinanceDb:
    """One database: its rows and their content hash (scheme 2), computed once."""

    data: dict[str, Any]
    hash: str

    def sqlite_file(self) -> Path:
        """A SQLite file of this database, written once per process; never write to it."""
        return _CACHE.file(self)


class _SqliteCache:
    """SQLite files of databases by content hash, in one folder that lives with the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._files: dict[str, Path] = {}

    def file(self, db: FinanceDb) -> Path:
        # Everything under the lock: the folder is made once and never replaced, and a file is
        # listed only after it is complete, so no caller can see a half-written database or one
        # in a folder that is about to go.
        with self._lock:
            if self._folder is None:
                self._folder = tempfile.TemporaryDirectory(prefix="ledgerrate-financedb-v2-")
            path = self._files.get(db.hash)
            if path is None:
                path = materialise(db.data, Path(self._folder.name), f"{db.hash}.sqlite")
                self._files[db.hash] = path
            return path


_CACHE = _SqliteCache()
_DATABASES: dict[tuple[int, str | None], FinanceDb] = {}
_DATABASES_LOCK = threading.Lock()


def database(seed: int, prepaid: Sequence[Mapping[str, Any]] | None = None) -> FinanceDb:
    """The database of a seed (v1's rows) or, with `prepaid`, that database with those prepaid
    contracts in place of the seed's; built and hashed once per process."""
    key = (seed, None if prepaid is None else canonical_json(list(prepaid), NEW_SCHEME))
    with _DATABASES_LOCK:
        found = _DATABASES.get(key)
        if found is None:
            data = build_from_seed(seed)
            if prepaid is not None:
                data = with_prepaid(data, prepaid)
            found = FinanceDb(data=data, hash=sha256_json(data, NEW_SCHEME))
            _DATABASES[key] = found
        return found
