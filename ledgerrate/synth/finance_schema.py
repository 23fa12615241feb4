"""The finance database's fixed parts: calendar, chart of accounts, dimensions and DDL.

Kept apart from the row generator so the schema a model reads (and its hash) is one short file.
"""

from __future__ import annotations

import datetime as dt

YEAR = 2026
FIRST_DAY = dt.date(YEAR, 1, 1)
CLOSE_PERIOD = "2026-06"
CLOSE_START = dt.date(YEAR, 6, 1)
CLOSE_END = dt.date(YEAR, 6, 30)

CASH, AR, PREPAID, EQUIPMENT = "1000", "1100", "1300", "1500"
AP, ACCRUED, ACCRUED_PAYROLL = "2000", "2100", "2200"
CAPITAL, RETAINED = "3000", "3100"
SALARIES, BANK_FEES, INTEREST_INCOME = "6000", "6500", "7000"

# (code, name, type). Normal balance follows from the type.
ACCOUNTS: tuple[tuple[str, str, str], ...] = (
    (CASH, "Cash - operating account", "asset"),
    (AR, "Accounts receivable", "asset"),
    (PREPAID, "Prepaid expenses", "asset"),
    (EQUIPMENT, "Equipment", "asset"),
    (AP, "Accounts payable", "liability"),
    (ACCRUED, "Accrued liabilities", "liability"),
    (ACCRUED_PAYROLL, "Accrued payroll", "liability"),
    (CAPITAL, "Share capital", "equity"),
    (RETAINED, "Retained earnings", "equity"),
    ("4000", "Product revenue", "revenue"),
    ("4100", "Services revenue", "revenue"),
    (SALARIES, "Salaries and wages", "expense"),
    ("6100", "Professional fees", "expense"),
    ("6200", "Rent", "expense"),
    ("6300", "Software subscriptions", "expense"),
    ("6400", "Insurance", "expense"),
    (BANK_FEES, "Bank fees", "expense"),
    ("6600", "Utilities", "expense"),
    ("6700", "Travel", "expense"),
    ("6800", "Office supplies", "expense"),
    ("6900", "Marketing", "expense"),
    (INTEREST_INCOME, "Interest income", "revenue"),
)
VENDOR_EXPENSE_ACCOUNTS = ("6100", "6200", "6300", "6600", "6700", "6800", "6900")
COST_CENTRES = (
    ("CC10", "Finance"),
    ("CC20", "Sales"),
    ("CC30", "Operations"),
    ("CC40", "Engineering"),
    ("CC50", "Administration"),
)
COUNTRIES = ("US", "US", "US", "CA", "GB", "DE", "NL", "FR")

DDL = """\
CREATE TABLE accounts (
  account_code TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  account_type TEXT NOT NULL CHECK (account_type IN
    ('asset', 'liability', 'equity', 'revenue', 'expense')),
  normal_balance TEXT NOT NULL CHECK (normal_balance IN ('debit', 'credit'))
);
CREATE TABLE cost_centres (
  cost_centre_code TEXT PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE periods (
  period TEXT PRIMARY KEY,            -- 'YYYY-MM'
  start_date TEXT NOT NULL,           -- ISO date
  end_date TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('closed', 'open'))
);
CREATE TABLE vendors (
  vendor_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  country TEXT NOT NULL,              -- ISO 3166 alpha-2
  payment_terms_days INTEGER NOT NULL,
  default_expense_account TEXT NOT NULL REFERENCES accounts(account_code)
);
CREATE TABLE customers (
  customer_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  country TEXT NOT NULL,
  credit_limit_cents INTEGER NOT NULL
);
CREATE TABLE journal_entries (
  entry_id INTEGER PRIMARY KEY,
  entry_date TEXT NOT NULL,
  period TEXT NOT NULL REFERENCES periods(period),
  source TEXT NOT NULL CHECK (source IN ('OPEN', 'AP', 'AR', 'PAY', 'GL')),
  reference TEXT NOT NULL,            -- bill, payment, receipt or payroll reference
  memo TEXT NOT NULL
);
CREATE TABLE journal_lines (
  line_id INTEGER PRIMARY KEY,
  entry_id INTEGER NOT NULL REFERENCES journal_entries(entry_id),
  account_code TEXT NOT NULL REFERENCES accounts(account_code),
  cost_centre_code TEXT REFERENCES cost_centres(cost_centre_code),
  debit_cents INTEGER NOT NULL DEFAULT 0,
  credit_cents INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE ap_bills (
  bill_id INTEGER PRIMARY KEY,
  vendor_id INTEGER NOT NULL REFERENCES vendors(vendor_id),
  invoice_number TEXT NOT NULL,       -- the vendor's own invoice number
  bill_date TEXT NOT NULL,
  due_date TEXT NOT NULL,
  amount_cents INTEGER NOT NULL,
  expense_account TEXT NOT NULL REFERENCES accounts(account_code),
  cost_centre_code TEXT NOT NULL REFERENCES cost_centres(cost_centre_code),
  status TEXT NOT NULL CHECK (status IN ('open', 'paid'))
);
CREATE TABLE ap_payments (
  payment_id INTEGER PRIMARY KEY,
  bill_id INTEGER NOT NULL REFERENCES ap_bills(bill_id),
  payment_date TEXT NOT NULL,
  amount_cents INTEGER NOT NULL,
  method TEXT NOT NULL CHECK (method IN ('ACH', 'CHECK')),
  check_number INTEGER,               -- NULL for ACH; the bank shows checks by this number
  reference TEXT NOT NULL             -- 'PMT-nnnn', also the journal entry reference
);
CREATE TABLE ar_invoices (
  invoice_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
  invoice_number TEXT NOT NULL UNIQUE,
  invoice_date TEXT NOT NULL,
  due_date TEXT NOT NULL,
  amount_cents INTEGER NOT NULL,
  revenue_account TEXT NOT NULL REFERENCES accounts(account_code),
  status TEXT NOT NULL CHECK (status IN ('open', 'paid'))
);
CREATE TABLE ar_receipts (
  receipt_id INTEGER PRIMARY KEY,
  invoice_id INTEGER NOT NULL REFERENCES ar_invoices(invoice_id),
  receipt_date TEXT NOT NULL,
  amount_cents INTEGER NOT NULL,
  reference TEXT NOT NULL             -- 'RCT-nnnn'
);
"""

TABLE_ORDER = (
    "accounts",
    "cost_centres",
    "periods",
    "vendors",
    "customers",
    "journal_entries",
    "journal_lines",
    "ap_bills",
    "ap_payments",
    "ar_invoices",
    "ar_receipts",
)
