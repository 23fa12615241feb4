"""One month-end close scenario: the source documents and the reference adjusting entries.

The database is shared by every item; what varies per item is the paperwork on the desk:
which vendor invoices arrived unbooked (and which decoys look like they need accruing but do
not), the payroll run straddling the month end, and the June bank statement with its
bank-only items and timing differences. Reference entries follow the written close policy.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from ledgerrate.synth import finance_schema as fdb
from ledgerrate.synth.common import company

CENT = Decimal("0.01")
CLOSE_DATE = fdb.CLOSE_END.isoformat()

POLICY = """\
MONTH-END CLOSE: JUNE 2026 (period 2026-06)

Everything routine for June is already in the ledger (AP bills and payments, AR invoices and
receipts, payroll runs paid in June, prepaid amortisation through May). Post only the
adjustments below, each as a balanced journal entry dated 2026-06-30.

1. Unbooked vendor invoices (folder invoices/). An invoice for goods or services received in
   June that is not yet in ap_bills (match on the vendor's invoice number) is accrued: debit
   the vendor's default_expense_account (vendors table), credit 2100 Accrued liabilities, for
   the invoice amount. Invoices already in ap_bills, or for services in a later period, are
   not accrued.
2. Payroll (payroll_summary.txt). Accrue the wages earned in June for the pay run paid in
   July: gross wages x (calendar days of the pay period falling in June / calendar days in
   the pay period), rounded half up to the cent. Debit 6000, credit 2200 Accrued payroll.
3. Prepaid expenses (prepaid_schedule.txt). For every contract whose schedule has a June 2026
   line not yet posted, post that amortisation: debit the contract's expense account, credit
   1300 Prepaid expenses.
4. Cash (bank_statement.txt). Reconcile account 1000 to the June bank statement. Items that
   appear only on the bank statement are recorded against 1000: bank charges to 6500 Bank
   fees, interest received to 7000 Interest income, customer payments returned unpaid back to
   1100 Accounts receivable. Timing differences (checks not yet presented, deposits not yet
   credited by the bank) need no entry.

When you are done, reply with a short close summary: the entries you posted and the cash
reconciliation (ledger balance, bank balance, reconciling items).
"""


def cents_to_str(cents: int) -> str:
    return str((Decimal(cents) / 100).quantize(CENT))


def dollars(cents: int) -> str:
    return f"{Decimal(cents) / 100:,.2f}"


def _entry(memo: str, debit_account: str, credit_account: str, cents: int) -> dict[str, Any]:
    amount = cents_to_str(cents)
    return {
        "memo": memo,
        "lines": [
            {"account": debit_account, "debit": amount, "credit": "0.00"},
            {"account": credit_account, "debit": "0.00", "credit": amount},
        ],
    }


def _invoice_text(customer: str, vendor: str, number: str, **f: Any) -> str:
    return (
        "INVOICE\n"
        f"From: {vendor}\n"
        f"Bill to: {customer}\n"
        f"Invoice number: {number}\n"
        f"Invoice date: {f['date']}\n"
        f"Service period: {f['start']} to {f['end']}\n"
        f"Description: {f['description']}\n"
        f"Amount due: USD {dollars(f['cents'])}\n"
        f"Payment terms: net {f['terms']} days\n"
    )


_SERVICES = (
    "Consulting services",
    "Facilities maintenance",
    "Monthly support retainer",
    "Equipment hire",
    "Marketing campaign services",
    "Courier and freight",
)


def _invoices(
    rng: random.Random, data: dict[str, Any], customer: str
) -> tuple[dict[str, str], list[dict[str, Any]], list[str]]:
    t = data["tables"]
    booked = {row[2] for row in t["ap_bills"]}
    vendors = {row[0]: row for row in t["vendors"]}
    files: dict[str, str] = {}
    entries: list[dict[str, Any]] = []
    strata: list[str] = []
    june_start = fdb.CLOSE_START.isoformat()
    for _ in range(rng.randint(1, 3)):
        vendor = rng.choice(t["vendors"])
        number = f"{vendor[1].split()[0][:3].upper()}-{rng.randint(10000, 99999)}"
        while number in booked:
            number = f"{vendor[1].split()[0][:3].upper()}-{rng.randint(10000, 99999)}"
        booked.add(number)
        cents = rng.randint(400_00, 9_000_00)
        day = fdb.CLOSE_END + dt.timedelta(days=rng.randint(-4, 6))
        files[f"invoices/{number}.txt"] = _invoice_text(
            customer,
            vendor[1],
            number,
            date=day.isoformat(),
            start=june_start,
            end=CLOSE_DATE,
            description=rng.choice(_SERVICES),
            cents=cents,
            terms=vendor[3],
        )
        entries.append(
            _entry(f"Accrue {vendor[1]} invoice {number}", vendor[4], fdb.ACCRUED, cents)
        )
    if rng.random() < 0.6:
        june_bills = [row for row in t["ap_bills"] if row[3] >= june_start]
        bill = rng.choice(june_bills)
        vendor = vendors[bill[1]]
        files[f"invoices/{bill[2]}.txt"] = _invoice_text(
            customer,
            vendor[1],
            bill[2],
            date=bill[3],
            start=june_start,
            end=CLOSE_DATE,
            description=rng.choice(_SERVICES),
            cents=bill[5],
            terms=vendor[3],
        )
        strata.append("decoy_already_booked")
    if rng.random() < 0.5:
        vendor = rng.choice(t["vendors"])
        number = f"{vendor[1].split()[0][:3].upper()}-{rng.randint(10000, 99999)}"
        files[f"invoices/{number}.txt"] = _invoice_text(
            customer,
            vendor[1],
            number,
            date=(fdb.CLOSE_END - dt.timedelta(days=rng.randint(0, 3))).isoformat(),
            start="2026-07-01",
            end="2026-07-31",
            description=rng.choice(_SERVICES) + " (July, billed in advance)",
            cents=rng.randint(400_00, 9_000_00),
            terms=vendor[3],
        )
        strata.append("decoy_next_period")
    return files, entries, strata


def _payroll(rng: random.Random) -> tuple[str, dict[str, Any]]:
    start = fdb.CLOSE_END - dt.timedelta(days=rng.randint(2, 12))
    end = start + dt.timedelta(days=13)
    gross = rng.randint(84_000_00, 96_000_00)
    june_days = (fdb.CLOSE_END - start).days + 1
    accrual = (Decimal(gross) * june_days / 14).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    text = (
        "PAYROLL SUMMARY: NEXT PAY RUN\n"
        f"Pay period: {start.isoformat()} to {end.isoformat()} (14 calendar days)\n"
        f"Pay date: {(end + dt.timedelta(days=5)).isoformat()}\n"
        f"Employees: {rng.randint(38, 55)}\n"
        f"Gross wages for the pay period: USD {dollars(gross)}\n"
        "Wages are earned evenly over the calendar days of the pay period.\n"
        "Nothing for this pay period has been booked.\n"
    )
    return text, _entry(
        "Accrue June share of payroll", fdb.SALARIES, fdb.ACCRUED_PAYROLL, int(accrual)
    )


def _prepaid(data: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    lines = ["PREPAID EXPENSES SCHEDULE (account 1300)", ""]
    entries = []
    for contract in data["prepaid_contracts"]:
        start = dt.date.fromisoformat(contract["start"])
        lines.append(f"Contract {contract['contract']}: {contract['description']}")
        lines.append(
            f"  Total USD {dollars(contract['total_cents'])} over {contract['months']} months "
            f"from {start.isoformat()[:7]}; expense account {contract['expense_account']}"
        )
        lines.append("  Month     Amortisation   Posted")
        for offset, cents in enumerate(contract["schedule_cents"]):
            year = start.year + (start.month + offset - 1) // 12
            month = (start.month + offset - 1) % 12 + 1
            period = f"{year}-{month:02d}"
            posted = "yes" if period < fdb.CLOSE_PERIOD else "no"
            lines.append(f"  {period}   {dollars(cents):>12}   {posted}")
            if period == fdb.CLOSE_PERIOD:
                entries.append(
                    _entry(
                        f"June amortisation {contract['contract']}",
                        contract["expense_account"],
                        fdb.PREPAID,
                        cents,
                    )
                )
        lines.append("")
    return "\n".join(lines), entries


def cash_lines(data: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    """GL cash balance at 31 May and June's cash lines with the bank's view of each."""
    t = data["tables"]
    entries = {row[0]: row for row in t["journal_entries"]}
    checks = {row[6]: row[5] for row in t["ap_payments"] if row[5] is not None}
    opening = 0
    june: list[dict[str, Any]] = []
    for _lid, entry_id, account, _cc, debit, credit in t["journal_lines"]:
        if account != fdb.CASH:
            continue
        entry = entries[entry_id]
        if entry[1] < fdb.CLOSE_START.isoformat():
            opening += debit - credit
        else:
            june.append(
                {"date": entry[1], "ref": entry[4], "memo": entry[5], "cents": debit - credit}
            )
    for line in june:
        line["check"] = checks.get(line["ref"])
    return opening, june


def _bank(rng: random.Random, data: dict[str, Any]) -> tuple[str, list[dict[str, Any]], list[str]]:
    opening, june = cash_lines(data)
    rows: list[tuple[str, str, int]] = []  # (date, description, signed cents)
    entries: list[dict[str, Any]] = []
    strata: list[str] = []
    for line in june:
        day = dt.date.fromisoformat(line["date"])
        if line["check"] is not None:
            day += dt.timedelta(days=rng.randint(1, 6))
            text = f"CHECK {line['check']}"
        elif line["cents"] > 0:
            if line["date"] == CLOSE_DATE and rng.random() < 0.5:
                continue  # deposit in transit: credited by the bank in July
            payer = line["memo"].split(" from ")[-1].split(" for ")[0]
            text = f"DEPOSIT {payer[:34]} {line['ref']}"
        elif line["ref"].startswith("PR-"):
            text = f"PAYROLL {line['ref']}"
        else:
            payee = line["memo"].split(" to ")[-1]
            text = f"ACH {payee[:38]} {line['ref']}"
        if day > fdb.CLOSE_END:
            strata.append("timing_differences")
            continue  # not presented by 30 June: a timing difference, no entry
        rows.append((day.isoformat(), text, line["cents"]))
    fee = rng.randint(15_00, 75_00)
    rows.append((CLOSE_DATE, "SERVICE CHARGE MONTHLY ACCOUNT FEE", -fee))
    entries.append(_entry("Bank service charge June", fdb.BANK_FEES, fdb.CASH, fee))
    if rng.random() < 0.7:
        interest = rng.randint(20_00, 450_00)
        rows.append((CLOSE_DATE, "INTEREST CREDIT", interest))
        entries.append(_entry("Bank interest June", fdb.CASH, fdb.INTEREST_INCOME, interest))
    receipts = [r for r in rows if r[1].startswith("DEPOSIT")]
    if receipts and rng.random() < 0.4:
        bounced = rng.choice(receipts)
        day = min(dt.date.fromisoformat(bounced[0]) + dt.timedelta(days=3), fdb.CLOSE_END)
        rows.append((day.isoformat(), f"RETURNED ITEM NSF {bounced[1][8:]}", -bounced[2]))
        entries.append(_entry("Customer payment returned unpaid", fdb.AR, fdb.CASH, bounced[2]))
        strata.append("returned_payment")
    rows.sort(key=lambda r: r[0])
    balance = opening
    out = [
        "FIRST HARBOR BANK: ACCOUNT STATEMENT",
        "Account: operating account ending 4821",
        f"Period: {fdb.CLOSE_START.isoformat()} to {CLOSE_DATE}",
        f"Opening balance: {dollars(opening)}",
        "",
        f"{'Date':<12}{'Description':<58}{'Withdrawal':>14}{'Deposit':>14}{'Balance':>16}",
    ]
    for day, text, cents in rows:
        balance += cents
        withdrawal = dollars(-cents) if cents < 0 else ""
        deposit = dollars(cents) if cents > 0 else ""
        out.append(f"{day:<12}{text[:56]:<58}{withdrawal:>14}{deposit:>14}{dollars(balance):>16}")
    out += ["", f"Closing balance: {dollars(balance)}", ""]
    return "\n".join(out), entries, sorted(set(strata))


def opening_balances(data: dict[str, Any]) -> dict[str, int]:
    """Net debit-minus-credit per account of everything booked before the close entries."""
    totals: dict[str, int] = defaultdict(int)
    for _lid, _eid, account, _cc, debit, credit in data["tables"]["journal_lines"]:
        totals[account] += debit - credit
    return dict(sorted(totals.items()))


def scenario(rng: random.Random, data: dict[str, Any]) -> dict[str, Any]:
    """Files, reference entries and strata of one item."""
    customer = company(rng)
    invoice_files, accruals, strata = _invoices(rng, data, customer)
    payroll_text, payroll_entry = _payroll(rng)
    prepaid_text, amortisation = _prepaid(data)
    bank_text, bank_entries, bank_strata = _bank(rng, data)
    files = {
        **dict(sorted(invoice_files.items())),
        "payroll_summary.txt": payroll_text,
        "prepaid_schedule.txt": prepaid_text,
        "bank_statement.txt": bank_text,
    }
    reference = [*accruals, payroll_entry, *amortisation, *bank_entries]
    strata = [f"accruals_{len(accruals)}", *strata, *bank_strata]
    return {"company": customer, "files": files, "entries": reference, "strata": strata}
