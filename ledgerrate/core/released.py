"""The stored files of an edition's released datasets (`released/`), read and checked against
their manifest.

Shared by `seeds release`, which writes them once (`generate/stored_datasets.py`), `build`,
which publishes their bytes instead of rendering them again, and `verify`, which regenerates
them from the seeds: one reader, so that what `build` accepts is what `verify` examined.

The checks here are the cheap ones a build can afford on every run: each file's sha256 and size
as the manifest lists them, the dataset's hashed content (`dataset.json`) as registered, and
every file that content hashes. Files rendered on demand from an item's text (the board packs'
PDFs) are covered by no registered hash: only `verify`, which renders them again, proves them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import ReleasedFiles

# A dataset's hashed content in canonical JSON (its sha256 is the registered dataset hash), as
# stored and as published beside the dataset's files (`data/<edition>/datasets/<workload>/`).
DATASET_CONTENT = "dataset.json"


def load_released(paths: EditionPaths) -> ReleasedFiles | None:
    """The edition's manifest of stored released datasets; None when it has none (released
    before datasets were stored, or not released). FileProblem when it does not parse."""
    if not paths.released_manifest.is_file():
        return None
    manifest = load_model(ReleasedFiles, paths.released_manifest)
    if manifest.edition != paths.id:
        raise UsageProblem(
            f"{paths.released_manifest}: lists the datasets of edition {manifest.edition!r}, "
            f"not {paths.id!r}"
        )
    return manifest


def hashed_files(content: dict[str, Any]) -> dict[str, str]:
    """`item/name` → sha256 of every file the dataset's hashed content lists."""
    return {
        f"{item['id']}/{name}": digest
        for item in content.get("items", [])
        for name, digest in item.get("files", {}).items()
    }


def stored_files(
    paths: EditionPaths, manifest: ReleasedFiles, workload: str, registered_hash: str
) -> dict[str, bytes]:
    """Every stored file of `workload`'s released dataset (`item/name` and `dataset.json` →
    bytes), each checked against the manifest, the content against the registered dataset
    hash, and every file that content hashes against its digest there. UsageProblem naming the
    first file that is not as it must be."""
    entry = manifest.datasets.get(workload)
    listing = f"{paths.id}/{paths.released_manifest.relative_to(paths.root).as_posix()}"
    if entry is None:
        raise UsageProblem(f"{listing}: lists no stored files for {workload}")
    if entry.dataset_hash != registered_hash:
        raise UsageProblem(
            f"{listing}: {workload} is listed as dataset {entry.dataset_hash[:12]}…, but the "
            f"registered dataset is {registered_hash[:12]}…"
        )
    folder = paths.released(workload)
    files: dict[str, bytes] = {}
    for rel, want in sorted(entry.files.items()):
        name = f"{paths.id}/{paths.released_dir.name}/{workload}/{rel}"
        data = _read_inside(paths.root, folder / rel, name)
        if len(data) != want.size or sha256_bytes(data) != want.sha256:
            raise UsageProblem(
                f"{name}: {len(data)} bytes, sha256 {sha256_bytes(data)[:12]}…; {listing} lists "
                f"{want.size} bytes, sha256 {want.sha256[:12]}…; restore the file from version "
                "control (`ledgerrate verify` regenerates it from the seed to check)"
            )
        files[rel] = data
    content = files.get(DATASET_CONTENT)
    if content is None or sha256_bytes(content) != registered_hash:
        raise UsageProblem(
            f"{paths.id}/{paths.released_dir.name}/{workload}/{DATASET_CONTENT}: missing, or "
            f"not the registered dataset {registered_hash[:12]}…"
        )
    for rel, digest in sorted(hashed_files(json.loads(content)).items()):
        if rel not in files or sha256_bytes(files[rel]) != digest:
            raise UsageProblem(
                f"{paths.id}/{paths.released_dir.name}/{workload}/{rel}: missing, or not the "
                f"file the registered dataset hashes ({digest[:12]}…)"
            )
    return files


def files_on_disk(paths: EditionPaths, workload: str) -> set[str]:
    """Every file under `released/<workload>/` (`/`-separated), listed or not."""
    folder = paths.released(workload)
    if not folder.is_dir():
        return set()
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()}


def _read_inside(root: Path, path: Path, name: str) -> bytes:
    """The bytes of `path`, refused when it or a folder between it and the edition is a
    symbolic link: the edition folder is untrusted, and a link would publish a file of the
    machine that builds it."""
    here = path
    while here != root and root in here.parents:
        if here.is_symlink():
            raise UsageProblem(f"{name}: a symbolic link; stored dataset files must be files")
        here = here.parent
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as why:
        raise UsageProblem(
            f"{name}: listed in the manifest of stored datasets but unreadable "
            f"({why.strerror}); restore it from version control"
        ) from None
    with os.fdopen(fd, "rb") as handle:
        return handle.read()
