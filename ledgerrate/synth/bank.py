"""A synthetic month of bank transactions and the matching cash-account GL extract.

Twelve discrepancies are planted (missing entry, duplicate, amount mismatch, date drift) and
the rest of the data is noisy in ways that are *not* discrepancies, so that a solver which
flags every oddity reports false positives: posting lags inside the tolerance, bank fees booked
correctly, equal amounts to different payees, recurring equal payments to one payee, GL lines
without a reference, references typed differently, and cheques not yet cleared.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import random
from dataclasses import dataclass, replace
from decimal import Decimal

from ledgerrate.synth.common import company, money

TYPES = ("missing_entry", "duplicate", "amount_mismatch", "date_drift")
N_TRANSACTIONS = 200
N_DISCREPANCIES = 12
TOLERANCE_DAYS = 3  # a GL date within this many days of the bank date is a posting lag
NOISE = (
    "in-tolerance-date-lag",
    "bank-fees",
    "same-amount-different-payee",
    "recurring-same-amount",
    "blank-gl-reference",
    "reference-format-variation",
    "outstanding-cheque",
)

_EXPENSES = ("6100 Office supplies", "6200 Travel", "6300 Software", "6400 Utilities")
_FEES = ("SERVICE CHARGE", "WIRE FEE", "MONTHLY ACCOUNT FEE", "CARD PROCESSING FEE")


@dataclass(frozen=True)
class BankTx:
    date: dt.date
    description: str
    reference: str
    amount: Decimal
    payee: str  # who the GL memo names; not a bank column
    account: str  # the GL account it should be booked against
    kind: str


@dataclass(frozen=True)
class GlEntry:
    date: dt.date
    account: str
    memo: str
    reference: str
    amount: Decimal
    bank_ref: str | None  # the bank transaction it books (None: not in the bank feed)
    order: float  # posting order; ids are assigned by (date, order)


def normalise_ref(value: object) -> str:
    """References compare case-insensitively, ignoring spaces and hyphens (as the prompt says)."""
    if not isinstance(value, str):
        return ""
    return value.upper().replace(" ", "").replace("-", "")


def _ref(rng: random.Random, prefix: str, used: set[str]) -> str:
    while True:
        ref = f"{prefix}{rng.randint(10_000_000, 99_999_999)}"
        if ref not in used:
            used.add(ref)
            return ref


def _transactions(rng: random.Random, start: dt.date, days: int) -> tuple[list[BankTx], dict]:
    """200 bank transactions with the noise groups marked in the returned index."""
    used: set[str] = set()
    vendors = [company(rng) for _ in range(30)]
    customers = [company(rng) for _ in range(15)]
    day = lambda: start + dt.timedelta(days=rng.randint(0, days - 1))  # noqa: E731
    txs: list[BankTx] = []
    groups: dict[str, list[str]] = {name: [] for name in NOISE}

    def add(tx: BankTx, group: str | None = None) -> None:
        txs.append(tx)
        if group:
            groups[group].append(tx.reference)

    for _ in range(rng.randint(4, 7)):
        fee = rng.choice(_FEES)
        add(
            BankTx(
                day(),
                fee,
                _ref(rng, "FEE", used),
                -money(rng, 5, 45),
                "Bank",
                "6900 Bank charges",
                "fee",
            ),
            "bank-fees",
        )
    for payee in rng.sample(vendors, 2):
        amount, first = money(rng, 200, 900), rng.randint(0, 6)
        for week in range(4):
            date = start + dt.timedelta(days=first + 7 * week)
            add(
                BankTx(
                    date,
                    f"ACH DEBIT {payee.upper()}",
                    _ref(rng, "ACH", used),
                    -amount,
                    payee,
                    "2000 Accounts payable",
                    "recurring",
                ),
                "recurring-same-amount",
            )
    for _ in range(rng.randint(2, 3)):
        amount = money(rng, 300, 6_000)
        for payee in rng.sample(vendors, 2):
            add(
                BankTx(
                    day(),
                    f"ACH DEBIT {payee.upper()}",
                    _ref(rng, "ACH", used),
                    -amount,
                    payee,
                    "2000 Accounts payable",
                    "pair",
                ),
                "same-amount-different-payee",
            )
    while len(txs) < N_TRANSACTIONS:
        roll = rng.random()
        if roll < 0.3:
            payee = rng.choice(customers)
            tx = BankTx(
                day(),
                rng.choice(("INCOMING WIRE ", "ACH CREDIT ")) + payee.upper(),
                _ref(rng, "FT", used),
                money(rng, 400, 30_000),
                payee,
                "1200 Accounts receivable",
                "receipt",
            )
        elif roll < 0.75:
            payee = rng.choice(vendors)
            tx = BankTx(
                day(),
                f"ACH DEBIT {payee.upper()}",
                _ref(rng, "ACH", used),
                -money(rng, 120, 18_000),
                payee,
                "2000 Accounts payable",
                "payment",
            )
        else:
            payee = rng.choice(vendors)
            tx = BankTx(
                day(),
                f"CARD PURCHASE {payee.upper()}",
                _ref(rng, "CRD", used),
                -money(rng, 8, 900),
                payee,
                rng.choice(_EXPENSES),
                "card",
            )
        add(tx)
    txs.sort(key=lambda t: (t.date, t.reference))
    return txs, {"groups": groups, "used": used}


def _split(rng: random.Random) -> dict[str, int]:
    """12 discrepancies, at least two of each type, the remainder spread at random."""
    counts = dict.fromkeys(TYPES, 2)
    for _ in range(N_DISCREPANCIES - 2 * len(TYPES)):
        counts[rng.choice(TYPES)] += 1
    return counts


def _wrong_amount(rng: random.Random, amount: Decimal) -> Decimal:
    digits = f"{abs(amount):.2f}".replace(".", "")
    pairs = [i for i in range(len(digits) - 1) if digits[i] != digits[i + 1]]
    if pairs and rng.random() < 0.6:  # transposed digits, the classic keying error
        i = rng.choice(pairs)
        swapped = digits[:i] + digits[i + 1] + digits[i] + digits[i + 2 :]
        wrong = Decimal(swapped) / 100
    else:
        wrong = abs(amount) + rng.choice(
            (Decimal("100"), Decimal("10"), Decimal("-1"), Decimal("0.90"))
        )
    return (wrong if amount > 0 else -wrong).quantize(Decimal("0.01"))


def _fmt_variant(rng: random.Random, ref: str) -> str:
    return rng.choice((ref.lower(), f"{ref[:3]}-{ref[3:]}", f"{ref[:3]} {ref[3:]}"))


def _memo(tx: BankTx, rng: random.Random) -> str:
    if tx.kind == "fee":
        return f"Bank charges - {tx.description.title()}"
    if tx.kind == "receipt":
        return f"Receipt {tx.payee} - INV {rng.randint(1000, 9999)}"
    if tx.kind == "card":
        return f"{tx.payee} - card"
    return f"Payment {tx.payee} - bill {rng.randint(1000, 9999)}"


@dataclass(frozen=True)
class Month:
    bank: list[BankTx]
    gl: list[tuple[str, GlEntry]]  # (entry id, entry) in id order
    discrepancies: list[dict[str, str | None]]
    noise: dict[str, int]


def make_month(rng: random.Random, month_start: dt.date) -> Month:
    days = ((month_start.replace(day=28) + dt.timedelta(days=4)).replace(day=1) - month_start).days
    bank, index = _transactions(rng, month_start, days)
    noise_refs = {ref for refs in index["groups"].values() for ref in refs}
    ordinary = [t for t in bank if t.reference not in noise_refs]
    split = _split(rng)
    planted = rng.sample(ordinary, N_DISCREPANCIES)
    plan = dict(
        zip(
            (t.reference for t in planted),
            [k for k, c in split.items() for _ in range(c)],
            strict=True,
        )
    )
    # A GL line without a reference must still be matchable: only amounts unique in the feed.
    amounts = [t.amount for t in bank]
    unique = [
        t.reference for t in ordinary if t.reference not in plan and amounts.count(t.amount) == 1
    ]
    blank = set(rng.sample(unique, rng.randint(8, 12)))
    variant = set(
        rng.sample([t.reference for t in bank if t.reference not in blank], rng.randint(10, 18))
    )

    entries: list[GlEntry] = []
    lags = 0
    for seq, tx in enumerate(bank):
        kind = plan.get(tx.reference)
        if kind == "missing_entry":
            continue
        # Payments are booked when issued, before they clear; receipts when the bank shows them.
        lag = rng.choice((0, 0, 0, 1, 1, 2, 3, -1)) * (-1 if tx.amount > 0 else 1)
        lags += lag != 0
        ref = (
            ""
            if tx.reference in blank
            else (_fmt_variant(rng, tx.reference) if tx.reference in variant else tx.reference)
        )
        entry = GlEntry(
            tx.date - dt.timedelta(days=lag),
            tx.account,
            _memo(tx, rng),
            ref,
            tx.amount,
            tx.reference,
            seq,
        )
        if kind == "amount_mismatch":
            entry = replace(entry, amount=_wrong_amount(rng, tx.amount))
        if kind == "date_drift":
            drift = rng.randint(TOLERANCE_DAYS + 3, 18) * rng.choice((-1, 1))
            entry = replace(entry, date=tx.date + dt.timedelta(days=drift))
        entries.append(entry)
        if kind == "duplicate":
            # the second booking stays inside the tolerance, so its only fault is being a copy
            offsets = [k for k in range(3) if abs(lag - k) <= TOLERANCE_DAYS]
            later = entry.date + dt.timedelta(days=rng.choice(offsets))
            entries.append(replace(entry, date=later, order=seq + 0.5 + len(bank)))
    last = month_start + dt.timedelta(days=days - 1)
    cheques = rng.randint(1, 2)
    for n in range(cheques):
        payee = company(rng)
        date = last - dt.timedelta(days=rng.randint(0, TOLERANCE_DAYS - 1))
        ref = f"CHQ {rng.randint(100_000, 999_999)}"
        entries.append(
            GlEntry(
                date,
                "2000 Accounts payable",
                f"Cheque to {payee}",
                ref,
                -money(rng, 150, 5_000),
                None,
                10_000 + n,
            )
        )

    ordered = sorted(entries, key=lambda e: (e.date, e.order))
    first_id = rng.randint(10_000, 80_000)
    gl = [(f"GL-{first_id + i}", e) for i, e in enumerate(ordered)]
    discrepancies: list[dict[str, str | None]] = []
    for ref, kind in plan.items():
        booked = [eid for eid, e in gl if e.bank_ref == ref]
        gl_entry = None if kind == "missing_entry" else booked[-1]
        discrepancies.append({"type": kind, "bank_ref": ref, "gl_entry": gl_entry})
    noise = {name: len(refs) for name, refs in index["groups"].items() if refs}
    noise.update(
        {
            "in-tolerance-date-lag": lags,
            "blank-gl-reference": len(blank),
            "reference-format-variation": len(variant),
            "outstanding-cheque": cheques,
        }
    )
    return Month(bank, gl, sorted(discrepancies, key=lambda d: str(d["bank_ref"])), noise)


def bank_csv(month: Month) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("date", "description", "reference", "amount"))
    for t in month.bank:
        writer.writerow((t.date.isoformat(), t.description, t.reference, f"{t.amount:.2f}"))
    return out.getvalue()


def gl_csv(month: Month) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("entry_id", "date", "account", "memo", "reference", "amount"))
    for eid, e in month.gl:
        writer.writerow(
            (eid, e.date.isoformat(), e.account, e.memo, e.reference, f"{e.amount:.2f}")
        )
    return out.getvalue()
