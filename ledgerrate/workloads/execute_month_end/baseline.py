"""A rule-based close script: reads the item's documents and queries the database, no model.

It follows the written close policy literally and posts through the same journal writer a
model uses, so its entries pass the same validation. It never reads `item.truth`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from ledgerrate.sandbox.journal import JournalWriter
from ledgerrate.sandbox.sql import SqlSandbox
from ledgerrate.synth import finance_schema as fdb

_MONEY = r"([\d,]+\.\d{2})"


def _dollars(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def _field(text: str, label: str) -> str:
    found = re.search(rf"^{re.escape(label)}:\s*(.+)$", text, re.MULTILINE)
    if not found:
        raise ValueError(f"document has no {label!r} line")
    return found.group(1).strip()


def _lines(debit: str, credit: str, amount: Decimal) -> list[dict[str, Any]]:
    return [
        {"account": debit, "debit": str(amount)},
        {"account": credit, "credit": str(amount)},
    ]


def _accruals(files: Mapping[str, str], box: SqlSandbox, writer: JournalWriter) -> None:
    booked = {row[0] for row in box.run("SELECT invoice_number FROM ap_bills").rows}
    accounts = dict(box.run("SELECT name, default_expense_account FROM vendors").rows)
    for name, text in sorted(files.items()):
        if not name.startswith("invoices/"):
            continue
        number = _field(text, "Invoice number")
        start, _to, _end = _field(text, "Service period").partition(" to ")
        if number in booked or not start.startswith(fdb.CLOSE_PERIOD):
            continue
        amount = _dollars(re.search(_MONEY, _field(text, "Amount due")).group(1))  # type: ignore[union-attr]
        vendor = _field(text, "From")
        writer.post(
            {"memo": f"Accrue {number}", "lines": _lines(accounts[vendor], fdb.ACCRUED, amount)}
        )


def _payroll(text: str, writer: JournalWriter) -> None:
    found = re.search(r"Pay period: (\S+) to (\S+) \((\d+) calendar days\)", text)
    start, days = found.group(1), int(found.group(3))  # type: ignore[union-attr]
    gross = _dollars(re.search(_MONEY, _field(text, "Gross wages for the pay period")).group(1))  # type: ignore[union-attr]
    june_days = (fdb.CLOSE_END - dt.date.fromisoformat(start)).days + 1
    amount = (gross * june_days / days).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    writer.post(
        {"memo": "Payroll accrual", "lines": _lines(fdb.SALARIES, fdb.ACCRUED_PAYROLL, amount)}
    )


def _prepaid(text: str, writer: JournalWriter) -> None:
    account = None
    for line in text.splitlines():
        header = re.search(r"expense account (\d{4})", line)
        if header:
            account = header.group(1)
        row = re.match(rf"\s+{fdb.CLOSE_PERIOD}\s+{_MONEY}\s+no\s*$", line)
        if row and account:
            amount = _dollars(row.group(1))
            writer.post(
                {"memo": "June amortisation", "lines": _lines(account, fdb.PREPAID, amount)}
            )


def _bank(text: str, box: SqlSandbox, writer: JournalWriter) -> None:
    gl = box.run(
        "SELECT e.reference, p.check_number, l.debit_cents - l.credit_cents "
        "FROM journal_lines l JOIN journal_entries e ON e.entry_id = l.entry_id "
        "LEFT JOIN ap_payments p ON p.reference = e.reference "
        f"WHERE l.account_code = '{fdb.CASH}' AND e.period = '{fdb.CLOSE_PERIOD}'"
    ).rows
    by_ref = Counter((ref, cents) for ref, _check, cents in gl)
    by_check = Counter((f"CHECK {check}", cents) for _ref, check, cents in gl if check)
    for line in text.splitlines():
        # Fixed-width columns: date 12, description 58, withdrawal 14, deposit 14, balance 16.
        row = re.match(r"^(\d{4}-\d\d-\d\d)  (.{56})  (.{14})(.{14})(.{16})$", line)
        if not row:
            continue
        description = row.group(2).strip()
        out, into = row.group(3).strip(), row.group(4).strip()
        cents = int(_dollars(into) * 100) if into else -int(_dollars(out) * 100)
        ref = description.split()[-1]
        if by_ref[(ref, cents)] > 0 and not description.startswith("RETURNED"):
            by_ref[(ref, cents)] -= 1
            continue
        if by_check[(description, cents)] > 0:
            by_check[(description, cents)] -= 1
            continue
        amount = Decimal(abs(cents)) / 100
        upper = description.upper()
        if "INTEREST" in upper:
            lines = _lines(fdb.CASH, fdb.INTEREST_INCOME, amount)
        elif "RETURNED" in upper:
            lines = _lines(fdb.AR, fdb.CASH, amount)
        elif "CHARGE" in upper or "FEE" in upper:
            lines = _lines(fdb.BANK_FEES, fdb.CASH, amount)
        else:
            continue  # unexplained: left for a human rather than guessed
        writer.post({"memo": f"Bank: {description}", "lines": lines})


def run_close(
    files: Mapping[str, str],
    db_path: Any,
    accounts: Mapping[str, str],
    sandbox: Callable[[Any], SqlSandbox] = SqlSandbox,
) -> JournalWriter:
    """Close one item; `sandbox` opens the database (v2 passes its immutable sandbox)."""
    writer = JournalWriter(accounts)
    with sandbox(db_path) as box:
        _accruals(files, box, writer)
        _payroll(files["payroll_summary.txt"], writer)
        _prepaid(files["prepaid_schedule.txt"], writer)
        _bank(files["bank_statement.txt"], box, writer)
    return writer
