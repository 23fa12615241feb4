"""The routing verdict: may work move from the flagship to the cheapest qualifying model?

Both arms answered the same items, so the comparison is paired: each bootstrap resample draws
items and takes both arms' outcomes and costs for those items together, which removes item
difficulty from the noise. Two intervals decide, and `pass` needs both:

- quality non-inferiority: challenger − incumbent pass rate, lower bound above −margin;
- cost saving: 1 − Σ challenger cost ÷ Σ incumbent cost, lower bound above 0.

`fail` when a regression is established (the whole quality interval below −margin) or the
challenger is established as dearer (the whole saving interval below 0). Anything else is
`inconclusive`, and says what would settle it: with 15 items a 10-point margin is often out of
reach, and saying so is the honest result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ledgerrate.metrics.cells import CellData
from ledgerrate.metrics.intervals import DEFAULT_REPS, resample_indices
from ledgerrate.schema import CellResult, Interval, Outcome, RoutingVerdict, Verdict
from ledgerrate.stats.power import minimum_detectable_difference

MARGIN = 0.10
METHOD = "paired-bootstrap-percentile-95"
SETTLE = "a larger-n workload version or a repeat edition would settle it"


@dataclass(frozen=True)
class Arm:
    """One side of the comparison: its published figures and the records behind them."""

    result: CellResult
    data: CellData


def paired_items(challenger: CellData, incumbent: CellData) -> pd.DataFrame:
    """Items graded pass/fail in both arms, with both outcomes and costs side by side."""

    def settled(data: CellData) -> pd.DataFrame:
        rows = data.items.frame()
        items = rows[rows["outcome"].isin([Outcome.passed, Outcome.failed])]
        return pd.DataFrame(
            {
                "item_id": items["item_id"],
                "passed": (items["outcome"] == Outcome.passed).astype(float),
                "cost": [float(v) for v in items["spend_usd"]],
            }
        )

    return settled(challenger).merge(
        settled(incumbent), on="item_id", suffixes=("_c", "_i"), how="inner"
    )


def paired_bootstrap(
    pairs: pd.DataFrame, rng: np.random.Generator, reps: int = DEFAULT_REPS
) -> tuple[Interval, Interval | None]:
    """(quality difference interval, relative saving interval) over resampled items.

    Resamples in which the incumbent spent nothing have no relative saving and are dropped;
    the saving interval is None when every resample is dropped.
    """
    idx = resample_indices(rng, len(pairs), reps)
    pc, pi = pairs["passed_c"].to_numpy()[idx], pairs["passed_i"].to_numpy()[idx]
    diff = pc.mean(axis=1) - pi.mean(axis=1)
    q_lo, q_hi = np.percentile(diff, [2.5, 97.5])
    quality = Interval(lo=float(q_lo), hi=float(q_hi), method=METHOD)
    spent_c = pairs["cost_c"].to_numpy()[idx].sum(axis=1)
    spent_i = pairs["cost_i"].to_numpy()[idx].sum(axis=1)
    keep = spent_i > 0
    if not keep.any():
        return quality, None
    s_lo, s_hi = np.percentile(1 - spent_c[keep] / spent_i[keep], [2.5, 97.5])
    return quality, Interval(lo=float(s_lo), hi=float(s_hi), method=METHOD)


def not_applicable(reason: str, challenger: Arm | None, incumbent: Arm | None) -> RoutingVerdict:
    return RoutingVerdict(
        verdict=Verdict.not_applicable,
        challenger=challenger.result.model if challenger else None,
        challenger_mode=challenger.result.mode if challenger else None,
        incumbent=incumbent.result.model if incumbent else None,
        incumbent_mode=incumbent.result.mode if incumbent else None,
        reason=reason,
    )


def _span(interval: Interval, percent: bool = False) -> str:
    lo, hi = float(interval.lo or 0), float(interval.hi or 0)
    return f"[{lo:+.0%}, {hi:+.0%}]" if percent else f"[{lo:+.2f}, {hi:+.2f}]"


def decide(
    quality: Interval, saving: Interval | None, m: int, margin: float = MARGIN
) -> tuple[Verdict, str, str | None]:
    """(verdict, reason, remedy) from the two paired intervals over m items."""
    q_lo, q_hi = float(quality.lo), float(quality.hi)  # type: ignore[arg-type]
    points = f"{margin * 100:.0f}-point"
    if q_hi < -margin:
        return Verdict.failed, f"quality regression established: difference {_span(quality)}", None
    if saving is not None and float(saving.hi) < 0:  # type: ignore[arg-type]
        return (
            Verdict.failed,
            f"the challenger costs more per item: saving {_span(saving, True)}",
            None,
        )
    quality_ok = q_lo > -margin
    saving_ok = saving is not None and float(saving.lo) > 0  # type: ignore[arg-type]
    shown = f"quality difference {_span(quality)}" + (
        f", cost saving {_span(saving, True)}" if saving else ", cost saving undefined"
    )
    if quality_ok and saving_ok:
        return Verdict.passed, f"non-inferior within the {points} margin and cheaper: {shown}", None
    gaps = []
    if not quality_ok:
        mde = minimum_detectable_difference(m) * 100
        gaps.append(
            f"n = {m} cannot establish a {points} non-inferiority margin (the quality interval "
            f"spans {_span(quality)}; the power plan for n = {m} puts the detectable "
            f"difference between two arms at about {mde:.0f} points)"
        )
    if not saving_ok:
        gaps.append(
            "the cost-saving interval "
            + (f"spans {_span(saving, True)} and " if saving else "")
            + "does not exclude no saving"
        )
    return Verdict.inconclusive, shown, "; ".join(gaps) + f"; {SETTLE}"


def routing_verdict(
    challenger: Arm | None,
    incumbent: Arm | None,
    *,
    rng: np.random.Generator,
    reps: int = DEFAULT_REPS,
    margin: float = MARGIN,
    has_flagship: bool = True,
) -> RoutingVerdict:
    if not has_flagship:
        return not_applicable("no model in this edition is marked flagship", challenger, None)
    if incumbent is None:
        return not_applicable("no flagship cell has usable results", challenger, None)
    if challenger is None:
        return not_applicable("no model qualifies on this workload", None, incumbent)
    unchecked = incumbent.result.judge_protocol
    if unchecked is not None and unchecked.missing:
        # The flagship's judged pass rate is the judge's word alone until §5 is met: no
        # comparison can rest on it.
        return not_applicable(
            f"the flagship's judged figures do not meet the judged-task protocol yet "
            f"({unchecked.missing[0]})",
            challenger,
            incumbent,
        )
    if challenger.result.model == incumbent.result.model:
        return not_applicable(
            "the flagship is itself the cheapest qualifying model: nothing to route",
            challenger,
            incumbent,
        )
    pairs = paired_items(challenger.data, incumbent.data)
    base: dict[str, Any] = {
        "challenger": challenger.result.model,
        "challenger_mode": challenger.result.mode,
        "incumbent": incumbent.result.model,
        "incumbent_mode": incumbent.result.mode,
        "margin": margin,
    }
    if pairs.empty:
        return RoutingVerdict(
            verdict=Verdict.inconclusive,
            reason="no item is graded in both cells",
            remedy="grade the outstanding runs of both cells, then recompute",
            **base,
        )
    quality, saving = paired_bootstrap(pairs, rng, reps)
    verdict, reason, remedy = decide(quality, saving, len(pairs), margin)
    short = min(challenger.result.n, incumbent.result.n) - len(pairs)
    if short > 0 and remedy is not None:
        remedy += f"; {short} items are not yet graded in both cells and were left out"
    return RoutingVerdict(
        verdict=verdict,
        quality_diff_ci=quality,
        saving_ci=saving,
        reason=reason,
        remedy=remedy,
        **base,
    )
