"""An adversary's edits of an edition's stored released datasets (`released/`), shared by the
build's and verify's tests of them."""

from __future__ import annotations

import json
from pathlib import Path

from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.layout import EditionPaths


def flip_one_byte(path: Path, at: int | None = None) -> None:
    """Change one bit of byte `at` (the middle one if not given): the file's size stays, its
    digest does not."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2 if at is None else at] ^= 0x01
    path.write_bytes(bytes(data))


def relist(edition: Path, workload: str, rel: str) -> dict:
    """What an adversary does beside an edited file: list its new digest in the manifest.
    Returns the manifest as written."""
    paths = EditionPaths(edition)
    manifest = json.loads(paths.released_manifest.read_text())
    data = (paths.released(workload) / rel).read_bytes()
    manifest["datasets"][workload]["files"][rel] = {"sha256": sha256_bytes(data), "size": len(data)}
    paths.released_manifest.write_text(json.dumps(manifest))
    return manifest
