"""What a provider or gateway says a call cost, read as it reported it (ARCHITECTURE.md §3).

Some put a price on each reply: LiteLLM's proxy in the `x-litellm-response-cost` header (from
the per-token prices its operator configured), OpenRouter in `usage.cost` of the body (what it
charged the account's credits). LedgerRate never prices a call with it: a call's cost is always
usage × the edition's frozen prices (`ledgerrate.core.cost`). The reported figure is kept beside it,
in `CallRecord.billed_usd`, so each cell's computed spend can be reconciled with what was billed
(`metrics/billed.py`). Only a successful reply's figure is read: LiteLLM sends `0` on its errors.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

HEADER = "x-litellm-response-cost"


def _amount(value: Any) -> Decimal | None:
    """A non-negative, finite dollar amount, exactly as written; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return None
        value = repr(value)  # the shortest text that reads back as the number sent
    if not isinstance(value, str):
        return None
    try:
        amount = Decimal(value.strip())
    except InvalidOperation:
        return None
    return amount if amount.is_finite() and amount >= 0 else None


def reported_cost(headers: Mapping[str, str], body: Any) -> Decimal | None:
    """The cost a reply reports for itself: the gateway's header first, else `usage.cost`."""
    found = headers.get(HEADER)
    if found is not None:
        amount = _amount(found)
        if amount is not None:
            return amount
    usage = body.get("usage") if isinstance(body, dict) else None
    return _amount(usage.get("cost")) if isinstance(usage, dict) else None
