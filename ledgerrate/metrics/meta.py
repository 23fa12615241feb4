"""What the figures need to know about a workload version, behind one injectable lookup.

Tests (and `verify` on a machine without every workload module) pass their own lookup instead
of importing the whole registry.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from ledgerrate.errors import UsageProblem


@dataclass(frozen=True)
class WorkloadMeta:
    id: str
    title: str
    unit: str
    volume: int
    judged: bool
    modes: tuple[str, ...]


MetaLookup = Callable[[str], WorkloadMeta]


def _module_for(workload_id: str) -> str | None:
    # "extract.invoice.v1" lives in "…extract_invoice.v1": look it up in the registry's own list
    # so that only registered modules are ever imported.
    from ledgerrate.workloads import MODULES

    primitive, name, version = workload_id.split(".")
    wanted = f"ledgerrate.workloads.{primitive}_{name.replace('-', '_')}.{version}"
    return wanted if wanted in MODULES else None


def registry_meta(workload_id: str) -> WorkloadMeta:
    """Metadata from the workload registry, importing only the one module it needs."""
    module = _module_for(workload_id)
    if module is None:
        from ledgerrate.workloads import registry

        raise UsageProblem(
            f"edition.yaml: workloads: {workload_id!r} is not a registered workload version; "
            f"use one of: {', '.join(sorted(registry()))}"
        )
    try:
        workload = importlib.import_module(module).WORKLOAD
    except ModuleNotFoundError as exc:
        raise UsageProblem(
            f"workload {workload_id!r}: its module {module} cannot be imported ({exc})"
        ) from None
    return WorkloadMeta(
        id=workload.id,
        title=workload.title,
        unit=workload.unit,
        volume=workload.volume,
        judged=workload.judged,
        modes=tuple(workload.modes),
    )
