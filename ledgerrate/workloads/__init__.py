"""Workload versions (ARCHITECTURE.md §3): `base` says what one is, `catalogue` lists them all.

`get`, `registry` and `WORKLOADS` are the catalogue's, loaded on first use: importing the
package for `workloads.base` (as the frozen `sandbox/sql.py` does) must not import every
workload, several of which import the sandbox back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ledgerrate.workloads.catalogue import WORKLOADS, get, registry

    __all__ = ["WORKLOADS", "get", "registry"]


def __getattr__(name: str) -> Any:
    if name in {"WORKLOADS", "get", "registry"}:
        from ledgerrate.workloads import catalogue

        return getattr(catalogue, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
