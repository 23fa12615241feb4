"""Build a workload's dataset from a seed, and describe it in a dataset card."""

from __future__ import annotations

import random
from collections import Counter
from importlib.metadata import PackageNotFoundError, version

from ledgerrate import workloads
from ledgerrate.core.hashing import NEW_SCHEME, HashScheme
from ledgerrate.schema import CardItem, DatasetCard
from ledgerrate.stats.power import power_plan
from ledgerrate.workloads.base import Dataset, Workload

# Libraries whose versions shape dataset bytes (PDF rendering, text-layer extraction).
_STACK = ("weasyprint", "pdfplumber", "pdfminer.six")


def build_dataset(workload: Workload | str, seed: int, n: int = 15) -> Dataset:
    """Same workload, seed and n: byte-identical dataset, in any process."""
    # The catalogue through the package, on first call: a build imports this module for
    # `stack_versions`, and must not import every workload unless it generates a dataset.
    wl = workloads.get(workload) if isinstance(workload, str) else workload
    dataset = wl.generate(random.Random(seed), n)
    if len(dataset.items) != n:
        raise ValueError(f"{wl.id} generated {len(dataset.items)} items, expected {n}")
    return dataset


def stack_versions() -> dict[str, str]:
    found = {}
    for name in _STACK:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


def stack_drift(recorded: dict[str, str]) -> str:
    """Which dataset-shaping libraries differ from the versions a card recorded, in words.

    A dataset hash that no longer matches is most often a library upgrade, not a changed
    generator: saying which one turns a bare mismatch into a fix (install that version)."""
    now = stack_versions()
    changed = [
        f"{name} {recorded[name]} when sealed, {now.get(name, 'absent')} here"
        for name in sorted(recorded)
        if now.get(name) != recorded[name]
    ]
    if not changed:
        return "the libraries that shape dataset bytes are at the recorded versions"
    return "; ".join(changed)


def make_card(
    workload: Workload,
    dataset: Dataset,
    seed_commitment: str | None,
    scheme: HashScheme = NEW_SCHEME,
) -> DatasetCard:
    strata = Counter(s for item in dataset.items for s in item.strata)
    files = {
        f"{item.id}/{name}": sha
        for item in dataset.items
        for name, sha in item.content()["files"].items()
    }
    return DatasetCard(
        workload=workload.id,
        dataset_hash=dataset.hash_for(scheme),
        generator_hash=workload.generator_hash,
        seed_commitment=seed_commitment,
        n_items=len(dataset.items),
        strata=dict(sorted(strata.items())),
        items=[CardItem(id=item.id, strata=list(item.strata)) for item in dataset.items],
        power_plan=power_plan(len(dataset.items)),
        files=files,
        stack=stack_versions(),
        hash_scheme=scheme,
    )
