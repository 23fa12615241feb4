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
    """Metadata from the workload registry: its facts as listed in `workloads/facts.py`
    (which a test holds equal to the registry), the registry itself for a version not listed."""
    from ledgerrate.workloads.facts import FACTS

    facts = FACTS.get(workload_id)
    if facts is not None:
        return WorkloadMeta(workload_id, *facts)
    from ledgerrate.workloads import registry  # every workload module, the PDF renderer too

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
