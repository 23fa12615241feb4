"""Result-set equality for `query.nl2sql.v1`: pure functions over rows of plain values.

Rules (published in the prompt): column names are ignored, column order matters, rows are a
multiset unless the question asks for an order, numbers are compared after rounding to cents
(two decimals, half up), text is compared exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

_CENT = Decimal("0.01")


def norm_value(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, (int, float)):
        try:
            return ("n", str(Decimal(str(value)).quantize(_CENT, rounding=ROUND_HALF_UP)))
        except InvalidOperation:  # inf or nan: compare by their text
            return ("n", str(value))
    return ("x", str(value))


def norm_rows(rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    return [tuple(norm_value(v) for v in row) for row in rows]


def _show(row: tuple[Any, ...]) -> str:
    return "(" + ", ".join(v[1] if isinstance(v, tuple) else repr(v) for v in row) + ")"


def compare_results(
    expected: Sequence[Sequence[Any]], got: Sequence[Sequence[Any]], *, ordered: bool
) -> tuple[bool, str]:
    """(equal, short diff) of two result sets under the rules above."""
    want, have = norm_rows(expected), norm_rows(got)
    want_width = len(want[0]) if want else None
    have_width = len(have[0]) if have else None
    if want and have and want_width != have_width:
        return False, f"expected {want_width} columns per row, got {have_width}"
    if ordered:
        if want == have:
            return True, f"{len(want)} rows equal, in the order asked"
        if Counter(want) == Counter(have):
            first = next(i for i, (a, b) in enumerate(zip(want, have, strict=True)) if a != b)
            return False, f"right rows, wrong order: first difference at row {first + 1}"
    elif Counter(want) == Counter(have):
        return True, f"{len(want)} rows equal (order not asked)"
    missing = list((Counter(want) - Counter(have)).elements())
    extra = list((Counter(have) - Counter(want)).elements())
    parts = [f"expected {len(want)} rows, got {len(have)}"]
    if missing:
        parts.append(f"missing {len(missing)}: " + "; ".join(_show(r) for r in missing[:3]))
    if extra:
        parts.append(f"unexpected {len(extra)}: " + "; ".join(_show(r) for r in extra[:3]))
    return False, "; ".join(parts)
