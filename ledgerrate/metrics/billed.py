"""A cell's computed spend reconciled with what the provider billed (ARCHITECTURE.md §5).

Where a provider or gateway states each reply's cost (`CallRecord.billed_usd`), the cell's
counted calls are summed twice: as billed, and as LedgerRate computed them (usage × the frozen
prices, model spend only). The cell's spend, CPO and every figure stay the computed ones; this is
the check beside them, the strongest basis a cost figure can have when every call was billed
(`reconciled`), and a partial one when only some were. The methodology's "Billed cost" recipe
states the same arithmetic, and the standalone verifier redoes it from the published logs.
"""

from __future__ import annotations

from decimal import Decimal

from ledgerrate.metrics.rows import Rows, is_missing
from ledgerrate.schema import BilledCheck

# Gateways state a double (LiteLLM: 3.0999999999999995e-05 for $0.000031): a nano-dollar per
# call is far above that rounding and far below any real difference of price.
TOLERANCE_PER_CALL = Decimal("0.000000001")


def billed_check(items: Rows) -> BilledCheck | None:
    """The reconciliation of a cell's counted runs (`items`), or None when no call stated a
    cost."""
    # Summed on the column as a list (missing values skipped, as pandas' sum does): a pandas
    # reduction on a 15-row cell costs more than the sum.
    billed_calls = (
        int(sum(v for v in items["billed_calls"] if not is_missing(v))) if len(items) else 0
    )
    if billed_calls == 0:
        return None
    billed = sum((Decimal(v) for v in items["billed_usd"]), Decimal(0))
    computed = sum((Decimal(v) for v in items["billed_computed_usd"]), Decimal(0))
    calls = int(sum(v for v in items["calls"] if not is_missing(v)))
    difference = billed - computed
    return BilledCheck(
        calls=calls,
        calls_billed=billed_calls,
        billed_usd=billed,
        computed_usd=computed,
        difference_usd=difference,
        basis="reconciled" if billed_calls == calls else "partly-reconciled",
        agrees=abs(difference) <= TOLERANCE_PER_CALL * billed_calls,
    )
