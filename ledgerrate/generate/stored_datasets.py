"""Write a released edition's datasets into its folder once, at `seeds release`.

Each released dataset's files (`generate/dataset_files.py`: its content as `dataset.json`, every
item's files, the board packs' PDFs among them) go to `released/<workload>/`, and
`released/manifest.json` lists each file's sha256 and size and what rendered them. `build` then
publishes those bytes, checked against the manifest, instead of rendering them on every machine
that builds the site; `verify` renders them again from the seed and compares byte for byte.

Made once: a dataset the manifest lists, with its files as listed, is left as it is, so
running this again (as `seeds release` of an edition already released does) only adds what is
missing. A stored file that differs from the manifest is refused, never written over: the
stored bytes are the published ones.
"""

from __future__ import annotations

import platform
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ledgerrate.core.edition import WorkloadLookup, load_edition, require_registration
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import atomic_write_bytes, load_model, write_json
from ledgerrate.core.layout import EditionPaths
from ledgerrate.core.released import DATASET_CONTENT, load_released, stored_files
from ledgerrate.generate.dataset_files import published_files, regenerate, render_stack
from ledgerrate.generate.register import toolchain_version
from ledgerrate.schema import ReleasedDataset, ReleasedFiles, RenderedBy, SeedFile, StoredFile


@dataclass
class Stored:
    """What `store_released` did: the datasets it wrote and those already stored."""

    manifest: Path
    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    # Released datasets this toolchain cannot make again (a workload it does not know, a
    # library that changed the content's hash), with why: `build` regenerates them as before,
    # or notes why it cannot on the data page.
    not_stored: dict[str, str] = field(default_factory=dict)
    files: int = 0
    size: int = 0


def store_released(edition_dir: Path, *, lookup: WorkloadLookup | None = None) -> Stored:
    """Store every released dataset of the edition the manifest does not list yet."""
    edition = load_edition(edition_dir)
    registration = require_registration(edition)
    paths = edition.paths
    if not paths.seeds.exists():
        raise UsageProblem(
            f"edition {paths.id!r}: its seeds are not released (no {paths.seeds.name}); "
            "datasets are stored when they are (`ledgerrate seeds release`)"
        )
    released = load_model(SeedFile, paths.seeds).seeds
    manifest = load_released(paths) or ReleasedFiles(edition=paths.id, datasets={})
    done = Stored(paths.released_manifest)
    datasets = dict(manifest.datasets)
    for workload_id, sealed in sorted(registration.workloads.items()):
        if workload_id not in released:
            continue
        if workload_id in datasets:
            # Read back and checked, so that a damaged store is reported here, not published.
            files = stored_files(paths, manifest, workload_id, sealed.dataset_hash)
            done.kept.append(workload_id)
        else:
            try:
                content, made = regenerate(paths.root, workload_id, lookup)
            except UsageProblem as why:
                done.not_stored[workload_id] = "; ".join(why.lines)
                continue
            files = published_files(content, made, registration.hash_scheme)
            if sha256_bytes(files[DATASET_CONTENT]) != sealed.dataset_hash:
                raise UsageProblem(
                    f"{workload_id}: regenerated content does not hash to the registered "
                    f"dataset {sealed.dataset_hash[:12]}…; nothing stored"
                )
            datasets[workload_id] = _write(paths, workload_id, sealed.dataset_hash, files)
            # The manifest after each dataset: an interrupted store keeps what it finished.
            manifest = ReleasedFiles(edition=paths.id, datasets=datasets)
            write_json(paths.released_manifest, manifest)
            done.written.append(workload_id)
        done.files += len(files)
        done.size += sum(len(data) for data in files.values())
    return done


def _write(
    paths: EditionPaths, workload_id: str, dataset_hash: str, files: dict[str, bytes]
) -> ReleasedDataset:
    folder = paths.released(workload_id)
    # Files left by an interrupted store are not listed anywhere: start the folder afresh.
    shutil.rmtree(folder, ignore_errors=True)
    for rel, data in sorted(files.items()):
        atomic_write_bytes(folder / rel, data)
    return ReleasedDataset(
        dataset_hash=dataset_hash,
        rendered_by=RenderedBy(
            toolchain_version=toolchain_version(),
            python=platform.python_version(),
            stack=render_stack(),
        ),
        files={
            rel: StoredFile(sha256=sha256_bytes(data), size=len(data))
            for rel, data in sorted(files.items())
        },
    )
