"""The 15 question templates of `query.nl2sql.v1`, each with its reference SQL.

A template picks its parameters (a vendor, a month, a threshold) from the generated database,
so every question has a non-empty answer and the wording never depends on hidden state. The
reference result is not written here: it is whatever the reference SQL returns in the sandbox.
"""

from __future__ import annotations

import calendar
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Tables = dict[str, list[list[Any]]]


@dataclass(frozen=True)
class Question:
    key: str
    text: str
    sql: str
    ordered: bool  # True only when the question itself asks for an order
    strata: tuple[str, ...]


def _lit(value: str) -> str:
    """A SQL string literal; our parameters are generated names, quoted anyway."""
    return "'" + value.replace("'", "''") + "'"


def _month(rng: random.Random, first: int = 1) -> tuple[int, str, str, str]:
    month = rng.randint(first, 6)
    last = calendar.monthrange(2026, month)[1]
    return month, calendar.month_name[month], f"2026-{month:02d}-01", f"2026-{month:02d}-{last}"


def q_customers_in_country(rng: random.Random, t: Tables) -> Question:
    country = rng.choice(sorted({row[2] for row in t["customers"]}))
    return Question(
        "customers_in_country",
        f"How many customers are based in the country with code '{country}'?",
        f"SELECT COUNT(*) FROM customers WHERE country = {_lit(country)}",
        False,
        ("easy", "filter"),
    )


def q_invoiced_in_month(rng: random.Random, t: Tables) -> Question:
    _m, name, first, last = _month(rng)
    return Question(
        "invoiced_in_month",
        f"What is the total amount of all AR invoices dated in {name} 2026?",
        "SELECT SUM(amount_cents) FROM ar_invoices "
        f"WHERE invoice_date BETWEEN {_lit(first)} AND {_lit(last)}",
        False,
        ("easy", "date_range"),
    )


def q_accounts_of_type(rng: random.Random, t: Tables) -> Question:
    kind = rng.choice(("expense", "asset", "revenue", "liability"))
    return Question(
        "accounts_of_type",
        f"List the account code and name of every {kind} account, ordered by account code.",
        "SELECT account_code, name FROM accounts "
        f"WHERE account_type = {_lit(kind)} ORDER BY account_code",
        True,
        ("easy", "ordered"),
    )


def q_unpaid_bills(rng: random.Random, t: Tables) -> Question:
    return Question(
        "unpaid_bills",
        "How many AP bills are still unpaid?",
        "SELECT COUNT(*) FROM ap_bills WHERE status = 'open'",
        False,
        ("easy", "filter"),
    )


def q_largest_receipt(rng: random.Random, t: Tables) -> Question:
    # From February: January invoices are rarely paid within January.
    _m, name, first, last = _month(rng, first=2)
    return Question(
        "largest_receipt",
        f"What was the largest single customer receipt received in {name} 2026?",
        "SELECT MAX(amount_cents) FROM ar_receipts "
        f"WHERE receipt_date BETWEEN {_lit(first)} AND {_lit(last)}",
        False,
        ("easy", "date_range"),
    )


def q_vendor_billed(rng: random.Random, t: Tables) -> Question:
    billed = sorted({row[1] for row in t["ap_bills"]})
    vendor_id = rng.choice(billed)
    name = next(row[1] for row in t["vendors"] if row[0] == vendor_id)
    return Question(
        "vendor_billed",
        f"What is the total amount billed by the vendor '{name}' across all its AP bills?",
        "SELECT SUM(b.amount_cents) FROM ap_bills b JOIN vendors v ON v.vendor_id = b.vendor_id "
        f"WHERE v.name = {_lit(name)}",
        False,
        ("medium", "join"),
    )


def q_vendors_many_bills(rng: random.Random, t: Tables) -> Question:
    counts = sorted(Counter(row[1] for row in t["ap_bills"]).values(), reverse=True)
    threshold = counts[rng.randint(3, 7)]
    return Question(
        "vendors_many_bills",
        f"Which vendors have more than {threshold} AP bills? "
        "Give each vendor's name and its number of bills.",
        "SELECT v.name, COUNT(*) FROM ap_bills b JOIN vendors v ON v.vendor_id = b.vendor_id "
        f"GROUP BY v.vendor_id, v.name HAVING COUNT(*) > {threshold}",
        False,
        ("medium", "having"),
    )


def q_customer_range(rng: random.Random, t: Tables) -> Question:
    first, last = (
        ("2026-01-01", "2026-03-31") if rng.random() < 0.5 else ("2026-04-01", "2026-06-30")
    )
    active = sorted({row[1] for row in t["ar_invoices"] if first <= row[3] <= last})
    customer_id = rng.choice(active)
    name = next(row[1] for row in t["customers"] if row[0] == customer_id)
    return Question(
        "customer_range",
        f"How much was invoiced to the customer '{name}' on invoices dated from {first} to "
        f"{last} inclusive?",
        "SELECT SUM(i.amount_cents) FROM ar_invoices i "
        "JOIN customers c ON c.customer_id = i.customer_id "
        f"WHERE c.name = {_lit(name)} AND i.invoice_date BETWEEN {_lit(first)} AND {_lit(last)}",
        False,
        ("medium", "join", "date_range"),
    )


def q_payments_by_method(rng: random.Random, t: Tables) -> Question:
    return Question(
        "payments_by_method",
        "For each AP payment method, how many payments were made and what was their total "
        "amount? Give the method, the count and the total.",
        "SELECT method, COUNT(*), SUM(amount_cents) FROM ap_payments GROUP BY method",
        False,
        ("medium", "grouping"),
    )


def q_receipts_by_month(rng: random.Random, t: Tables) -> Question:
    return Question(
        "receipts_by_month",
        "For each month of 2026 in which customers paid, what was the total received from "
        "customers? Give the month as YYYY-MM and the total, ordered by month.",
        "SELECT substr(receipt_date, 1, 7) AS month, SUM(amount_cents) FROM ar_receipts "
        "GROUP BY month ORDER BY month",
        True,
        ("medium", "grouping", "ordered"),
    )


def q_top_vendors_paid(rng: random.Random, t: Tables) -> Question:
    return Question(
        "top_vendors_paid",
        "Which 5 vendors were paid the most in total through AP payments? Give the vendor name "
        "and the total paid, ordered from the highest total to the lowest.",
        "SELECT v.name, SUM(p.amount_cents) AS paid FROM ap_payments p "
        "JOIN ap_bills b ON b.bill_id = p.bill_id JOIN vendors v ON v.vendor_id = b.vendor_id "
        "GROUP BY v.vendor_id, v.name ORDER BY paid DESC LIMIT 5",
        True,
        ("hard", "top_n", "ordered"),
    )


def q_customers_outstanding(rng: random.Random, t: Tables) -> Question:
    dollars = rng.choice((20_000, 25_000, 30_000))
    return Question(
        "customers_outstanding",
        "Which customers have an outstanding balance (total invoiced minus total received) "
        f"of more than {dollars:,} dollars? Give the customer name and the outstanding amount.",
        "SELECT c.name, inv.total - COALESCE(rec.total, 0) AS outstanding FROM customers c "
        "JOIN (SELECT customer_id, SUM(amount_cents) AS total FROM ar_invoices "
        "GROUP BY customer_id) inv ON inv.customer_id = c.customer_id "
        "LEFT JOIN (SELECT i.customer_id, SUM(r.amount_cents) AS total FROM ar_receipts r "
        "JOIN ar_invoices i ON i.invoice_id = r.invoice_id GROUP BY i.customer_id) rec "
        "ON rec.customer_id = c.customer_id "
        f"WHERE inv.total - COALESCE(rec.total, 0) > {dollars * 100}",
        False,
        ("hard", "subquery", "having"),
    )


def q_asset_balances(rng: random.Random, t: Tables) -> Question:
    _m, name, _first, last = _month(rng)
    return Question(
        "asset_balances",
        f"What was the balance (total debits minus total credits) of each asset account at the "
        f"end of {name} 2026, counting every journal line of entries dated on or before {last}? "
        "Give the account code and the balance, ordered by account code; include only asset "
        "accounts that have journal lines.",
        "SELECT l.account_code, SUM(l.debit_cents) - SUM(l.credit_cents) FROM journal_lines l "
        "JOIN journal_entries e ON e.entry_id = l.entry_id "
        "JOIN accounts a ON a.account_code = l.account_code "
        f"WHERE a.account_type = 'asset' AND e.entry_date <= {_lit(last)} "
        "GROUP BY l.account_code ORDER BY l.account_code",
        True,
        ("hard", "join", "date_range", "ordered"),
    )


def q_top_customer_each_month(rng: random.Random, t: Tables) -> Question:
    return Question(
        "top_customer_each_month",
        "For each month of 2026, which customer had the highest total invoiced amount in that "
        "month? Give the month as YYYY-MM, the customer name and that total, ordered by month.",
        "SELECT month, name, total FROM (SELECT substr(i.invoice_date, 1, 7) AS month, c.name, "
        "SUM(i.amount_cents) AS total, RANK() OVER (PARTITION BY substr(i.invoice_date, 1, 7) "
        "ORDER BY SUM(i.amount_cents) DESC) AS rnk FROM ar_invoices i "
        "JOIN customers c ON c.customer_id = i.customer_id GROUP BY month, c.customer_id) "
        "WHERE rnk = 1 ORDER BY month",
        True,
        ("hard", "window", "ordered"),
    )


def q_late_payers(rng: random.Random, t: Tables) -> Question:
    return Question(
        "late_paid_vendors",
        "Which 5 vendors had the most AP bills paid after the bill's due date? Give the vendor "
        "name and the number of such bills, ordered by that number from highest to lowest and "
        "then by vendor name A to Z.",
        "SELECT v.name, COUNT(*) AS late FROM ap_payments p "
        "JOIN ap_bills b ON b.bill_id = p.bill_id JOIN vendors v ON v.vendor_id = b.vendor_id "
        "WHERE p.payment_date > b.due_date GROUP BY v.vendor_id, v.name "
        "ORDER BY late DESC, v.name LIMIT 5",
        True,
        ("hard", "top_n", "ordered"),
    )


TEMPLATES: tuple[Callable[[random.Random, Tables], Question], ...] = (
    q_customers_in_country,
    q_invoiced_in_month,
    q_accounts_of_type,
    q_unpaid_bills,
    q_largest_receipt,
    q_vendor_billed,
    q_vendors_many_bills,
    q_customer_range,
    q_payments_by_method,
    q_receipts_by_month,
    q_top_vendors_paid,
    q_customers_outstanding,
    q_asset_balances,
    q_top_customer_each_month,
    q_late_payers,
)
