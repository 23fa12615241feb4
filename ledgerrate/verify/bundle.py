"""Open an evidence bundle (written by `publish/bundle.py`) for verification.

A bundle's name carries the sha256 of its bytes, which anyone can recompute. Opening a bundle is
hostile-input handling: members are extracted with tarfile's `data` filter, which refuses
absolute paths, `..`, links out and devices.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from ledgerrate.core.bundle_format import BUNDLE_NAME
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.layout import EditionPaths


def open_bundle(bundle: Path, workdir: Path) -> tuple[EditionPaths, list[str]]:
    """Extract a bundle safely; return the edition folder and any problems with its envelope."""
    problems: list[str] = []
    data = bundle.read_bytes()
    match = BUNDLE_NAME.match(bundle.name)
    if match is None:
        problems.append(
            f"{bundle.name}: name does not carry a sha256 "
            "(ledgerrate-evidence-<edition>-<sha256>.tar.gz)"
        )
    elif match["sha"] != sha256_bytes(data):
        problems.append(
            f"{bundle.name}: content sha256 is {sha256_bytes(data)}, not the one in its name"
        )
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tops = {m.name.split("/", 1)[0] for m in tar.getmembers()}
            if len(tops) != 1:
                raise UsageProblem(f"{bundle}: a bundle holds exactly one edition folder")
            tar.extractall(workdir, filter="data")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise UsageProblem(f"{bundle}: not a readable evidence bundle ({exc})") from None
    return EditionPaths(workdir / tops.pop()), problems
