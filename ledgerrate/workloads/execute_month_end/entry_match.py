"""End-state grading of a month-end close, as the standard words it (§4.7).

The posted journal entries must match the reference set: every reference entry is matched by
exactly one posted entry over the same accounts, each on the same side, each amount within
$0.01; a posted entry that matches no reference entry is a fail (the standard allows none).
Then the trial balance of the resulting ledger (the opening balances plus every posted line)
must balance, and so must every posted entry: the grader does not take the journal tool's
validation on trust, because it grades whatever state it is given.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from ledgerrate.schema import Check
from ledgerrate.workloads.base import check

TOLERANCE = Decimal("0.01")
CHECKS = ("entries_match", "no_extra_entries", "trial_balance_balances")

Movement = dict[str, Decimal]  # account → debit minus credit, in dollars


class MalformedState(ValueError):
    """The tool state is not a list of entries with account/debit/credit lines."""


def _amount(value: Any) -> Decimal:
    try:
        amount = Decimal(str(value if value not in (None, "") else 0))
    except InvalidOperation as exc:
        raise MalformedState(f"amount {str(value)[:20]!r} is not a number") from exc
    if not amount.is_finite():
        raise MalformedState("amount is not finite")
    return amount


def _lines(entry: Any) -> list[Mapping[str, Any]]:
    lines = entry.get("lines") if isinstance(entry, Mapping) else None
    if not isinstance(lines, list) or not all(isinstance(line, Mapping) for line in lines):
        raise MalformedState("an entry has no list of line objects")
    return lines


def movement(entry: Mapping[str, Any]) -> Movement:
    """One entry's net movement per account (zero movements dropped)."""
    net: dict[str, Decimal] = defaultdict(Decimal)
    for line in _lines(entry):
        net[str(line.get("account", ""))] += _amount(line.get("debit")) - _amount(
            line.get("credit")
        )
    return {account: value for account, value in sorted(net.items()) if value != 0}


def entries_agree(posted: Movement, reference: Movement) -> bool:
    """Same accounts, same side for each, every amount within the tolerance."""
    return posted.keys() == reference.keys() and all(
        (posted[a] > 0) == (reference[a] > 0) and abs(posted[a] - reference[a]) <= TOLERANCE
        for a in reference
    )


def match_entries(posted: Sequence[Movement], reference: Sequence[Movement]) -> dict[int, int]:
    """A maximum one-to-one matching, reference index → posted index (augmenting paths, so a
    near-tie between two candidates can never leave a matchable entry unmatched)."""
    candidates = [
        [p for p, got in enumerate(posted) if entries_agree(got, want)] for want in reference
    ]
    owner: dict[int, int] = {}  # posted index → reference index

    def place(r: int, seen: set[int]) -> bool:
        for p in candidates[r]:
            if p not in seen:
                seen.add(p)
                if p not in owner or place(owner[p], seen):
                    owner[p] = r
                    return True
        return False

    for r in range(len(reference)):
        place(r, set())
    return {r: p for p, r in owner.items()}


def _side(value: Decimal) -> str:
    return "debit" if value > 0 else "credit"


def describe(move: Movement) -> str:
    return " / ".join(f"{a} {_side(v)} {abs(v):.2f}" for a, v in move.items()) or "no movement"


def _near_miss(want: Movement, unmatched: list[Movement]) -> str:
    """Why the closest unmatched posted entry over the same accounts does not match."""
    for got in unmatched:
        if got.keys() != want.keys():
            continue
        flipped = [a for a in want if (got[a] > 0) != (want[a] > 0)]
        if flipped:
            return (
                " (posted with "
                + ", ".join(f"{a} on the {_side(got[a])} side" for a in flipped)
                + ")"
            )
        off = [a for a in want if abs(got[a] - want[a]) > TOLERANCE]
        return " (posted as " + ", ".join(f"{a} {abs(got[a]):.2f}" for a in off) + ")"
    return ""


def trial_balance(
    posted: Sequence[Mapping[str, Any]], opening_cents: Mapping[str, int]
) -> tuple[Decimal, Decimal, list[int]]:
    """Total debit and credit balances of the ledger after the postings, and the 1-based
    numbers of posted entries that do not balance on their own."""
    balances: dict[str, Decimal] = defaultdict(Decimal)
    for account, cents in opening_cents.items():
        balances[account] += Decimal(cents) / 100
    unbalanced = []
    for number, entry in enumerate(posted, start=1):
        lines = _lines(entry)
        debits = sum((_amount(line.get("debit")) for line in lines), Decimal(0))
        credits = sum((_amount(line.get("credit")) for line in lines), Decimal(0))
        if debits != credits:
            unbalanced.append(number)
        for line in lines:
            account = str(line.get("account", ""))
            balances[account] += _amount(line.get("debit")) - _amount(line.get("credit"))
    debit_total = sum((v for v in balances.values() if v > 0), Decimal(0))
    credit_total = -sum((v for v in balances.values() if v < 0), Decimal(0))
    return debit_total, credit_total, unbalanced


def close_checks(
    posted: Sequence[Mapping[str, Any]],
    reference: Sequence[Mapping[str, Any]],
    opening_cents: Mapping[str, int],
) -> tuple[Check, ...]:
    """The three named checks of a month-end close graded as the standard says."""
    try:
        got = [movement(entry) for entry in posted]
        want = [movement(entry) for entry in reference]
        debit_total, credit_total, unbalanced = trial_balance(posted, opening_cents)
    except MalformedState as exc:
        return tuple(check(name, False, f"journal entries unreadable: {exc}") for name in CHECKS)
    matched = match_entries(got, want)
    used = set(matched.values())
    unmatched_posted = [got[p] for p in range(len(got)) if p not in used]
    missing = [
        describe(want[r]) + _near_miss(want[r], unmatched_posted)
        for r in range(len(want))
        if r not in matched
    ]
    extra = [f"entry {p + 1}: {describe(got[p])}" for p in range(len(got)) if p not in used]
    balanced = debit_total == credit_total and not unbalanced
    tb_detail = f"debits {debit_total:,.2f}, credits {credit_total:,.2f}"
    if unbalanced:
        tb_detail += "; entries that do not balance: " + ", ".join(map(str, unbalanced))
    return (
        check(
            "entries_match",
            not missing,
            "missing: " + "; ".join(missing)
            if missing
            else f"all {len(want)} reference entries matched once",
        ),
        check(
            "no_extra_entries",
            not extra,
            "extra: " + "; ".join(extra) if extra else "no posted entry outside the reference",
        ),
        check("trial_balance_balances", balanced, tb_detail),
    )
