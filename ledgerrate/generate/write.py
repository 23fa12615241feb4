"""`ledgerrate generate`: write a dataset and its card to a folder for inspection."""

from __future__ import annotations

from pathlib import Path

from ledgerrate.core.io import atomic_write_bytes, write_json
from ledgerrate.generate.dataset import build_dataset, make_card
from ledgerrate.schema import DatasetCard
from ledgerrate.workloads import get
from ledgerrate.workloads.base import Dataset


def write_dataset_files(dataset: Dataset, out: Path) -> None:
    """items/<id>.json (input, truth, strata), files/<id>/<name>, shared.json."""
    for item in dataset.items:
        write_json(
            out / "items" / f"{item.id}.json",
            {"id": item.id, "strata": list(item.strata), "input": item.input, "truth": item.truth},
        )
        for name, data in sorted(item.files.items()):
            atomic_write_bytes(out / "files" / item.id / name, data)
    if dataset.shared:
        write_json(out / "shared.json", dict(dataset.shared))


def write_dataset(workload_id: str, *, seed: int, n: int, out: Path) -> DatasetCard:
    workload = get(workload_id)
    dataset = build_dataset(workload, seed, n)
    write_dataset_files(dataset, out)
    card = make_card(workload, dataset, seed_commitment=None)
    write_json(out / "card.json", card)
    return card
