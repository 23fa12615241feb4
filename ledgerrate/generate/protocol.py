"""Run-protocol rules of the standard (§3) checked before an edition is sealed.

Each problem is one line naming the file, the field and the fix; `register` refuses while any
is left, so a registration can never seal a protocol the standard does not allow.
"""

from __future__ import annotations

from ledgerrate.edition import Edition
from ledgerrate.schema import STANDARD_N, ProviderFamily


def pricing_problems(edition: Edition) -> list[str]:
    """Prices frozen at (or before) window open, each read before the table was frozen."""
    where, pricing = edition.paths.pricing, edition.pricing
    opens = edition.manifest.window.opens
    problems = []
    if pricing.frozen_at > opens:
        problems.append(
            f"{where}: frozen_at: {pricing.frozen_at.isoformat()} is after the window opens "
            f"({opens.isoformat()}); prices are frozen at window open, so freeze the table by then"
        )
    read = [(f"models.{m}.retrieved_at", p.retrieved_at) for m, p in pricing.models.items()]
    if pricing.compute is not None:
        read.append(("compute.retrieved_at", pricing.compute.retrieved_at))
    for field, when in read:
        if when > pricing.frozen_at:
            problems.append(
                f"{where}: {field}: {when.isoformat()} is after frozen_at "
                f"({pricing.frozen_at.isoformat()}); a frozen table cannot hold a price read "
                "later, so read the price page again before freezing"
            )
    return problems


def sampling_problems(edition: Edition) -> list[str]:
    """Temperature 0 where supported; otherwise the provider default, documented per model."""
    problems = []
    for spec in [*edition.manifest.models, *edition.manifest.judges]:
        if spec.provider == ProviderFamily.baseline:
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


def protocol_problems(edition: Edition) -> list[str]:
    return pricing_problems(edition) + sampling_problems(edition) + n_problems(edition)
