"""Ordered result sets where the order asked leaves ties (standard §4.6).

§4.6 compares result sets "order-insensitive unless ordering is asked". A question that asks
for rows "ordered by month" or "from the highest total to the lowest" orders them by that key
and by nothing else, so rows that tie on it may come in any order. The ordered comparison
therefore checks the rows as a multiset and the sequence of their order keys, not the exact
sequence of rows: the reference's order among tied rows is the database's choice, not the
question's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ledgerrate.workloads.query_nl2sql import compare

# Result columns each ordered v1 question orders by, as its question text says (the reference
# SQL's ORDER BY). A test keeps this in step with every ordered template.
ORDER_KEYS: dict[str, tuple[int, ...]] = {
    "accounts_of_type": (0,),
    "receipts_by_month": (0,),
    "top_vendors_paid": (1,),
    "asset_balances": (0,),
    "top_customer_each_month": (0,),
    "late_paid_vendors": (1, 0),
}


def compare_ordered(
    expected: Sequence[Sequence[Any]], got: Sequence[Sequence[Any]], keys: tuple[int, ...]
) -> tuple[bool, str]:
    """(equal, short diff): the same rows, in the order of `keys`; ties in any order."""
    equal, diff = compare.compare_results(expected, got, ordered=False)
    if not equal:
        return equal, diff
    want, have = compare.norm_rows(expected), compare.norm_rows(got)
    want_keys = [tuple(row[k] for k in keys) for row in want]
    have_keys = [tuple(row[k] for k in keys) for row in have]
    if want_keys == have_keys:
        ties = len(want_keys) - len(set(want_keys))
        return True, f"{len(want)} rows equal, in the order asked" + (
            f" ({ties} tied on the order key, compared in any order)" if ties else ""
        )
    first = next(i for i, (a, b) in enumerate(zip(want_keys, have_keys, strict=True)) if a != b)
    return False, f"right rows, wrong order: first difference at row {first + 1}"
