"""The workload facts `results` reads without the registry are the registry's own."""

from __future__ import annotations

from ledgerrate.workloads import registry
from ledgerrate.workloads.facts import FACTS, Facts


def test_every_registered_version_is_listed_with_the_registry_facts() -> None:
    found = {
        w.id: Facts(w.title, w.unit, w.volume, w.judged, tuple(w.modes))
        for w in registry().values()
    }
    assert found == FACTS
