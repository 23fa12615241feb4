"""End-state grading of a month-end close: pure functions over journal entries.

The ledger after the model's postings is compared with the ledger after the reference
postings, account by account (net debit minus credit). How lines are grouped into entries is
the model's choice; what the books end up saying is not. Amounts are exact decimals; the
tolerance is one cent per account, as the standard sets it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from ledgerrate.schema import Check
from ledgerrate.workloads.base import check

TOLERANCE = Decimal("0.01")


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


def net_by_account(entries: Sequence[Mapping[str, Any]]) -> dict[str, Decimal]:
    """Dollars of debit minus credit per account over all lines of all entries."""
    net: dict[str, Decimal] = defaultdict(Decimal)
    for entry in entries:
        lines = entry.get("lines") if isinstance(entry, Mapping) else None
        if not isinstance(lines, list):
            raise MalformedState("an entry has no list of lines")
        for line in lines:
            if not isinstance(line, Mapping):
                raise MalformedState("a line is not an object")
            account = str(line.get("account", ""))
            net[account] += _amount(line.get("debit")) - _amount(line.get("credit"))
    return {account: value for account, value in net.items() if value != 0}


def _side(value: Decimal) -> str:
    return "debit" if value > 0 else "credit"


def _fmt(account: str, value: Decimal) -> str:
    return f"{account} {_side(value)} {abs(value):.2f}"


def close_checks(
    posted: Sequence[Mapping[str, Any]],
    reference: Sequence[Mapping[str, Any]],
    opening_cents: Mapping[str, int],
) -> tuple[Check, ...]:
    """The four named checks of `execute.month-end.v1`."""
    try:
        got = net_by_account(posted)
    except MalformedState as exc:
        reason = f"journal entries unreadable: {exc}"
        return tuple(
            check(name, False, reason)
            for name in (
                "entries_match",
                "directions",
                "amounts_within_cent",
                "trial_balance_balances",
            )
        )
    want = net_by_account(reference)
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    common = sorted(set(want) & set(got))
    detail = []
    if missing:
        detail.append("missing: " + ", ".join(_fmt(a, want[a]) for a in missing))
    if extra:
        detail.append("extra: " + ", ".join(_fmt(a, got[a]) for a in extra))
    entries_ok = not missing and not extra
    flipped = [a for a in common if (want[a] > 0) != (got[a] > 0)]
    off = [a for a in common if abs(abs(want[a]) - abs(got[a])) > TOLERANCE]
    total = sum((Decimal(c) for c in opening_cents.values()), Decimal(0)) / 100
    total += sum(got.values(), Decimal(0))
    return (
        check(
            "entries_match",
            entries_ok,
            "; ".join(detail) or f"all {len(want)} accounts moved as in the reference",
        ),
        check(
            "directions",
            not flipped and entries_ok,
            "; ".join(f"{a}: expected {_side(want[a])}, got {_side(got[a])}" for a in flipped)
            or ("directions agree" if entries_ok else "accounts differ (see entries_match)"),
        ),
        check(
            "amounts_within_cent",
            not off and entries_ok,
            "; ".join(f"{a}: expected {abs(want[a]):.2f}, got {abs(got[a]):.2f}" for a in off)
            or ("amounts within $0.01" if entries_ok else "accounts differ (see entries_match)"),
        ),
        check(
            "trial_balance_balances",
            total == 0,
            "debits equal credits" if total == 0 else f"trial balance off by {total:.2f}",
        ),
    )
