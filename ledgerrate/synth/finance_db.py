"""A seeded synthetic finance database: GL, AP, AR and dimension tables for January–June 2026.

The rows are plain JSON data (money as integer cents, dates as ISO strings), so a dataset's
hash depends on content only; `materialise` turns them into a SQLite file when a sandbox
needs one. June 2026 is the open period: everything routine is booked, the month-end
adjustments are not (that is the `execute.month-end.v1` task).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import sqlite3
import tempfile
import threading
from functools import cache
from pathlib import Path
from typing import Any

from ledgerrate.hashing import sha256_json
from ledgerrate.synth.common import company
from ledgerrate.synth.finance_schema import (
    ACCOUNTS,
    AP,
    AR,
    CAPITAL,
    CASH,
    CLOSE_END,
    CLOSE_PERIOD,
    CLOSE_START,
    COST_CENTRES,
    COUNTRIES,
    DDL,
    EQUIPMENT,
    FIRST_DAY,
    PREPAID,
    RETAINED,
    SALARIES,
    TABLE_ORDER,
    VENDOR_EXPENSE_ACCOUNTS,
    YEAR,
)

Row = list[Any]


def _iso(day: dt.date) -> str:
    return day.isoformat()


def _period(day: dt.date) -> str:
    return f"{day.year}-{day.month:02d}"


def _month_end(year: int, month: int) -> dt.date:
    nxt = dt.date(year + month // 12, month % 12 + 1, 1)
    return nxt - dt.timedelta(days=1)


def _unique_names(rng: random.Random, count: int, taken: set[str]) -> list[str]:
    names: list[str] = []
    while len(names) < count:
        name = company(rng)
        if name not in taken:
            taken.add(name)
            names.append(name)
    return names


def _day(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


class _Ledger:
    """Collects journal entries; ids are assigned after sorting so they follow the calendar."""

    def __init__(self) -> None:
        self.entries: list[tuple[dt.date, int, str, str, str, list[tuple[Any, ...]]]] = []

    def post(
        self,
        day: dt.date,
        source: str,
        reference: str,
        memo: str,
        lines: list[tuple[str, str | None, int, int]],
    ) -> None:
        assert sum(d for _a, _c, d, _cr in lines) == sum(cr for _a, _c, _d, cr in lines)
        self.entries.append((day, len(self.entries), source, reference, memo, lines))

    def rows(self) -> tuple[list[Row], list[Row]]:
        entries: list[Row] = []
        lines: list[Row] = []
        for entry_id, (day, _seq, source, ref, memo, entry_lines) in enumerate(
            sorted(self.entries, key=lambda e: (e[0], e[1])), start=1
        ):
            entries.append([entry_id, _iso(day), _period(day), source, ref, memo])
            for account, centre, debit, credit in entry_lines:
                lines.append([len(lines) + 1, entry_id, account, centre, debit, credit])
        return entries, lines


def prepaid_contracts(rng: random.Random) -> list[dict[str, Any]]:
    """Prepaid contracts paid in cash and amortised monthly; one ends before June (a decoy)."""
    specs = (
        ("Annual general liability insurance", "6400", dt.date(YEAR, 1, 1), 12, 9_000, 18_000),
        ("CRM software annual licence", "6300", dt.date(YEAR, 3, 1), 12, 6_000, 15_000),
        ("Trade fair sponsorship package", "6900", dt.date(YEAR, 1, 1), 5, 4_000, 9_000),
    )
    contracts = []
    for number, (name, account, start, months, low, high) in enumerate(specs, start=1):
        total = rng.randint(low * 100, high * 100)
        base = total // months
        schedule = [base] * months
        schedule[-1] += total - base * months  # the last month absorbs the rounding
        contracts.append(
            {
                "contract": f"PP-{number:03d}",
                "description": name,
                "expense_account": account,
                "start": _iso(start),
                "months": months,
                "total_cents": total,
                "schedule_cents": schedule,
            }
        )
    return contracts


def build(rng: random.Random) -> dict[str, Any]:
    """All tables as rows of JSON values, plus the DDL; deterministic for a given `rng` state."""
    taken: set[str] = set()
    vendors = [
        [
            vid,
            name,
            rng.choice(COUNTRIES),
            rng.choice((15, 30, 30, 45, 60)),
            rng.choice(VENDOR_EXPENSE_ACCOUNTS),
        ]
        for vid, name in enumerate(_unique_names(rng, 40, taken), start=1)
    ]
    customers = [
        [cid, name, rng.choice(COUNTRIES), rng.choice((25_000, 50_000, 100_000, 250_000)) * 100]
        for cid, name in enumerate(_unique_names(rng, 50, taken), start=1)
    ]
    periods = [
        [f"{YEAR}-{m:02d}", _iso(dt.date(YEAR, m, 1)), _iso(_month_end(YEAR, m)), st]
        for m, st in ((1, "closed"), (2, "closed"), (3, "closed"), (4, "closed"), (5, "closed"))
    ] + [[CLOSE_PERIOD, _iso(CLOSE_START), _iso(CLOSE_END), "open"]]
    ledger = _Ledger()

    cash0 = rng.randint(400_000, 600_000) * 100
    equipment0 = rng.randint(120_000, 240_000) * 100
    capital = 500_000 * 100
    ledger.post(
        FIRST_DAY,
        "OPEN",
        "OPEN-2026",
        "Opening balances",
        [
            (CASH, None, cash0, 0),
            (EQUIPMENT, None, equipment0, 0),
            (CAPITAL, None, 0, capital),
            (RETAINED, None, 0, cash0 + equipment0 - capital),
        ],
    )

    bills: list[Row] = []
    payments: list[Row] = []
    check_no = 5000
    for bill_id in range(1, 241):
        vendor = rng.choice(vendors)
        bill_day = _day(rng, FIRST_DAY, CLOSE_END)
        due = bill_day + dt.timedelta(days=vendor[3])
        amount = rng.randint(150_00, 15_000_00)
        centre = rng.choice(COST_CENTRES)[0]
        invoice_number = f"{vendor[1].split()[0][:3].upper()}-{rng.randint(10000, 99999)}"
        ledger.post(
            bill_day,
            "AP",
            f"BILL-{bill_id:04d}",
            f"Bill {invoice_number} from {vendor[1]}",
            [(vendor[4], centre, amount, 0), (AP, None, 0, amount)],
        )
        paid = due <= CLOSE_END + dt.timedelta(days=10) and rng.random() < 0.9
        if paid:
            pay_day = min(max(due + dt.timedelta(days=rng.randint(-6, 12)), bill_day), CLOSE_END)
            method = "ACH" if rng.random() < 0.7 else "CHECK"
            payment_id = len(payments) + 1
            reference = f"PMT-{payment_id:04d}"
            memo = f"Payment {reference} to {vendor[1]}"
            number = None
            if method == "CHECK":
                check_no += 1
                number = check_no
                memo += f" (check {check_no})"
            payments.append([payment_id, bill_id, _iso(pay_day), amount, method, number, reference])
            ledger.post(
                pay_day, "AP", reference, memo, [(AP, None, amount, 0), (CASH, None, 0, amount)]
            )
        bills.append(
            [
                bill_id,
                vendor[0],
                invoice_number,
                _iso(bill_day),
                _iso(due),
                amount,
                vendor[4],
                centre,
                "paid" if paid else "open",
            ]
        )

    invoices: list[Row] = []
    receipts: list[Row] = []
    for invoice_id in range(1, 301):
        customer = rng.choice(customers)
        inv_day = _day(rng, FIRST_DAY, CLOSE_END)
        due = inv_day + dt.timedelta(days=30)
        amount = rng.randint(500_00, 25_000_00)
        account = "4000" if rng.random() < 0.6 else "4100"
        number = f"INV-{26000 + invoice_id}"
        ledger.post(
            inv_day,
            "AR",
            number,
            f"Invoice {number} to {customer[1]}",
            [(AR, None, amount, 0), (account, None, 0, amount)],
        )
        received = due <= CLOSE_END + dt.timedelta(days=5) and rng.random() < 0.88
        if received:
            day = min(max(due + dt.timedelta(days=rng.randint(-10, 15)), inv_day), CLOSE_END)
            receipt_id = len(receipts) + 1
            reference = f"RCT-{receipt_id:04d}"
            receipts.append([receipt_id, invoice_id, _iso(day), amount, reference])
            ledger.post(
                day,
                "AR",
                reference,
                f"Receipt {reference} from {customer[1]} for {number}",
                [(CASH, None, amount, 0), (AR, None, 0, amount)],
            )
        invoices.append(
            [
                invoice_id,
                customer[0],
                number,
                _iso(inv_day),
                _iso(due),
                amount,
                account,
                "paid" if received else "open",
            ]
        )

    # Biweekly payroll, paid on Fridays; each run is booked when paid (no accrual yet).
    pay_day = dt.date(YEAR, 1, 9)
    run = 1
    while pay_day <= CLOSE_END:
        gross = rng.randint(84_000_00, 96_000_00)
        ledger.post(
            pay_day,
            "PAY",
            f"PR-{YEAR}-{run:02d}",
            f"Payroll run {run}",
            [(SALARIES, None, gross, 0), (CASH, None, 0, gross)],
        )
        pay_day += dt.timedelta(days=14)
        run += 1

    contracts = prepaid_contracts(rng)
    for contract in contracts:
        start = dt.date.fromisoformat(contract["start"])
        ref = contract["contract"]
        ledger.post(
            start + dt.timedelta(days=4),
            "GL",
            ref,
            f"Prepayment: {contract['description']}",
            [(PREPAID, None, contract["total_cents"], 0), (CASH, None, 0, contract["total_cents"])],
        )
        # Amortisation is booked for every month before the open period.
        for offset, amount in enumerate(contract["schedule_cents"]):
            month = start.month + offset
            if month >= CLOSE_START.month or month > 12:
                break
            ledger.post(
                _month_end(YEAR, month),
                "GL",
                f"{ref}-AM{offset + 1:02d}",
                f"Amortisation {offset + 1}/{contract['months']}: {contract['description']}",
                [(contract["expense_account"], None, amount, 0), (PREPAID, None, 0, amount)],
            )

    entries, lines = ledger.rows()
    accounts = [
        [code, name, kind, "debit" if kind in ("asset", "expense") else "credit"]
        for code, name, kind in ACCOUNTS
    ]
    tables = {
        "accounts": accounts,
        "cost_centres": [list(c) for c in COST_CENTRES],
        "periods": periods,
        "vendors": vendors,
        "customers": customers,
        "journal_entries": entries,
        "journal_lines": lines,
        "ap_bills": bills,
        "ap_payments": payments,
        "ar_invoices": invoices,
        "ar_receipts": receipts,
    }
    # The prepaid subledger is not a table: the month-end task hands it over as a document.
    return {"ddl": DDL, "tables": tables, "prepaid_contracts": contracts}


@cache
def build_from_seed(seed: int) -> dict[str, Any]:
    """`build` for a stored seed; cached because every grade of a dataset needs the same rows."""
    return build(random.Random(seed))


def materialise(data: dict[str, Any], folder: Path, name: str = "finance.sqlite") -> Path:
    """Write the rows into a new SQLite file in `folder` and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    try:
        conn.executescript(data["ddl"])
        for table in TABLE_ORDER:
            rows = data["tables"][table]
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
        conn.commit()
    finally:
        conn.close()
    return path


_CACHE_DIR: tempfile.TemporaryDirectory[str] | None = None


_CACHE_LOCK = threading.Lock()


def cached_file(data: dict[str, Any]) -> Path:
    """A SQLite file for `data`, written once per process; graders only ever read copies of it."""
    global _CACHE_DIR
    if _CACHE_DIR is None:
        _CACHE_DIR = tempfile.TemporaryDirectory(prefix="ledgerrate-financedb-")
    digest = sha256_json(data)
    path = Path(_CACHE_DIR.name) / f"{digest}.sqlite"
    # One writer at a time: without the lock two threads could both find the file missing and
    # the second rename would replace a file the first thread's readers already hold open,
    # which SQLite reports as a disk I/O error (seen under the runner's concurrent baselines).
    with _CACHE_LOCK:
        if not path.exists():
            partial = f"{digest}.{os.getpid()}.{threading.get_ident()}.partial"
            os.replace(materialise(data, Path(_CACHE_DIR.name), partial), path)
    return path


def schema_text(data: dict[str, Any]) -> str:
    return str(data["ddl"])


def content_hash(data: dict[str, Any]) -> str:
    return sha256_json(data)
