"""The 15 question templates of `query.nl2sql.v2`: v1's questions, each with enough variants
that a dataset of up to 50 items never asks the same question twice.

v1 asks template `i % 15` for item `i`, and six of its templates take no parameter at all, so a
dataset larger than 15 repeated questions word for word (and items were no longer independent).
Here every template draws from at least seven variants; `draw` refuses a repeat and draws
again. Templates whose v1 form already had that many variants are v1's, imported.
"""

from __future__ import annotations

import calendar
import random
from collections import Counter
from collections.abc import Callable

from ledgerrate.workloads.query_nl2sql.questions import (
    Question,
    Tables,
    _lit,
    q_customer_range,
    q_vendor_billed,
)

__all__ = ["TEMPLATES", "Question", "Tables", "month_bounds"]

_YEAR = 2026
_LAST_MONTH = 6  # the database covers January to June 2026


def month_bounds(first: int, last: int | None = None) -> tuple[str, str]:
    """ISO first day of month `first` and last day of month `last` (default: the same)."""
    last = first if last is None else last
    end = calendar.monthrange(_YEAR, last)[1]
    return f"{_YEAR}-{first:02d}-01", f"{_YEAR}-{last:02d}-{end:02d}"


def _name(month: int) -> str:
    return f"{calendar.month_name[month]} {_YEAR}"


def _months(rng: random.Random, first: int = 1, least: int = 0) -> tuple[int, int]:
    """Two months first ≤ a ≤ b ≤ June with b − a ≥ least."""
    a = rng.randint(first, _LAST_MONTH - least)
    return a, rng.randint(a + least, _LAST_MONTH)


def q_parties_in_country(rng: random.Random, t: Tables) -> Question:
    table = rng.choice(("customers", "vendors"))
    country = rng.choice(sorted({row[2] for row in t[table]}))
    return Question(
        "parties_in_country",
        f"How many {table} are based in the country with code '{country}'?",
        f"SELECT COUNT(*) FROM {table} WHERE country = {_lit(country)}",
        False,
        ("easy", "filter"),
    )


def q_invoiced_in_months(rng: random.Random, t: Tables) -> Question:
    a, b = _months(rng)
    first, last = month_bounds(a, b)
    when = f"in {_name(a)}" if a == b else f"from {_name(a)} to {_name(b)} inclusive"
    return Question(
        "invoiced_in_months",
        f"What is the total amount of all AR invoices dated {when}?",
        "SELECT SUM(amount_cents) FROM ar_invoices "
        f"WHERE invoice_date BETWEEN {_lit(first)} AND {_lit(last)}",
        False,
        ("easy", "date_range"),
    )


def q_accounts_of_type(rng: random.Random, t: Tables) -> Question:
    kind = rng.choice(("expense", "asset", "revenue", "liability", "equity"))
    column, label = rng.choice((("account_code", "account code"), ("name", "account name")))
    return Question(
        "accounts_of_type",
        f"List the account code and name of every {kind} account, ordered by {label}.",
        "SELECT account_code, name FROM accounts "
        f"WHERE account_type = {_lit(kind)} ORDER BY {column}",
        True,
        ("easy", "ordered"),
    )


def q_unpaid_bills(rng: random.Random, t: Tables) -> Question:
    month = rng.randint(5, 8)
    day = rng.choice((15, calendar.monthrange(_YEAR, month)[1]))
    cutoff = f"{_YEAR}-{month:02d}-{day:02d}"
    return Question(
        "unpaid_bills",
        f"How many AP bills with a due date on or before {cutoff} are still unpaid?",
        f"SELECT COUNT(*) FROM ap_bills WHERE status = 'open' AND due_date <= {_lit(cutoff)}",
        False,
        ("easy", "filter"),
    )


def q_extreme_receipt(rng: random.Random, t: Tables) -> Question:
    # From February: January invoices are rarely paid within January.
    month = rng.randint(2, _LAST_MONTH)
    word, function = rng.choice((("largest", "MAX"), ("smallest", "MIN")))
    first, last = month_bounds(month)
    return Question(
        "extreme_receipt",
        f"What was the {word} single customer receipt received in {_name(month)}?",
        f"SELECT {function}(amount_cents) FROM ar_receipts "
        f"WHERE receipt_date BETWEEN {_lit(first)} AND {_lit(last)}",
        False,
        ("easy", "date_range"),
    )


def q_parties_many_documents(rng: random.Random, t: Tables) -> Question:
    party, table, key, documents = rng.choice(
        (
            ("vendors", "ap_bills", "vendor_id", "AP bills"),
            ("customers", "ar_invoices", "customer_id", "AR invoices"),
        )
    )
    column = 1  # vendor_id of ap_bills, customer_id of ar_invoices
    counts = sorted(Counter(row[column] for row in t[table]).values(), reverse=True)
    threshold = counts[rng.randint(2, 9)]
    return Question(
        "parties_many_documents",
        f"Which {party} have more than {threshold} {documents}? "
        f"Give each {party[:-1]}'s name and its number of {documents}.",
        f"SELECT p.name, COUNT(*) FROM {table} d JOIN {party} p ON p.{key} = d.{key} "
        f"GROUP BY p.{key}, p.name HAVING COUNT(*) > {threshold}",
        False,
        ("medium", "having"),
    )


def q_payments_by_method(rng: random.Random, t: Tables) -> Question:
    month = rng.randint(0, _LAST_MONTH)  # 0: the whole half-year
    if month:
        first, last = month_bounds(month)
        when, where = (
            f" in {_name(month)}",
            (f" WHERE payment_date BETWEEN {_lit(first)} AND {_lit(last)}"),
        )
    else:
        when, where = "", ""
    return Question(
        "payments_by_method",
        f"For each AP payment method, how many payments were made{when} and what was their "
        "total amount? Give the method, the count and the total.",
        f"SELECT method, COUNT(*), SUM(amount_cents) FROM ap_payments{where} GROUP BY method",
        False,
        ("medium", "grouping"),
    )


def q_cash_by_month(rng: random.Random, t: Tables) -> Question:
    text, table, column = rng.choice(
        (
            (
                "in which customers paid, what was the total received from customers",
                "ar_receipts",
                "receipt_date",
            ),
            (
                "in which vendors were paid, what was the total paid to vendors",
                "ap_payments",
                "payment_date",
            ),
        )
    )
    a, b = rng.choice(((1, 6), (1, 3), (4, 6), (2, 5)))
    first, last = month_bounds(a, b)
    return Question(
        "cash_by_month",
        f"For each month from {_name(a)} to {_name(b)} {text}? Give the month as YYYY-MM and "
        "the total, ordered by month.",
        f"SELECT substr({column}, 1, 7) AS month, SUM(amount_cents) FROM {table} "
        f"WHERE {column} BETWEEN {_lit(first)} AND {_lit(last)} GROUP BY month ORDER BY month",
        True,
        ("medium", "grouping", "ordered"),
    )


def q_top_paid(rng: random.Random, t: Tables) -> Question:
    top = rng.randint(3, 8)
    if rng.random() < 0.5:
        text = (
            f"Which {top} vendors were paid the most in total through AP payments? Give the "
            "vendor name and the total paid"
        )
        sql = (
            "SELECT v.name, SUM(p.amount_cents) AS paid FROM ap_payments p "
            "JOIN ap_bills b ON b.bill_id = p.bill_id JOIN vendors v ON v.vendor_id = b.vendor_id "
            f"GROUP BY v.vendor_id, v.name ORDER BY paid DESC LIMIT {top}"
        )
    else:
        text = (
            f"Which {top} customers paid the most in total through AR receipts? Give the "
            "customer name and the total received"
        )
        sql = (
            "SELECT c.name, SUM(r.amount_cents) AS paid FROM ar_receipts r "
            "JOIN ar_invoices i ON i.invoice_id = r.invoice_id "
            "JOIN customers c ON c.customer_id = i.customer_id "
            f"GROUP BY c.customer_id, c.name ORDER BY paid DESC LIMIT {top}"
        )
    return Question(
        "top_paid",
        text + ", ordered from the highest total to the lowest.",
        sql,
        True,
        ("hard", "top_n", "ordered"),
    )


def q_customers_outstanding(rng: random.Random, t: Tables) -> Question:
    dollars = rng.choice(range(10_000, 45_000, 5_000))
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


def q_account_balances(rng: random.Random, t: Tables) -> Question:
    kind = rng.choice(("asset", "liability"))
    month = rng.randint(1, _LAST_MONTH)
    _first, last = month_bounds(month)
    return Question(
        "account_balances",
        f"What was the balance (total debits minus total credits) of each {kind} account at "
        f"the end of {_name(month)}, counting every journal line of entries dated on or before "
        f"{last}? Give the account code and the balance, ordered by account code; include only "
        f"{kind} accounts that have journal lines.",
        "SELECT l.account_code, SUM(l.debit_cents) - SUM(l.credit_cents) FROM journal_lines l "
        "JOIN journal_entries e ON e.entry_id = l.entry_id "
        "JOIN accounts a ON a.account_code = l.account_code "
        f"WHERE a.account_type = {_lit(kind)} AND e.entry_date <= {_lit(last)} "
        "GROUP BY l.account_code ORDER BY l.account_code",
        True,
        ("hard", "join", "date_range", "ordered"),
    )


def q_top_customer_each_month(rng: random.Random, t: Tables) -> Question:
    a, b = _months(rng, least=1)
    first, last = month_bounds(a, b)
    return Question(
        "top_customer_each_month",
        f"For each month from {_name(a)} to {_name(b)}, which customer had the highest total "
        "invoiced amount in that month? Give the month as YYYY-MM, the customer name and that "
        "total, ordered by month.",
        "SELECT month, name, total FROM (SELECT substr(i.invoice_date, 1, 7) AS month, c.name, "
        "SUM(i.amount_cents) AS total, RANK() OVER (PARTITION BY substr(i.invoice_date, 1, 7) "
        "ORDER BY SUM(i.amount_cents) DESC) AS rnk FROM ar_invoices i "
        "JOIN customers c ON c.customer_id = i.customer_id "
        f"WHERE i.invoice_date BETWEEN {_lit(first)} AND {_lit(last)} "
        "GROUP BY month, c.customer_id) WHERE rnk = 1 ORDER BY month",
        True,
        ("hard", "window", "ordered"),
    )


def q_late_paid_vendors(rng: random.Random, t: Tables) -> Question:
    top = rng.randint(3, 7)
    days = rng.choice((0, 3, 7))
    late = "after the bill's due date" if days == 0 else f"more than {days} days after its due date"
    return Question(
        "late_paid_vendors",
        f"Which {top} vendors had the most AP bills paid {late}? Give the vendor name and the "
        "number of such bills, ordered by that number from highest to lowest and then by vendor "
        "name A to Z.",
        "SELECT v.name, COUNT(*) AS late FROM ap_payments p "
        "JOIN ap_bills b ON b.bill_id = p.bill_id JOIN vendors v ON v.vendor_id = b.vendor_id "
        f"WHERE julianday(p.payment_date) - julianday(b.due_date) > {days} "
        f"GROUP BY v.vendor_id, v.name ORDER BY late DESC, v.name LIMIT {top}",
        True,
        ("hard", "top_n", "ordered"),
    )


Template = Callable[[random.Random, Tables], Question]

# Same difficulty order as v1: five easy, five medium, five hard.
TEMPLATES: tuple[Template, ...] = (
    q_parties_in_country,
    q_invoiced_in_months,
    q_accounts_of_type,
    q_unpaid_bills,
    q_extreme_receipt,
    q_vendor_billed,
    q_parties_many_documents,
    q_customer_range,
    q_payments_by_method,
    q_cash_by_month,
    q_top_paid,
    q_customers_outstanding,
    q_account_balances,
    q_top_customer_each_month,
    q_late_paid_vendors,
)
