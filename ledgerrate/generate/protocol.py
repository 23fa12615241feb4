"""Run-protocol rules of the standard (§3) checked before an edition is sealed.

Each problem is one line naming the file, the field and the fix; `register` refuses while any
is left, so a registration can never seal a protocol the standard does not allow.
"""

from __future__ import annotations

import datetime as dt

from ledgerrate.core.edition import Edition, price_time_problems
from ledgerrate.schema import STANDARD_N


def pricing_problems(edition: Edition, registered_at: dt.datetime | None = None) -> list[str]:
    """Prices frozen at (or before) window open and before the registration that seals them,
    each read before the table was frozen."""
    return price_time_problems(
        edition.pricing, edition.manifest.window.opens, registered_at, edition.paths.pricing
    )


def sampling_problems(edition: Edition) -> list[str]:
    """Temperature 0 where supported; otherwise the provider default, documented per model."""
    problems = []
    for spec in [*edition.manifest.models, *edition.manifest.judges]:
        if spec.is_reference:
            continue  # a deterministic solver samples nothing
        if spec.sampling.get("temperature") == 0 or spec.sampling_notes.strip():
            continue
        problems.append(
            f"{edition.paths.manifest}: models.{spec.id}.sampling: no temperature 0 and no "
            "sampling_notes; set `temperature: 0`, or say in `sampling_notes` why the provider "
            "default is used"
        )
    return problems


def n_problems(edition: Edition) -> list[str]:
    """n = 15 per cell, or another n with its reason recorded in edition.yaml."""
    return [
        f"{edition.paths.manifest}: workloads.{entry.id}.n: {entry.n} differs from the "
        f"standard's {STANDARD_N}; add `n_reason` saying why, or use n = {STANDARD_N}"
        for entry in edition.manifest.workloads
        if entry.n != STANDARD_N and not (entry.n_reason or "").strip()
    ]


def protocol_problems(edition: Edition, registered_at: dt.datetime | None = None) -> list[str]:
    return (
        pricing_problems(edition, registered_at) + sampling_problems(edition) + n_problems(edition)
    )
