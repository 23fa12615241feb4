"""What the figures need to know about a workload version, behind one injectable lookup.

Tests (and `verify` on a machine without every workload module) pass their own lookup instead
of importing the whole registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ledgerrate.core.errors import UsageProblem


@dataclass(frozen=True)
class WorkloadMeta:
    id: str
    title: str
    unit: str
    volume: int
    judged: bool
    modes: tuple[str, ...]


MetaLookup = Callable[[str], WorkloadMeta]


def registry_meta(workload_id: str) -> WorkloadMeta:
    """Metadata from the workload registry."""
    from ledgerrate.workloads import registry

    workload = registry().get(workload_id)
    if workload is None:
        raise UsageProblem(
            f"edition.yaml: workloads: {workload_id!r} is not a registered workload version; "
            f"use one of: {', '.join(sorted(registry()))}"
        )
    return WorkloadMeta(
        id=workload.id,
        title=workload.title,
        unit=workload.unit,
        volume=workload.volume,
        judged=workload.judged,
        modes=tuple(workload.modes),
    )
