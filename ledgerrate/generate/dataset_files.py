"""A released dataset's files as they are published: its hashed content in canonical JSON and
every item's files, those a workload renders on demand from an item's text (the board packs'
PDFs) among them.

One recipe for the three places that make them: `seeds release` stores them once
(`generate/stored_datasets.py`), `build` makes them for an edition released before they were
stored (`publish/downloads.py`), and `verify` makes them again to compare with the stored bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, requires, version
from pathlib import Path
from typing import Any

from ledgerrate.core import forked
from ledgerrate.core.edition import WorkloadLookup
from ledgerrate.core.hashing import HashScheme, canonical_json
from ledgerrate.core.released import DATASET_CONTENT
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.workloads.base import Dataset, Item

Renderer = Callable[[Item], dict[str, bytes]]

# The PDF renderer: its version and those of the distributions it requires (pydyf writes the
# PDF, fontTools subsets the fonts, tinycss2 and cssselect2 read the styles) shape the bytes.
_RENDERER = "weasyprint"


def _lookup(lookup: WorkloadLookup | None) -> WorkloadLookup:
    if lookup is not None:
        return lookup
    from ledgerrate import workloads

    return workloads.get


def on_demand_renderer(workload_id: str, lookup: WorkloadLookup | None = None) -> Renderer | None:
    """What renders an item's files beyond its hashed content (`pack_pdfs` of the workload's
    module), or None when the workload has none."""
    module = sys.modules[_lookup(lookup)(workload_id).grade.__module__]
    return getattr(module, "pack_pdfs", None)


def content_of(dataset: Dataset) -> dict[str, Any]:
    """The dataset's hashed content: its canonical JSON hashes to the registered dataset hash."""
    return {
        "workload": dataset.workload,
        "items": [item.content() for item in dataset.items],
        "shared": dataset.shared,
    }


def item_files(dataset: Dataset, render_more: Renderer | None) -> dict[str, bytes]:
    """Every item's files (`item/name` → bytes), the ones rendered on demand included. Those
    are rendered item by item on every CPU (one worker per CPU unless this already is one)."""
    files: dict[str, bytes] = {}
    for item in dataset.items:
        files.update({f"{item.id}/{name}": data for name, data in item.files.items()})
    if render_more is not None:
        for item, more in zip(
            dataset.items, forked.map_forked(render_more, dataset.items), strict=True
        ):
            files.update({f"{item.id}/{name}": data for name, data in more.items()})
    return files


def regenerate(
    root: Path, workload_id: str, lookup: WorkloadLookup | None = None
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The registered dataset of `workload_id` made again from the edition's seed (proved to be
    the registered one, `dataset_for`): its hashed content and every item's files."""
    dataset = dataset_for(root, workload_id, lookup=lookup)
    return content_of(dataset), item_files(dataset, on_demand_renderer(workload_id, lookup))


def published_files(
    content: dict[str, Any], files: dict[str, bytes], scheme: HashScheme
) -> dict[str, bytes]:
    """What is published of the dataset: its files and its content as `dataset.json`."""
    return {**files, DATASET_CONTENT: canonical_json(content, scheme).encode("utf-8")}


def render_stack() -> dict[str, str]:
    """Versions of the PDF renderer and of every distribution it requires, as installed."""
    names = [_RENDERER]
    try:
        wanted = requires(_RENDERER) or []
    except PackageNotFoundError:
        return {}
    for requirement in wanted:
        if "extra ==" in requirement:
            continue  # an optional extra (docs, tests) shapes no byte
        name = requirement.split(";")[0].strip()
        for stop in "[<>=!~ (":
            name = name.split(stop)[0]
        names.append(name)
    found = {}
    for name in sorted(set(names), key=str.lower):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    found["pango (system)"] = _pango()
    return found


def _pango() -> str:
    # The system library that lays out the text and picks the fonts (through fontconfig): not a
    # Python distribution, so no lock file pins it.
    try:
        from weasyprint.text.ffi import pango

        number = int(pango.pango_version())
    except (ImportError, OSError, AttributeError):
        return "absent"
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"
